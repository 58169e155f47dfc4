// One model of what the dashboard shows, derived once per load: every panel reads its leaf
// states from here (so Queue and Graph never disagree), and every list is an array of items
// with stable ids, filtered the same way (`/` text, unmet-only).
import type { DashData } from "./load.ts";
import { leafView, type PlanView } from "./plan.ts";
import type { LeafView } from "./theme.ts";

/** The leaf states every panel shows: PLAN.md's state, `returned` from dispatch.json. */
export function leafStates(view: PlanView | null): Map<string, LeafView> {
  const m = new Map<string, LeafView>();
  if (!view?.plan) return m;
  for (const row of view.plan.rows) m.set(row.id, leafView(row, view.waves));
  return m;
}

/** Each leaf's dependents (the leaves that need it), in plan order. */
export function dependentsOf(view: PlanView | null): Map<string, string[]> {
  const m = new Map<string, string[]>();
  if (!view?.plan) return m;
  for (const row of view.plan.rows) {
    for (const n of row.needs) {
      let list = m.get(n);
      if (!list) m.set(n, (list = []));
      list.push(row.id);
    }
  }
  return m;
}

export interface Listed<T> {
  items: readonly T[];
  ids: string[];
  /** Items before filtering: the header of a filtered list says "3 of 40". */
  total: number;
}

export interface ListSpec<T> {
  id(item: T): string;
  /** What `/` matches against (case-insensitive). */
  text(item: T): string;
  /** Hidden by the unmet-only toggle. */
  done(item: T): boolean;
}

export function listed<T>(all: readonly T[], spec: ListSpec<T>, filter: string | undefined, unmetOnly: boolean): Listed<T> {
  const needle = (filter ?? "").toLowerCase();
  const items = !needle && !unmetOnly ? (all as T[]) : all.filter((x) => (!unmetOnly || !spec.done(x)) && (!needle || spec.text(x).toLowerCase().includes(needle)));
  return { items, ids: items.map(spec.id), total: all.length };
}

/** Gate ids of one leaf's ledger (gates/leaf-<id>.md). */
export function leafLedgerSuffix(id: string): string {
  return `gates/leaf-${id}.md`;
}

export function leafGateCount(data: DashData, id: string): { met: number; all: number } {
  const suffix = leafLedgerSuffix(id);
  let met = 0;
  let all = 0;
  for (const g of data.snapshot.gates) {
    if (!g.file.endsWith(suffix)) continue;
    all++;
    if (g.state === "met") met++;
  }
  return { met, all };
}
