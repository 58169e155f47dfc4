// Figures for issue 19: how long plans take to finish under each allocation policy. Each plan is
// run to completion in simulated time with K slots by the real scheduler core: at every event
// the scope's state goes into `adviseNext` (src/core/schedule/advise.ts), every leaf it launches
// starts, and the next return marks its leaf VERIFIED. Leaf durations are random from a fixed
// seed and are also the leaves' ACCESS.json estimates. The table prints, per shape, the mean of
// makespan / lower bound, where the lower bound is max(longest weighted path, total work / K),
// for id order (the original's) and critical path. Asserts nothing.
// Run: `bun bench/allocation.ts`.
import { parsePlan } from "../src/core/plan/table.ts";
import { idCompare } from "../src/core/plan/order.ts";
import { adviseNext } from "../src/core/schedule/advise.ts";
import type { Policy } from "../src/core/schedule/policy.ts";
import type { NextSnapshot, TaskFacts } from "../src/core/schedule/snapshot.ts";
import { planText, type TaskSpec } from "../test/core/schedule/build.ts";
import { prng } from "../test/helpers/prng.ts";

interface Leaf extends TaskSpec {
  id: string;
  needs: string[];
  duration: number;
}

const SEEDS = 20;

/** 30 % long leaves (5 to 20), the rest short (1 to 3): the spread that makes order matter. */
function duration(rand: () => number): number {
  return rand() < 0.3 ? 5 + Math.floor(rand() * 16) : 1 + Math.floor(rand() * 3);
}

function leaf(k: number, needs: number[], rand: () => number, extra: Partial<Leaf> = {}): Leaf {
  return { id: String(k + 1), needs: needs.map((n) => String(n + 1)), duration: duration(rand), ...extra };
}

/** Independent chains of 2 to 12 leaves, numbered chain by chain. */
function chains(rand: () => number): Leaf[] {
  const out: Leaf[] = [];
  for (let c = 0; c < 10; c++) {
    const len = 2 + Math.floor(rand() * 11);
    for (let i = 0; i < len; i++) out.push(leaf(out.length, i === 0 ? [] : [out.length - 1], rand));
  }
  return out;
}

/** Three stages of fork and join: a leaf forks into 8 to 16 branches of 1 to 4 leaves, which join. */
function forkJoin(rand: () => number): Leaf[] {
  const out: Leaf[] = [leaf(0, [], rand)];
  let join = 0;
  for (let stage = 0; stage < 3; stage++) {
    const ends: number[] = [];
    const branches = 8 + Math.floor(rand() * 9);
    for (let b = 0; b < branches; b++) {
      let prev = join;
      const len = 1 + Math.floor(rand() * 4);
      for (let i = 0; i < len; i++) {
        out.push(leaf(out.length, [prev], rand));
        prev = out.length - 1;
      }
      ends.push(prev);
    }
    out.push(leaf(out.length, ends, rand));
    join = out.length - 1;
  }
  return out;
}

/** 8 layers of 12 to 24 leaves; each leaf needs 1 to 3 leaves of the layer before, numbered layer by layer. */
function layered(rand: () => number, conflicts = false): Leaf[] {
  const out: Leaf[] = [];
  let previous: number[] = [];
  for (let layer = 0; layer < 8; layer++) {
    const width = 12 + Math.floor(rand() * 13);
    const current: number[] = [];
    for (let i = 0; i < width; i++) {
      const needs = new Set<number>();
      const count = previous.length === 0 ? 0 : 1 + Math.floor(rand() * 3);
      for (let j = 0; j < count; j++) needs.add(previous[Math.floor(rand() * previous.length)]!);
      const extra: Partial<Leaf> = {};
      if (conflicts) {
        // A fifth of the leaves write one of three shared modules (OWNS overlap), a tenth one of two resources.
        if (rand() < 0.2) extra.owns = [`src/shared${Math.floor(rand() * 3)}/**`];
        if (rand() < 0.1) extra.resourceWrites = [`db:${Math.floor(rand() * 2)}`];
      }
      out.push(leaf(out.length, [...needs], rand, extra));
      current.push(out.length - 1);
    }
    previous = current;
  }
  return out;
}

/** Longest weighted path and total work. */
function lowerBound(leaves: Leaf[], slots: number): number {
  const finish = new Map<string, number>();
  for (const l of leaves) finish.set(l.id, l.duration + Math.max(0, ...l.needs.map((n) => finish.get(n)!)));
  const total = leaves.reduce((s, l) => s + l.duration, 0);
  return Math.max(Math.max(...finish.values()), total / slots);
}

/** Runs the plan to completion; returns the makespan. */
function simulate(leaves: Leaf[], slots: number, policy: Policy): number {
  const compare = idCompare("natural");
  const plan = parsePlan(planText(leaves), compare);
  const tasks = new Map<string, TaskFacts>();
  for (const l of leaves) {
    const row = plan.byId.get(l.id)!;
    tasks.set(l.id, {
      access: { writes: row.owns, reads: [], resourceReads: [], resourceWrites: l.resourceWrites ?? [] },
      gates: ["unmet"],
      estimate: l.duration,
    });
  }
  const snap: NextSnapshot = { scope: "sim", slots, compare, plan, tasks, waves: [], leases: [], fingerprint: "sim" };
  const byId = new Map(leaves.map((l) => [l.id, l]));
  const running = new Map<string, number>(); // id → finish time
  let now = 0;
  let done = 0;
  while (done < leaves.length) {
    const advice = adviseNext(snap, { details: false, policy });
    if (advice.attention.length > 0) throw new Error(`simulation needs review: ${JSON.stringify(advice.attention)}`);
    for (const id of advice.launch) {
      plan.byId.get(id)!.state = "IN-FLIGHT";
      running.set(id, now + byId.get(id)!.duration);
    }
    if (running.size === 0) throw new Error("simulation stuck: nothing running, nothing launched");
    now = Math.min(...running.values());
    for (const [id, end] of [...running]) {
      if (end !== now) continue;
      running.delete(id);
      plan.byId.get(id)!.state = "VERIFIED";
      tasks.get(id)!.gates = ["met"];
      done++;
    }
  }
  return now;
}

const SHAPES: { name: string; make: (rand: () => number) => Leaf[]; slots: number }[] = [
  { name: "chains", make: chains, slots: 4 },
  { name: "fork-join", make: forkJoin, slots: 4 },
  { name: "wide layered random DAG", make: (r) => layered(r), slots: 8 },
  { name: "layered DAG with OWNS and resource conflicts", make: (r) => layered(r, true), slots: 8 },
];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${SEEDS} plans per shape; figures are makespan / lower bound, mean (worst)`);
console.log("| shape | K | leaves (mean) | id order | critical path |");
console.log("|---|---|---|---|---|");
for (const shape of SHAPES) {
  const ratios: Record<Policy, number[]> = { "id-order": [], "critical-path": [] };
  let size = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const leaves = shape.make(prng(seed * 7919));
    size += leaves.length;
    const bound = lowerBound(leaves, shape.slots);
    for (const policy of ["id-order", "critical-path"] as const)
      ratios[policy].push(simulate(leaves, shape.slots, policy) / bound);
  }
  const cell = (xs: number[]) => `${mean(xs).toFixed(3)} (${Math.max(...xs).toFixed(3)})`;
  console.log(
    `| ${shape.name} | ${shape.slots} | ${(size / SEEDS).toFixed(0)} | ${cell(ratios["id-order"])} | ${cell(ratios["critical-path"])} |`,
  );
}
