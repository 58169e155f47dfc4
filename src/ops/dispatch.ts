// Dispatch waves and a leaf's way through them as use cases, for `kbz wave` and `kbz advance`: the
// scope's dispatch state, a wave step committed through the one coordination port (with its log line),
// the PLAN a leaf transition is checked against (with the leaf states a coordinator holds), and
// the leaf's lease released. Options in, data out; the verbs print. The leaf-state transaction
// itself is ops/plan.ts setLeafState.
import * as fs from "node:fs";
import * as path from "node:path";
import type { DispatchAction, DispatchState } from "../core/dispatch/waves.ts";
import { leafStem } from "../core/plan/leaf-id.ts";
import { withLeafStates, type Plan } from "../core/plan/table.ts";
import type { CommittedTransition } from "../io/dispatch/transition.ts";
import { readScopeTexts, scopeDir } from "../io/plan/write.ts";
import { coordination, coordinationFor } from "../io/coordination/active.ts";
import type { ReleaseResult } from "../io/coordination/port.ts";
import { infra } from "./refused.ts";

/** The scope's dispatch state (a DispatchStateError when dispatch.json is invalid). */
export function dispatchState(root: string, scope: string): DispatchState {
  return coordination(root).dispatch(scope).state;
}

/** Commit one wave step (open, start, seal, return, abandon) and its log line. */
export function commitWave(root: string, scope: string, step: DispatchAction): Promise<CommittedTransition> {
  return infra(() => coordinationFor(root).commitDispatch(scope, step));
}

/**
 * The scope's PLAN with the leaf states a coordinator holds laid over it (a ScheduleInputError
 * when PLAN.md, ACCESS.json or a ledger is invalid).
 */
export function scopePlan(root: string, scope: string): Plan {
  return withLeafStates(readScopeTexts(root, scope).plan, coordination(root).leafStates(scope));
}

/** Whether the scope has a PLAN.md at all (waves work without one, as unlazy's). */
export function hasPlan(root: string, scope: string): boolean {
  return fs.existsSync(path.join(scopeDir(root, scope), "PLAN.md"));
}

/** A typed `1.1` whose ledger is gates/leaf-1.1.md means `leaf-1.1`; any other id is kept as typed. */
export function ledgerSpelling(root: string, scope: string, leaf: string): string {
  const stem = leafStem(leaf);
  return stem !== leaf && fs.existsSync(path.join(root, ".unlazy", scope, "gates", `${stem}.md`)) ? stem : leaf;
}

/** A leaf ledger's path relative to the root (`.unlazy/<scope>/gates/<stem>.md`). */
export function leafLedgerPath(root: string, scope: string, stem: string): string {
  return path.relative(root, path.join(scopeDir(root, scope), "gates", `${stem}.md`));
}

/** Release the leases a leaf holds (none is fine). */
export function releaseLeaf(root: string, scope: string, stem: string): Promise<ReleaseResult> {
  return infra(() => coordinationFor(root).release(scope, stem));
}
