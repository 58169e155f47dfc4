// Roll-forward recovery (docs/formats.md#structure-events): a journal is replayed only when everything it did not
// plan to touch is exactly as observed, and every target is either its before- or after-image.
// Unknown external edits are never overwritten; old success is never restored.
import * as fs from "node:fs";
import * as path from "node:path";
import { sweepStrayTemps, writeAtomic } from "../fs.ts";
import { pidAlive, sweepLockLitter } from "../lock.ts";
import { MAX_LEDGER_BYTES } from "../../core/text/decode.ts";
import { readStable } from "../read.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import { verifyArtifacts, type ArtifactHasher } from "../../core/structure/handoff.ts";
import { leaseViews, loadStructure, readScopeFile, scopeFileReader } from "./model.ts";
import { scopeDir } from "../../core/structure/build.ts";
import { canonical, fail, JOURNAL, StructureError, type Model } from "../../core/structure/model.ts";
import { matchesImage, parseJournal, writeOrder, type Journal } from "../../core/structure/journal.ts";
import { verifyStructure } from "../../core/structure/verify.ts";

/** Called after every write step of an apply or recovery; tests throw from it to simulate a crash. */
export type WriteHook = (step: number, rel: string) => void;

export class Steps {
  private n = 0;

  constructor(private readonly hook?: WriteHook) {}

  done(rel: string): void {
    this.n++;
    this.hook?.(this.n, rel);
  }
}

/** The edge's artifact reader: sha256 of the root-relative file read as UTF-8 text. */
export function artifactHasher(root: string): ArtifactHasher {
  return (rel) => {
    try {
      return sha256Hex(
        readStable(path.join(root, rel), { label: "checkpoint artifact", maxBytes: MAX_LEDGER_BYTES, root }).toString(
          "utf8",
        ),
      );
    } catch {
      return null;
    }
  };
}

export function readJournal(root: string, scope: string): Journal | null {
  const text = readScopeFile(root, scope, JOURNAL);
  return text === null ? null : parseJournal(text);
}

/** Replay a validated journal; the caller holds the transaction lock. Returns the verified result as loaded. */
export function rollForward(root: string, scope: string, j: Journal, steps: Steps): Model {
  const dir = scopeDir(root, scope);
  verifyArtifacts(j.artifactChecks, artifactHasher(root));
  if (canonical(leaseViews(root)) !== canonical(j.leases))
    fail("leases changed during transaction; manual reconciliation required");
  if (readScopeFile(root, scope, "dispatch.json") !== j.dispatch)
    fail("dispatch changed during transaction; manual reconciliation required");
  const untouched = scopeFileReader(root, scope);
  for (const [name, image] of Object.entries(j.observed)) {
    if (Object.hasOwn(j.after, name)) continue;
    if (!matchesImage(untouched.text(name), image)) fail(`untouched input changed during transaction: ${name}`);
  }
  const ledgers = untouched.ledgers("invalid recovery ledger discovery");
  for (const l of ledgers)
    if (!Object.hasOwn(j.observed, l) && !Object.hasOwn(j.after, l)) fail("unexpected ledger during transaction");
  const order = writeOrder(j);
  const conflictFree = (name: string) => {
    const now = readScopeFile(root, scope, name);
    if (!matchesImage(now, j.before[name] ?? null) && now !== j.after[name])
      fail(`recovery conflict; refusing to overwrite ${name}`);
    return now;
  };
  for (const name of order) conflictFree(name);
  for (const name of order) {
    if (conflictFree(name) !== j.after[name]) writeAtomic(path.join(dir, name), j.after[name]!, { root });
    steps.done(name);
  }
  let written: Model;
  let verdict;
  try {
    written = loadStructure(root, scope, { allowPending: true });
    verdict = verifyStructure(written);
  } catch (e) {
    if (e instanceof StructureError) fail(`materialized structure failed verification: ${e.message}`);
    throw e;
  }
  if (!verdict.ok) fail(`materialized structure failed verification: ${JSON.stringify(verdict.errors)}`);
  fs.rmSync(path.join(dir, JOURNAL));
  steps.done(JOURNAL);
  return written;
}

/**
 * Remove what crashed writers left in the scope (issue 15): temp files of atomic writes whose
 * writer is gone, beside the scope files and the leaf ledgers, and the lock directory's litter.
 * Called under the transaction lock, so no structure writer of this scope is running.
 */
export function sweepScopeLitter(root: string, scope: string): string[] {
  const dir = scopeDir(root, scope);
  return [
    ...sweepStrayTemps(dir, pidAlive),
    ...sweepStrayTemps(path.join(dir, "gates"), pidAlive).map((n) => path.join("gates", n)),
    ...sweepLockLitter(path.join(root, ".unlazy", "locks")),
  ];
}

export type RecoverResult = { status: "nothing-to-recover" } | { status: "applied"; operation: string };

/** `kbz structure recover`, under the transaction lock held by the caller. */
export function recoverLocked(root: string, scope: string, steps: Steps): RecoverResult {
  sweepScopeLitter(root, scope);
  const j = readJournal(root, scope);
  if (j === null) return { status: "nothing-to-recover" };
  rollForward(root, scope, j, steps);
  return { status: "applied", operation: j.operation };
}
