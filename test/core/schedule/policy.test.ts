// Issue 19: the critical-path policy. It changes only the order ready leaves are offered in; on
// random scopes every set it chooses passes the same readiness, lease, independence and slot
// checks as the original id order's choice.
import { describe, expect, test } from "bun:test";
import type { RowState } from "../../../src/core/plan/table.ts";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { conflicts } from "../../../src/core/schedule/conflicts.ts";
import { remainingPaths } from "../../../src/core/schedule/policy.ts";
import type { LeaseView } from "../../../src/core/dispatch/lease-record.ts";
import type { NextSnapshot } from "../../../src/core/schedule/snapshot.ts";
import { globsOverlap } from "../../../src/core/workspace/paths.ts";
import { prng } from "../../helpers/prng.ts";
import { lease, scope, wave, type TaskSpec } from "./build.ts";

const critical = { details: true, policy: "critical-path" as const };

describe("critical-path choice", () => {
  // 1 and 2 are ready; 2 starts a chain of three, 1 nothing. One slot.
  const chain: TaskSpec[] = [{ id: "1" }, { id: "2" }, { id: "3", needs: ["2"] }, { id: "4", needs: ["3"] }];

  test("the default stays id order and prints no policy", () => {
    const a = adviseNext(scope(chain, { slots: 1 }), { details: false });
    expect(a.launch).toEqual(["1"]);
    expect("policy" in a).toBe(false);
  });

  test("prefers the leaf with the longest remaining path and says why", () => {
    const a = adviseNext(scope(chain, { slots: 1 }), critical);
    expect(a.launch).toEqual(["2"]);
    expect(a.policy).toBe("critical-path");
    expect(a.blocked).toEqual({ "dependencies-or-unreleased-leases": 2, slots: 1 });
    expect(a.explain!.preferred).toEqual([
      {
        leaf: "2",
        remaining: 3,
        path: ["2", "3", "4"],
        ahead: ["1"],
        why: "remaining path 3: 2 > 3 > 4; ahead of 1 (1) in id order",
      },
    ]);
  });

  test("weights each leaf by its ACCESS estimate", () => {
    const s = scope(chain, { slots: 1 });
    s.tasks.get("1")!.estimate = 5;
    expect(adviseNext(s, critical).launch).toEqual(["1"]);
    s.tasks.get("4")!.estimate = 2.5; // 2 + 1 + 2.5 = 4.5 < 5
    expect(adviseNext(s, critical).launch).toEqual(["1"]);
    s.tasks.get("3")!.estimate = 2; // 1 + 2 + 2.5 = 5.5
    expect(adviseNext(s, critical).explain!.preferred![0]).toMatchObject({ leaf: "2", remaining: 5.5 });
  });

  test("ties go to natural id order", () => {
    const a = adviseNext(
      scope([{ id: "10" }, { id: "9" }, { id: "11", needs: ["10"] }, { id: "12", needs: ["9"] }], { slots: 1 }),
      critical,
    );
    expect(a.launch).toEqual(["9"]);
  });

  test("still refuses conflicts, leases and attention", () => {
    const tasks: TaskSpec[] = [
      { id: "1", owns: ["src/x/**"] },
      { id: "2", owns: ["src/x/y.ts"] },
      { id: "3", needs: ["2"] },
    ];
    expect(adviseNext(scope(tasks, { slots: 4 }), critical).launch).toEqual(["2"]); // 1 conflicts with the chosen 2
    const leased = scope(tasks, { slots: 4, leases: [lease("web", "leaf-9", ["src/x/y.ts"])] });
    expect(adviseNext(leased, critical)).toMatchObject({ launch: [], action: "review" });
  });

  test("VERIFIED work weighs nothing", () => {
    const s = scope(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"] },
      ],
      { slots: 1 },
    );
    const paths = remainingPaths(
      s.plan.order,
      (id) => s.plan.successors.get(id)!,
      () => 1,
      (id) => s.plan.byId.get(id)!.state === "VERIFIED",
    );
    expect(paths.get("1")).toEqual({ remaining: 1, next: "2" });
  });
});

const GLOBS = [
  "src/a/**",
  "src/b/**",
  "src/a/x.ts",
  "src/*.ts",
  "lib/**",
  "docs/**",
  "SRC/B/**",
  "test/c/**",
  "pkg/d",
  "web/f/**",
];
const RESOURCES = ["db:test", "port:3000"];
const STATES: RowState[] = ["WAITING", "READY", "READY", "IN-FLIGHT", "VERIFIED", "VERIFIED"];

function randomScope(rand: () => number): NextSnapshot {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const n = 2 + Math.floor(rand() * 14);
  const ids = Array.from({ length: n }, (_, k) => String(k + 1));
  const state = new Map<string, RowState>();
  const tasks: TaskSpec[] = ids.map((id, k) => {
    const needs = ids.slice(0, k).filter(() => rand() < 0.2);
    const open = needs.every((d) => state.get(d) === "VERIFIED");
    state.set(id, !open ? "WAITING" : pick(STATES));
    return {
      id,
      needs,
      owns: [...new Set([pick(GLOBS), ...(rand() < 0.3 ? [pick(GLOBS)] : [])])],
      reads: rand() < 0.4 ? [pick(GLOBS)] : [],
      resourceReads: rand() < 0.2 ? [pick(RESOURCES)] : [],
      resourceWrites: rand() < 0.2 ? [pick(RESOURCES)] : [],
      state: state.get(id)!,
    };
  });
  const leases: LeaseView[] = [];
  for (const t of tasks) if (rand() < 0.15) leases.push(lease("api", `leaf-${t.id}`, t.owns!));
  if (rand() < 0.05) leases.push(lease("web", "leaf-1", [pick(GLOBS)]));
  const waves = rand() < 0.2 ? [wave("w1", "sealed", [`leaf-${ids[0]}`], { [`leaf-${ids[0]}`]: "h1" })] : [];
  const s = scope(tasks, { slots: 1 + Math.floor(rand() * 5), leases, waves });
  for (const id of ids) if (rand() < 0.5) s.tasks.get(id)!.estimate = 0.5 + rand() * 9;
  return s;
}

function ancestors(s: NextSnapshot, id: string): Set<string> {
  const out = new Set<string>();
  const stack = [...s.plan.byId.get(id)!.needs];
  while (stack.length) {
    const d = stack.pop()!;
    if (out.has(d)) continue;
    out.add(d);
    stack.push(...s.plan.byId.get(d)!.needs);
  }
  return out;
}

/** The checks docs/formats.md#scheduling makes of a launch set, written out independently of advise.ts. */
function violations(s: NextSnapshot, launch: string[], active: string[], attention: number): string[] {
  const acc = (id: string) => s.tasks.get(id)!.access;
  const row = (id: string) => s.plan.byId.get(id)!;
  const independent = (x: string, y: string) =>
    !ancestors(s, x).has(y) && !ancestors(s, y).has(x) && !conflicts(acc(x), acc(y));
  const leasedHere = new Set(s.leases.filter((l) => l.scope === "api" && !l.invalid).map((l) => l.leaf.slice(5)));
  const out: string[] = [];
  if (launch.length > Math.max(0, s.slots - active.length)) out.push("slots");
  if (attention > 0 && launch.length > 0) out.push("attention");
  for (const x of launch) {
    if (row(x).state === "VERIFIED" || row(x).state === "ABANDONED" || active.includes(x))
      out.push(`not unstarted ${x}`);
    if (!row(x).needs.every((n) => row(n).state === "VERIFIED" && !leasedHere.has(n))) out.push(`not ready ${x}`);
    const mine = [...acc(x).writes, ...acc(x).reads];
    if (
      s.leases.some(
        (l) =>
          !(l.scope === "api" && l.leaf === `leaf-${x}`) &&
          mine.some((g) => l.globs.some((h) => globsOverlap(g.toLowerCase(), h.toLowerCase()))),
      )
    ) {
      out.push(`lease ${x}`);
    }
    for (const y of launch) if (x < y && !independent(x, y)) out.push(`selected ${x},${y}`);
    for (const y of active) if (!independent(x, y)) out.push(`active ${x},${y}`);
  }
  return out;
}

describe("critical-path on random scopes (seeded)", () => {
  test("2,000 scopes: every chosen set passes the original's independence, lease and slot checks", () => {
    const rand = prng(19);
    let differs = 0;
    let launched = 0;
    for (let round = 0; round < 2000; round++) {
      const s = randomScope(rand);
      const original = adviseNext(s, { details: false });
      const cp = adviseNext(s, critical);
      expect({ round, original: violations(s, original.launch, original.active, original.attention.length) }).toEqual({
        round,
        original: [],
      });
      expect({ round, cp: violations(s, cp.launch, cp.active, cp.attention.length) }).toEqual({ round, cp: [] });
      // Same facts otherwise: active set, attention, action class and the blocked total.
      expect({ round, active: cp.active, attention: cp.attention }).toEqual({
        round,
        active: original.active,
        attention: original.attention,
      });
      const total = (a: typeof cp) => a.launch.length + Object.values(a.blocked).reduce((x, y) => x + (y ?? 0), 0);
      expect(total(cp)).toBe(total(original));
      if ([...cp.launch].sort().join() !== [...original.launch].sort().join()) differs++;
      if (cp.launch.length > 0) launched++;
    }
    expect(launched).toBeGreaterThan(500);
    expect(differs).toBeGreaterThan(100); // the policy does choose differently
  });
});
