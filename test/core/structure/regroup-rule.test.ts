// Issue 19: regroup.ts finds the same merges, in the same order, as the literal rule it replaced
// (scan the sorted groups' pairs, merge the first mergeable one, restart; a refused pair stays
// refused), on seeded random plans with VERIFIED tasks, busy tasks and initial groups.
import { describe, expect, test } from "bun:test";
import { kahnOrder } from "../../../src/core/plan/graph.ts";
import { cmp, sortIds } from "../../../src/core/structure/model.ts";
import { sortGroups } from "../../../src/core/structure/plan.ts";
import { regroup, type RegroupInput } from "../../../src/core/structure/regroup.ts";
import { prng } from "../../helpers/prng.ts";

/** The quadratic scan the planner used before issue 19, over the same input. */
function literal(input: RegroupInput): { groups: string[][]; merges: string[][] } {
  const anc = new Map<string, Set<string>>();
  for (const id of input.order) {
    const out = new Set<string>();
    for (const n of input.needsOf(id)) {
      out.add(n);
      for (const x of anc.get(n)!) out.add(x);
    }
    anc.set(id, out);
  }
  const comparable = (a: string, b: string) => anc.get(a)!.has(b) || anc.get(b)!.has(a);
  const chain = (merged: string[]) => {
    const open = merged.filter(input.open);
    return !merged.some(input.busy) && open.every((x, i) => open.slice(i + 1).every((y) => comparable(x, y)));
  };
  const through = (succ: Set<number>[], from: number, to: number) => {
    const seen = new Set([from, to]);
    const queue = [...succ[from]!].filter((g) => g !== to);
    for (const g of queue) seen.add(g);
    for (let i = 0; i < queue.length; i++) {
      for (const next of succ[queue[i]!]!) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  let serial = 0;
  let groups = input.groups.map((members) => ({ members, id: serial++ }));
  const refused = new Set<string>();
  const merges: string[][] = [];
  for (;;) {
    const at = new Map<string, number>();
    groups.forEach((g, i) => g.members.forEach((m) => at.set(m, i)));
    const succ = groups.map(() => new Set<number>());
    for (const id of input.order)
      for (const n of input.needsOf(id)) if (at.get(n) !== at.get(id)) succ[at.get(n)!]!.add(at.get(id)!);
    let found: [number, number] | null = null;
    scan: for (let a = 0; a < groups.length; a++) {
      for (let b = a + 1; b < groups.length; b++) {
        const key = `${groups[a]!.id},${groups[b]!.id}`;
        if (refused.has(key)) continue;
        if (chain([...groups[a]!.members, ...groups[b]!.members]) && !through(succ, a, b) && !through(succ, b, a)) {
          found = [a, b];
          break scan;
        }
        refused.add(key);
      }
    }
    if (found === null) break;
    const members = sortIds([...groups[found[0]]!.members, ...groups[found[1]]!.members]);
    groups = [...groups.filter((_, k) => k !== found![0] && k !== found![1]), { members, id: serial++ }];
    groups.sort((x, y) => cmp(x.members.join("\0"), y.members.join("\0")));
    merges.push(members);
  }
  return { groups: groups.map((g) => g.members), merges };
}

/** A random plan: ids with shared prefixes (T1, T10, T1a), needs among the earlier tasks. */
function randomInput(seed: number): RegroupInput {
  const rand = prng(seed);
  const n = 3 + Math.floor(rand() * 58);
  const ids = Array.from({ length: n }, (_, k) => (rand() < 0.2 ? `T${k}a` : `T${k}`));
  const needs = new Map<string, string[]>();
  const density = rand() * 0.4;
  const verified = new Set<string>();
  ids.forEach((id, k) => {
    const ns = ids.slice(Math.max(0, k - 12), k).filter(() => rand() < density);
    needs.set(id, ns);
    if (ns.every((x) => verified.has(x)) && rand() < 0.4) verified.add(id);
  });
  const busy = new Set(ids.filter((id) => !verified.has(id) && rand() < 0.08));
  const succ = new Map(ids.map((id) => [id, [] as string[]]));
  for (const id of ids) for (const x of needs.get(id)!) succ.get(x)!.push(id);
  const sorted = sortIds(ids);
  const k = kahnOrder(
    sorted,
    (id) => needs.get(id)!,
    (id) => sortIds(succ.get(id)!),
    cmp,
  );
  if (!k.ok) throw new Error("generated a cycle");
  // Initial groups: singletons, or chains of consecutive dependent tasks (a registry's groups).
  const groups: string[][] = [];
  const taken = new Set<string>();
  for (const id of k.order) {
    if (taken.has(id)) continue;
    const g = [id];
    taken.add(id);
    const next = succ.get(id)!.find((s) => !taken.has(s) && !busy.has(s) && needs.get(s)!.length === 1); // keeps the quotient acyclic
    if (next && !busy.has(id) && rand() < 0.2) {
      g.push(next);
      taken.add(next);
    }
    groups.push(g);
  }
  return {
    order: k.order,
    needsOf: (id) => needs.get(id)!,
    open: (id) => !verified.has(id),
    busy: (id) => busy.has(id),
    groups: sortGroups(groups),
  };
}

describe("regroup equals the literal scan", () => {
  test("on 300 random plans of 3 to 60 tasks", () => {
    let merged = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const input = randomInput(seed);
      const fast = regroup(input);
      const slow = literal(input);
      expect({ seed, groups: fast.groups, merges: fast.merges.map((m) => m.list()) }).toEqual({ seed, ...slow });
      merged += fast.merges.length;
    }
    expect(merged).toBeGreaterThan(300); // the plans do exercise merging
  }, 60_000);
});
