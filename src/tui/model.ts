// One model of what the dashboard shows, derived once per load: every panel reads its leaf
// states from here (so Queue and Graph never disagree), and every list is an array of items
// with stable ids, filtered the same way (`/` text, unmet-only).
import type { PlanRow } from "../core/plan/table.ts";
import type { WaveView } from "../core/schedule/snapshot.ts";
import type { DashData } from "../ops/dashboard.ts";
import type { PlanView } from "../ops/dashboardPlan.ts";
import type { LeafView } from "./theme.ts";
import { gateRows, type GateRowItem } from "./panels/Gates.tsx";
import { failedByLeaf, graphRows, type LeafItem } from "./panels/Graph.tsx";
import { logLines, type LogLine } from "./panels/Log.tsx";
import { queueItems, type QueueItem } from "./panels/Queue.tsx";
import { leafLedgerName, leafStem } from "../core/plan/leaf-id.ts";

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

export function listed<T>(
  all: readonly T[],
  spec: ListSpec<T>,
  filter: string | undefined,
  unmetOnly: boolean,
): Listed<T> {
  const needle = (filter ?? "").toLowerCase();
  const items =
    !needle && !unmetOnly
      ? (all as T[])
      : all.filter((x) => (!unmetOnly || !spec.done(x)) && (!needle || spec.text(x).toLowerCase().includes(needle)));
  return { items, ids: items.map(spec.id), total: all.length };
}

/** Gate ids of one leaf's ledger (gates/leaf-<id>.md). */
export function leafLedgerSuffix(id: string): string {
  return `gates/${leafLedgerName(id)}`;
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

/** The last wave in dispatch.json order that started (or declared) a leaf, with the agent handle it was started as. */
export function lastStartInWaveOrder(
  waves: WaveView[],
  id: string,
): { wave: WaveView; handle: string; returned: boolean } | null {
  let found: { wave: WaveView; handle: string; returned: boolean } | null = null;
  for (const w of waves) {
    const s = w.started.get(leafStem(id));
    if (s) found = { wave: w, handle: s.handle, returned: w.returned.has(leafStem(id)) };
    else if (w.leaves.includes(leafStem(id)) && !found) found = { wave: w, handle: "", returned: false };
  }
  return found;
}

export function leafView(row: PlanRow, waves: WaveView[]): LeafView {
  switch (row.state) {
    case "VERIFIED":
      return "verified";
    case "ABANDONED":
      return "abandoned";
    case "IN-FLIGHT":
      return lastStartInWaveOrder(waves, row.id)?.returned ? "returned" : "in-flight";
    case "READY":
      return "ready";
    case "WAITING":
      return "waiting";
  }
}

/** Everything the panels list, derived once per loaded view. */
export interface Model {
  states: Map<string, LeafView>;
  dependents: Map<string, string[]>;
  gates: GateRowItem[];
  leaves: LeafItem[];
  queue: QueueItem[];
  log: LogLine[];
  /** Each leaf's failed gates (the Graph marks them). */
  failed: Map<string, string[]>;
  /** The Graph's id column: the longest leaf id (at most 12 columns). */
  leafIdWidth: number;
  /** The longest gate id (the Gates id column below 80 columns). */
  gateIdWidth: number;
}

export const EMPTY_MODEL: Model = {
  states: new Map(),
  dependents: new Map(),
  gates: [],
  leaves: [],
  queue: [],
  log: [],
  failed: new Map(),
  leafIdWidth: 4,
  gateIdWidth: 6,
};

/** The model of a view; `prev` lends the parts whose input did not change (a big scope's 50,000 gate rows). */
export function buildModel(data: DashData | null, prev: { data: DashData | null; model: Model } | null): Model {
  if (!data) return EMPTY_MODEL;
  const same = prev?.data;
  const gates = same && same.snapshot === data.snapshot ? prev!.model.gates : gateRows(data.snapshot);
  const log = same && same.log === data.log ? prev!.model.log : logLines(data.log);
  let gateW = 6;
  for (const g of data.snapshot.gates) if (g.qid.length > gateW) gateW = g.qid.length;
  // The plan side is kept while Gates, Approvals or Log is shown (ops/dashboard.ts): a write
  // then leaves `data.plan` the same object, and its 10,000 leaf rows and queue items with it.
  const plan = same && same.plan === data.plan ? prev!.model : planModel(data.plan);
  return {
    states: plan.states,
    dependents: plan.dependents,
    gates,
    leaves: plan.leaves,
    queue: plan.queue,
    log,
    failed: failedByLeaf(data),
    leafIdWidth: plan.leafIdWidth,
    gateIdWidth: gateW,
  };
}

/** What the panels derive from the plan side alone. */
function planModel(view: PlanView | null): Pick<Model, "states" | "dependents" | "leaves" | "queue" | "leafIdWidth"> {
  const states = leafStates(view);
  const leaves = graphRows(view, states);
  let idW = 4;
  for (const l of leaves) if (l.row.id.length > idW) idW = l.row.id.length;
  return {
    states,
    dependents: dependentsOf(view),
    leaves,
    queue: queueItems(view, states),
    leafIdWidth: Math.min(12, idW + 1),
  };
}
