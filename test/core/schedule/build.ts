// Plain-data scopes for advice tests: rows in, a NextSnapshot out (no files).
import type { GateState } from "../../../src/core/ledger/state.ts";
import { idCompare, type IdOrder } from "../../../src/core/plan/order.ts";
import { parsePlan, type RowState } from "../../../src/core/plan/table.ts";
import type { LeaseView } from "../../../src/core/dispatch/lease-record.ts";
import type { NextSnapshot, TaskFacts, WaveView } from "../../../src/core/schedule/snapshot.ts";

export interface TaskSpec {
  id: string;
  needs?: string[];
  owns?: string[];
  reads?: string[];
  resourceReads?: string[];
  resourceWrites?: string[];
  state?: RowState;
  wave?: number;
  gates?: GateState[];
}

export interface ScopeSpec {
  slots?: number;
  order?: IdOrder;
  waves?: WaveView[];
  leases?: LeaseView[];
  scope?: string;
}

/** PLAN.md text for the specs; planned waves default to 1 + the longest need chain. */
export function planText(tasks: TaskSpec[]): string {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const depth = new Map<string, number>();
  const waveOf = (id: string, seen = new Set<string>()): number => {
    const t = byId.get(id);
    if (!t || seen.has(id)) return 0;
    if (t.wave !== undefined) return t.wave;
    if (!depth.has(id))
      depth.set(id, 1 + Math.max(0, ...(t.needs ?? []).map((n) => waveOf(n, new Set([...seen, id])))));
    return depth.get(id)!;
  };
  const rows = tasks.map((t) => {
    const owns = t.owns ?? [`src/${t.id}/**`];
    const needs = t.needs ?? [];
    const state = t.state ?? (needs.length === 0 ? "READY" : "WAITING");
    return `| ${t.id} | ${owns.length ? owns.join(", ") : "-"} | ${needs.length ? needs.join(", ") : "-"} | mechanical | ${waveOf(t.id)} | ${state} |`;
  });
  return [
    "# Plan",
    "Contract revision: 1.",
    "",
    "| Leaf | Owns | Needs | Tier | Planned wave | State |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

export function scope(tasks: TaskSpec[], o: ScopeSpec = {}): NextSnapshot {
  const compare = idCompare(o.order ?? "natural");
  const plan = parsePlan(planText(tasks), compare);
  const facts = new Map<string, TaskFacts>();
  for (const t of tasks) {
    const row = plan.byId.get(t.id)!;
    facts.set(t.id, {
      access: {
        writes: row.owns,
        reads: t.reads ?? ["contracts/**"],
        resourceReads: t.resourceReads ?? [],
        resourceWrites: t.resourceWrites ?? [],
      },
      gates: t.gates ?? [row.state === "VERIFIED" ? "met" : "unmet"],
    });
  }
  return {
    scope: o.scope ?? "api",
    slots: o.slots ?? 4,
    compare,
    plan,
    tasks: facts,
    waves: o.waves ?? [],
    leases: o.leases ?? [],
    fingerprint: "test",
  };
}

export function lease(scopeId: string, leaf: string, globs: string[]): LeaseView {
  return { scope: scopeId, leaf, globs, invalid: false };
}

export function wave(
  id: string,
  state: WaveView["state"],
  leaves: string[],
  started: Record<string, string> = {},
  returned: string[] = [],
): WaveView {
  const at = (k: number) => `2026-09-23T10:00:0${k}.000Z`;
  return {
    id,
    state,
    leaves,
    started: new Map(Object.entries(started).map(([leaf, handle], k) => [leaf, { handle, at: at(k) }])),
    returned: new Map(returned.map((leaf) => [leaf, { at: "2026-09-23T10:07:00.000Z" }])),
  };
}
