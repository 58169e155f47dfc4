import { describe, expect, test } from "bun:test";
import { chains, Dag, kahnOrder, RelatedSet } from "../../../src/core/plan/graph.ts";
import { codeUnitCompare, naturalCompare } from "../../../src/core/plan/order.ts";
import { prng } from "../../helpers/prng.ts";

function graph(edges: Record<string, string[]>) {
  const ids = Object.keys(edges);
  const succ = new Map(ids.map((id) => [id, [] as string[]]));
  for (const id of ids) for (const n of edges[id]!) succ.get(n)!.push(id);
  return { ids, needs: (id: string) => edges[id]!, succs: (id: string) => succ.get(id)! };
}

describe("kahnOrder", () => {
  test("roots sorted by the comparator, then successors in the given order", () => {
    const g = graph({ "10": [], "2": [], a: ["10"], b: ["2"] });
    expect(kahnOrder(g.ids, g.needs, g.succs, naturalCompare)).toEqual({ ok: true, order: ["2", "10", "b", "a"] });
    expect(kahnOrder(g.ids, g.needs, g.succs, codeUnitCompare)).toEqual({ ok: true, order: ["10", "2", "a", "b"] });
  });

  test("a cycle is returned as a closed walk of needs, starting from the smallest id on it", () => {
    const g = graph({ x: [], b: ["c", "x"], c: ["d"], d: ["b"], e: ["b"] });
    expect(kahnOrder(g.ids, g.needs, g.succs, naturalCompare)).toEqual({ ok: false, cycle: ["b", "c", "d", "b"] });
  });

  test("a self-loop is a cycle of one", () => {
    const g = graph({ a: ["a"] });
    expect(kahnOrder(g.ids, g.needs, g.succs, naturalCompare)).toEqual({ ok: false, cycle: ["a", "a"] });
  });
});

describe("RelatedSet", () => {
  test("on 500 random DAGs it marks exactly the ancestors and descendants of its members, naming a related member", () => {
    const rand = prng(5);
    for (let round = 0; round < 500; round++) {
      const n = 2 + Math.floor(rand() * 15);
      const ids = Array.from({ length: n }, (_, k) => `t${k}`);
      const edges: Record<string, string[]> = {};
      ids.forEach((id, k) => (edges[id] = ids.slice(0, k).filter(() => rand() < 0.25)));
      const g = graph(edges);
      const anc = (id: string): Set<string> => {
        const out = new Set<string>();
        const stack = [...edges[id]!];
        while (stack.length) {
          const d = stack.pop()!;
          if (!out.has(d)) out.add(d), stack.push(...edges[d]!);
        }
        return out;
      };
      const members = ids.filter(() => rand() < 0.3);
      const set = new RelatedSet(new Dag(ids, g.needs));
      members.forEach((m) => set.add(m));
      for (const id of ids) {
        const expected = members.some((m) => m !== id && (anc(m).has(id) || anc(id).has(m)));
        expect({ round, id, related: set.has(id) }).toEqual({ round, id, related: expected });
        const rel = set.relation(id);
        if (rel && "dependent" in rel) expect(anc(rel.dependent).has(id)).toBe(true);
        if (rel && "dependency" in rel) expect(anc(id).has(rel.dependency)).toBe(true);
      }
    }
  });
});

describe("chains", () => {
  test("a chain grows while the successor is unique and has one need; forks and joins start new chains", () => {
    const g = graph({ "1": [], "2": ["1"], "3": ["2"], "4": ["3"], "5": ["3"], "6": ["4", "5"], "7": ["6"] });
    const order = (kahnOrder(g.ids, g.needs, g.succs, naturalCompare) as { order: string[] }).order;
    expect(chains(new Dag(order, g.needs))).toEqual([["1", "2", "3"], ["4"], ["5"], ["6", "7"]]);
  });
});
