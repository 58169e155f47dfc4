// The structure transaction (docs/formats.md#structure-events): plan (read-only), apply and recover, each under the
// scope's transaction lock. GATES.md is written first (root success is withdrawn before the task
// graph changes), then the journal, then every target through the roll-forward.
import * as path from "node:path";
import { withFileLock } from "../lock.ts";
import { writeAtomic } from "../fs.ts";
import { MAX_LEDGER_BYTES } from "../../core/text/decode.ts";
import { verifyArtifacts } from "../../core/structure/handoff.ts";
import { buildJournal, digestImage, renderJournal, type Image, type Journal } from "../../core/structure/journal.ts";
import { assertStable, loadStructure, stillCurrent } from "./model.ts";
import { scopeDir } from "../../core/structure/build.ts";
import { materialize } from "../../core/structure/materialize.ts";
import { fail, hashOf, JOURNAL, type Model } from "../../core/structure/model.ts";
import {
  calculateStructure,
  type Action,
  type Calculation,
  type Complexity,
  type Planned,
} from "../../core/structure/plan.ts";
import {
  artifactHasher,
  readJournal,
  recoverLocked,
  rollForward,
  Steps,
  sweepScopeLitter,
  type RecoverResult,
  type WriteHook,
} from "./recover.ts";

export interface Hooks {
  afterWrite?: WriteHook;
  /** Runs between planning and the re-read; tests change inputs here. */
  beforeRecheck?: () => void;
}

export type PlanResult =
  | { status: "already-applied"; operation: string }
  | { status: "planned"; operation: string; snapshot: string; calc: Planned };

export type ApplyResult =
  | { status: "already-applied"; operation: string }
  | { status: "applied"; operation: string; turn: number; actions: Action[]; complexity: Complexity };

function transactionLock(root: string, scope: string): string {
  return path.join(scopeDir(root, scope), "STRUCTURE.transaction");
}

/** `structure plan`: calculate, then prove the inputs did not move meanwhile. Writes nothing. */
export function planStructure(root: string, scope: string, request: unknown, hooks: Hooks = {}): PlanResult {
  const model = loadStructure(root, scope, { receipts: true });
  const calc = calculateStructure(model, request, artifactHasher(root));
  hooks.beforeRecheck?.();
  assertStable(model);
  if (calc.alreadyApplied) return { status: "already-applied", operation: calc.operation };
  return { status: "planned", operation: calc.operation, snapshot: model.hash, calc };
}

type Early = { model: Model; calc: Calculation; writes: Record<string, string> | null };

export async function applyStructure(
  root: string,
  scope: string,
  request: unknown,
  hooks: Hooks = {},
): Promise<ApplyResult> {
  // A refused event must leave no trace, not even the lock directory: without a journal to roll
  // forward, plan and materialize once before locking (reused under the lock when nothing moved).
  let early: Early | null = null;
  if (readJournal(root, scope) === null) {
    const model = loadStructure(root, scope, { receipts: true });
    const calc = calculateStructure(model, request, artifactHasher(root));
    collect();
    early = { model, calc, writes: calc.alreadyApplied ? null : materialize(model, calc) };
  }
  return withFileLock(root, transactionLock(root, scope), () => {
    const steps = new Steps(hooks.afterWrite);
    sweepScopeLitter(root, scope);
    const pending = readJournal(root, scope);
    if (pending !== null) {
      if (
        pending.requestHash !== hashOf(request) ||
        pending.operation !== (request as { operation?: unknown })?.operation
      ) {
        fail("another operation needs recovery first");
      }
      rollForward(root, scope, pending, steps);
    }
    // The calculation is a pure function of the model and the request: when the unlocked read is
    // proven current under the lock (its reader's consistency pass and the same receipt answers),
    // its model, calculation and writes are the locked ones (issue 19: a second load and plan
    // cost seconds at 10,000 leaves).
    const reuse = early !== null && pending === null && stillCurrent(early.model) ? early : null;
    early = null;
    const event = prepare(root, scope, request, hooks, reuse);
    if (event.status === "already-applied") return event;
    const dir = scopeDir(root, scope);
    writeAtomic(path.join(dir, "GATES.md"), event.gates, { root });
    steps.done("GATES.md");
    writeAtomic(path.join(dir, JOURNAL), event.text, { root });
    steps.done(JOURNAL);
    collect(); // the model and the calculation are garbage now: prepare keeps neither
    const written = rollForward(root, scope, event.journal, steps);
    if (written.rows.length !== event.rows) fail("post-apply inventory mismatch");
    return event.result;
  });
}

/**
 * A full collection between the phases of an apply, when the last phase's garbage is largest:
 * after the calculation (regroup's bitsets, tens of MB of typed arrays at 10,000 leaves) and
 * before recovery loads the written scope (the model and the calculation are dead by then,
 * and the load is as large again). Without them the heap grew past both phases: `kbz structure
 * apply` on 10,000 leaves peaked at 290-371 MB; with them, see bench/structure.ts. Each takes
 * tens of milliseconds there, and next to nothing on a small scope.
 */
function collect(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

type Prepared =
  | { status: "already-applied"; operation: string }
  | { status: "prepared"; journal: Journal; text: string; gates: string; rows: number; result: ApplyResult };

/**
 * Under the lock: the calculation (or the reused one), its files and its journal. Only the
 * journal and the result leave this function, so the loaded model and the calculated state are
 * garbage before recovery loads the written scope (issue 19: both at once were the apply's peak).
 */
function prepare(root: string, scope: string, request: unknown, hooks: Hooks, reuse: Early | null): Prepared {
  const model = reuse?.model ?? loadStructure(root, scope, { receipts: true });
  const hasher = artifactHasher(root);
  const calc = reuse?.calc ?? calculateStructure(model, request, hasher);
  if (calc.alreadyApplied) return { status: "already-applied", operation: calc.operation };
  const writes = reuse?.writes ?? materialize(model, calc);
  hooks.beforeRecheck?.();
  assertStable(model, "scope changed while planning; recalculate");
  // The artifacts are hashed again even for a reused calculation.
  verifyArtifacts(calc.artifactChecks, hasher);
  const journal = journalFor(model, calc, writes);
  const text = renderJournal(journal);
  if (Buffer.byteLength(text, "utf8") > MAX_LEDGER_BYTES) fail("recovery journal exceeds reader limit");
  const result: ApplyResult = {
    status: "applied",
    operation: calc.operation,
    turn: calc.next.meta.turn,
    actions: calc.actions,
    complexity: calc.complexity,
  };
  return { status: "prepared", journal, text, gates: writes["GATES.md"]!, rows: calc.next.rows.length, result };
}

/** The journal of an apply, its before-images and observed inputs as digests (docs/formats.md#structure-journal). */
function journalFor(model: Model, calc: Planned, writes: Record<string, string>) {
  const before: Record<string, Image> = {};
  for (const name of Object.keys(writes)) before[name] = digestImage(model.files[name] ?? null);
  const observed: Record<string, Image> = {};
  for (const [name, text] of Object.entries(model.files)) observed[name] = digestImage(text);
  return buildJournal({
    schema: 1,
    operation: calc.operation,
    requestHash: calc.requestHash,
    before,
    after: writes,
    leases: model.leases,
    dispatch: model.dispatchText,
    observed,
    artifactChecks: calc.artifactChecks,
  });
}

export async function recoverStructure(root: string, scope: string, hooks: Hooks = {}): Promise<RecoverResult> {
  return withFileLock(root, transactionLock(root, scope), () =>
    recoverLocked(root, scope, new Steps(hooks.afterWrite)),
  );
}
