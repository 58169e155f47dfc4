// The structure model of a scope on disk: one ScopeReader handed to the pure builder
// (core/structure/build.ts), plus the receipt audit of VERIFIED leaves and the re-read that
// proves a model still current. Reads nothing itself; io/read.ts does.
import { VerificationError, verificationText } from "../../core/receipts/errors.ts";
import { leafReceiptIssues } from "../receipts/scope.ts";
import { leaseViewsOf, scopeLedgers, scopeText, structureModel, type ModelOptions } from "../../core/structure/build.ts";
import { fail, StructureError, type Model } from "../../core/structure/model.ts";
import { type LeaseView } from "../../core/dispatch/lease-record.ts";
import { readLeaseRecords, ScopeReader } from "../read.ts";

export interface LoadOptions extends ModelOptions {
  /** Audit VERIFIED leaves' verification receipts (the checker and structural events; not the scheduler, which raises its own attention). */
  receipts?: boolean;
}

export function loadStructure(root: string, scope: string, opts: LoadOptions = {}): Model {
  const model = structureModel(new ScopeReader(root, scope), opts);
  if (!opts.receipts) return model;
  try {
    return { ...model, receipts: leafReceiptIssues(root, scope, model.rows, process.env) };
  } catch (e) {
    if (e instanceof VerificationError) fail(verificationText(e));
    throw e;
  }
}

/** Reload and require the same inputs (kill's assertStableStructure). */
export function assertStable(model: Model, message = "inputs changed while checking; retry"): void {
  let again: Model;
  try {
    again = loadStructure(model.root, model.scope, { allowPending: true });
  } catch (e) {
    if (e instanceof StructureError) fail(message);
    throw e;
  }
  if (again.hash !== model.hash) fail(message);
}

/** A scope file's text, or null when absent; any other read problem is a StructureError naming the file. */
export function readScopeFile(root: string, scope: string, rel: string): string | null {
  return scopeText(new ScopeReader(root, scope), rel);
}

/** The scope's ledgers as scope-relative names, sorted. */
export function discoverLedgers(root: string, scope: string, message?: string): string[] {
  return scopeLedgers(new ScopeReader(root, scope), message);
}

/** Every lease of every scope as {scope, leaf, globs, invalid}, in file-name order. */
export function leaseViews(root: string): LeaseView[] {
  return leaseViewsOf(readLeaseRecords(root));
}
