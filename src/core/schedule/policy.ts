// Allocation policies (issue 19): the order in which `adviseNext` offers the ready tasks to the
// original's greedy selection. `id-order` is the original's (docs/formats.md#scheduling: stable id order).
// `critical-path` offers first the task with the longest remaining path to the end of the plan,
// each task weighted by its ACCESS.json `estimate` (1 when absent), ties in id order. Only the
// order changes: every selection rule (readiness, leases, active and selected conflicts,
// attention, slots) is applied to each offered task exactly as before.
import type { PlanRow } from "../plan/table.ts";

export type Policy = "id-order" | "critical-path";
export const POLICIES: readonly Policy[] = ["id-order", "critical-path"];

export function isPolicy(v: unknown): v is Policy {
  return typeof v === "string" && (POLICIES as readonly string[]).includes(v);
}

export interface Remaining {
  /** The task's own weight plus the heaviest chain of unfinished work after it. */
  remaining: number;
  /** The successor that chain continues with, or null at the end of the plan. */
  next: string | null;
}

/**
 * Longest weighted remaining path of every task, by one pass over a topological order in
 * reverse. A VERIFIED task weighs 0 (its work is done); ties between successors go to the
 * first in `succOf`'s order, so the reported path is deterministic.
 */
export function remainingPaths(
  order: readonly string[],
  succOf: (id: string) => readonly string[],
  weight: (id: string) => number,
  done: (id: string) => boolean,
): Map<string, Remaining> {
  const out = new Map<string, Remaining>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    let best: Remaining = { remaining: 0, next: null };
    for (const s of succOf(id)) {
      const r = out.get(s)!.remaining;
      if (r > best.remaining) best = { remaining: r, next: s };
    }
    out.set(id, { remaining: best.remaining + (done(id) ? 0 : weight(id)), next: best.next });
  }
  return out;
}

/** The rows, longest remaining path first; the sort is stable, so ties keep the id order. */
export function byRemaining(rows: readonly PlanRow[], paths: Map<string, Remaining>): PlanRow[] {
  return [...rows].sort((a, b) => paths.get(b.id)!.remaining - paths.get(a.id)!.remaining);
}

/** The chain a task's remaining figure follows: the task, then each heaviest successor. */
export function pathFrom(id: string, paths: Map<string, Remaining>): string[] {
  const out = [id];
  for (let at = paths.get(id)!.next; at !== null; at = paths.get(at)!.next) out.push(at);
  return out;
}
