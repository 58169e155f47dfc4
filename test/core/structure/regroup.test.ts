// docs/formats.md#scheduling: every forward DAG on 4 nodes with every valid completion subset. An empty event
// passes the transition check, a second empty event is a fixed point, and the groups equal the
// spec's literal greedy algorithm (full quotient acyclicity test, restart after every merge).
import { describe, expect, test } from "bun:test";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { clone, type Model } from "../../../src/core/structure/model.ts";
import { calculateStructure, sortGroups, type Planned } from "../../../src/core/structure/plan.ts";
import { verifyTransition } from "../../../src/core/structure/transition.ts";
import { makeScope, request, SCOPE, type TaskSpec } from "./scope.ts";

const IDS = ["a", "b", "c", "d"];
const EDGES: [number, number][] = [
  [0, 1],
  [0, 2],
  [0, 3],
  [1, 2],
  [1, 3],
  [2, 3],
];

function acyclic(groups: string[][], needs: Map<string, string[]>): boolean {
  const at = new Map<string, number>();
  groups.forEach((g, i) => g.forEach((m) => at.set(m, i)));
  const indeg = groups.map(() => 0);
  const succ = groups.map(() => new Set<number>());
  for (const [id, ns] of needs) {
    for (const n of ns) {
      const [f, t] = [at.get(n)!, at.get(id)!];
      if (f !== t && !succ[f]!.has(t)) {
        succ[f]!.add(t);
        indeg[t]!++;
      }
    }
  }
  const queue = indeg.flatMap((d, i) => (d === 0 ? [i] : []));
  for (let i = 0; i < queue.length; i++) for (const t of succ[queue[i]!]!) if (--indeg[t]! === 0) queue.push(t);
  return queue.length === groups.length;
}

/** The spec's pseudo-code, literally (docs/formats.md#structure-events). */
function reference(groups: string[][], needs: Map<string, string[]>, verified: Set<string>): string[][] {
  const anc = (x: string): Set<string> => new Set((needs.get(x) ?? []).flatMap((n) => [n, ...anc(n)]));
  const comparable = (x: string, y: string) => anc(x).has(y) || anc(y).has(x);
  let gs = sortGroups(groups);
  for (let changed = true; changed; ) {
    changed = false;
    scan: for (let a = 0; a < gs.length; a++) {
      for (let b = a + 1; b < gs.length; b++) {
        const m = [...gs[a]!, ...gs[b]!];
        const u = m.filter((x) => !verified.has(x));
        if (!u.every((x, i) => u.slice(i + 1).every((y) => comparable(x, y)))) continue;
        const c = sortGroups([...gs.filter((_, k) => k !== a && k !== b), m]);
        if (!acyclic(c, needs)) continue;
        gs = c;
        changed = true;
        break scan;
      }
    }
  }
  return gs;
}

function withStates(model: Model, verified: Set<string>): Model {
  const m = clone(model);
  for (const r of m.rows) {
    if (!verified.has(r.id)) continue;
    r.state = "VERIFIED";
    for (const g of r.gates) r.gateStates[g.id] = "met";
  }
  return m;
}

describe("regrouping on every 4-node forward DAG", () => {
  test("64 DAGs × every completion subset: transition check, fixed point, and the spec's literal algorithm agree", () => {
    let cases = 0;
    for (let mask = 0; mask < 64; mask++) {
      const needs = new Map<string, string[]>(IDS.map((id) => [id, []]));
      EDGES.forEach(([f, t], k) => {
        if (mask & (1 << k)) needs.get(IDS[t]!)!.push(IDS[f]!);
      });
      const tasks: TaskSpec[] = IDS.map((id) => ({ id, needs: needs.get(id)! }));
      const base = loadStructure(makeScope(tasks), SCOPE);
      for (let subset = 0; subset < 16; subset++) {
        const verified = new Set(IDS.filter((_, i) => subset & (1 << i)));
        if ([...verified].some((id) => needs.get(id)!.some((n) => !verified.has(n)))) continue; // not a valid completion
        const model = withStates(base, verified);
        const first = calculateStructure(model, request("e1", 1), () => null) as Planned;
        expect(first.check.ok).toBe(true);
        expect(verifyTransition(model, first.next).ok).toBe(true);
        expect(first.next.meta.groups).toEqual(reference(model.meta.groups, needs, verified));
        const after: Model = {
          ...model,
          rows: first.next.rows,
          meta: first.next.meta,
          integrations: first.next.integrations,
          revision: first.revision,
          registryInitialized: true,
        };
        const second = calculateStructure(after, request("e2", first.revision), () => null) as Planned;
        expect(second.next.meta.groups).toEqual(first.next.meta.groups);
        expect(second.actions).toEqual([]);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(64);
  });
});
