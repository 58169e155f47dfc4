// The structure model of a scope on disk: one ScopeReader handed to the pure builder
// (core/structure/build.ts), plus the receipt audit of VERIFIED leaves and the re-read that
// proves a model still current. Reads nothing itself; io/read.ts does.
import { VerificationError, verificationText } from "../../core/receipts/errors.ts";
import { leafReceiptIssues } from "../receipts/scope.ts";
import {
  leaseViewsOf,
  scopeLedgers,
  scopeText,
  structureModel,
  type ModelOptions,
} from "../../core/structure/build.ts";
import { canonical, fail, StructureError, type Model } from "../../core/structure/model.ts";
import type { LeaseView } from "../../core/dispatch/lease-record.ts";
import { readLeaseRecords } from "../read.ts";
import { ScopeReader } from "../scope.ts";

export interface LoadOptions extends ModelOptions {
  /** Audit VERIFIED leaves' verification receipts (the checker and structural events; not the scheduler, which raises its own attention). */
  receipts?: boolean;
}

/**
 * The reader each model was loaded through (issue 19). Proving a model current used to mean
 * loading the scope again and comparing hashes: at 10,000 leaves a second parse of every ledger,
 * seconds per command. The reader already holds the state (inode, size, times) of every file it
 * read, its lease records and its ledger inventory, so its consistency pass (`ScopeReader.changed`:
 * one lstat per file, re-reading and comparing only a file whose state moved) proves the same
 * inputs without parsing anything. Every read still checked itself as it was made (this reader
 * has no pass mode), so the pass only adds the proof that nothing moved since. A model that did
 * not come from loadStructure (a clone, a test's own) is reloaded as before.
 */
const readers = new WeakMap<Model, ScopeReader>();

export function loadStructure(root: string, scope: string, opts: LoadOptions = {}): Model {
  const reader = new ScopeReader(root, scope);
  const model = withReceipts(structureModel(reader, opts), opts);
  readers.set(model, reader);
  return model;
}

function withReceipts(model: Model, opts: LoadOptions): Model {
  if (!opts.receipts) return model;
  return { ...model, receipts: receiptIssues(model) };
}

function receiptIssues(model: Model): Record<string, string> {
  try {
    return leafReceiptIssues(model.root, model.scope, model.rows, process.env);
  } catch (e) {
    if (e instanceof VerificationError) fail(verificationText(e));
    throw e;
  }
}

/** The files and leases `model` was built from are still there, unchanged (kill's assertStableStructure). */
function inputsUnchanged(model: Model): boolean {
  const reader = readers.get(model);
  if (reader) return reader.changed() === null;
  let again: Model;
  try {
    again = loadStructure(model.root, model.scope, { allowPending: true });
  } catch (e) {
    if (e instanceof StructureError) return false;
    throw e;
  }
  return again.hash === model.hash;
}

/** Require the same inputs as when `model` was loaded. */
export function assertStable(model: Model, message = "inputs changed while checking; retry"): void {
  if (!inputsUnchanged(model)) fail(message);
}

/**
 * `model` may stand for a fresh load with receipts: its inputs are unchanged and its receipt
 * audit gives the same answers now.
 */
export function stillCurrent(model: Model): boolean {
  if (!inputsUnchanged(model)) return false;
  return model.receipts === undefined || canonical(receiptIssues(model)) === canonical(model.receipts);
}

/** A scope file's text, or null when absent; any other read problem is a StructureError naming the file. */
export function readScopeFile(root: string, scope: string, rel: string): string | null {
  return scopeText(new ScopeReader(root, scope), rel);
}

/**
 * One reader for many scope files (each read once, the folders' real paths resolved once), where
 * a fresh reader per file would pay both again for each of thousands of ledgers.
 */
export function scopeFileReader(
  root: string,
  scope: string,
): { text: (rel: string) => string | null; ledgers: (message?: string) => string[] } {
  const reader = new ScopeReader(root, scope);
  return { text: (rel) => scopeText(reader, rel), ledgers: (message) => scopeLedgers(reader, message) };
}

/** Every lease of every scope as {scope, leaf, globs, invalid}, in file-name order. */
export function leaseViews(root: string): LeaseView[] {
  return leaseViewsOf(readLeaseRecords(root));
}
