// Property test: on thousands of random scopes the advice obeys docs/formats.md#scheduling exactly.
import { describe, expect, test } from "bun:test";
import type { RowState } from "../../../src/core/plan/table.ts";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { conflicts } from "../../../src/core/schedule/conflicts.ts";
import type { LeaseView } from "../../../src/core/dispatch/lease-record.ts";
import type { NextSnapshot } from "../../../src/core/schedule/snapshot.ts";
import { globsOverlap } from "../../../src/core/workspace/paths.ts";
import { lease, scope, wave, type TaskSpec } from "./build.ts";
import { prng } from "../../helpers/prng.ts";

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
  "pkg/e/**",
  "web/f/**",
  "web/g/**",
  "api/h",
  "api/i/**",
];
const RESOURCES = ["db:test", "port:3000"];
const STATES: RowState[] = ["WAITING", "READY", "READY", "IN-FLIGHT", "VERIFIED", "VERIFIED"];

function randomScope(rand: () => number): NextSnapshot {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const n = 2 + Math.floor(rand() * 11);
  const ids: string[] = [];
  while (ids.length < n) {
    const id = String(1 + Math.floor(rand() * 40));
    if (!ids.includes(id)) ids.push(id);
  }
  const state = new Map<string, RowState>();
  const tasks: TaskSpec[] = ids.map((id, k) => {
    const needs = ids.slice(0, k).filter(() => rand() < 0.25);
    // Mostly coherent states (VERIFIED only above VERIFIED needs), sometimes anything.
    const coherent = rand() < 0.9;
    const open = needs.every((d) => state.get(d) === "VERIFIED");
    state.set(id, coherent && !open ? "WAITING" : pick(STATES));
    const owns = [...new Set([pick(GLOBS), ...(rand() < 0.3 ? [pick(GLOBS)] : [])].map((g) => g))];
    return {
      id,
      needs,
      owns: owns.filter((g, i) => owns.indexOf(g) === i),
      reads: rand() < 0.5 ? [pick(GLOBS)] : [],
      resourceReads: rand() < 0.2 ? [pick(RESOURCES)] : [],
      resourceWrites: rand() < 0.2 ? [pick(RESOURCES)] : [],
      state: state.get(id)!,
    };
  });
  const leases: LeaseView[] = [];
  for (const t of tasks) if (rand() < 0.15) leases.push(lease("api", `leaf-${t.id}`, t.owns!));
  if (rand() < 0.05) leases.push(lease("web", "leaf-1", [pick(GLOBS)]));
  const waves =
    rand() < 0.3
      ? [
          wave(
            "w1",
            pick(["sealed", "complete", "complete", "sealed", "open"] as const),
            [`leaf-${ids[0]}`],
            { [`leaf-${ids[0]}`]: "h1" },
            rand() < 0.5 ? [`leaf-${ids[0]}`] : [],
          ),
        ]
      : [];
  // A complete wave needs every leaf returned; keep the generated record coherent.
  if (waves[0]?.state === "complete")
    waves[0].returned = new Map([[`leaf-${ids[0]}`, { at: "2026-09-23T10:07:00.000Z" }]]);
  return scope(tasks, {
    slots: 1 + Math.floor(rand() * 5),
    order: rand() < 0.5 ? "natural" : "original",
    leases,
    waves,
  });
}

/** Brute-force reachability over needs. */
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

describe("advice on random scopes (seeded)", () => {
  test("3,000 scopes: launch is pairwise independent, within free slots, ready, lease-free, the greedy maximum, and mode is exact", () => {
    const rand = prng(20261202);
    const seen = { launched: 0, several: 0, selectedConflict: 0, activeConflict: 0, lease: 0, slots: 0 };
    for (let round = 0; round < 3000; round++) {
      const s = randomScope(rand);
      const a = adviseNext(s, { details: false });
      const acc = (id: string) => s.tasks.get(id)!.access;
      const independent = (x: string, y: string) =>
        !ancestors(s, x).has(y) && !ancestors(s, y).has(x) && !conflicts(acc(x), acc(y));
      const row = (id: string) => s.plan.byId.get(id)!;
      const leasedHere = new Set(s.leases.filter((l) => l.scope === "api").map((l) => l.leaf.slice(5)));
      const foreignHit = (id: string) =>
        s.leases.some(
          (l) =>
            !(l.scope === "api" && l.leaf === `leaf-${id}`) &&
            [...acc(id).writes, ...acc(id).reads].some((g) =>
              l.globs.some((h) => globsOverlap(g.toLowerCase(), h.toLowerCase())),
            ),
        );
      const ready = (id: string) => row(id).needs.every((n) => row(n).state === "VERIFIED" && !leasedHere.has(n));
      const free = Math.max(0, s.slots - a.active.length);
      const context = { round, launch: a.launch, active: a.active };

      expect({ ...context, within: a.launch.length <= free }).toEqual({ ...context, within: true });
      for (const x of a.launch) {
        expect({ ...context, x, ready: ready(x), lease: foreignHit(x) }).toEqual({
          ...context,
          x,
          ready: true,
          lease: false,
        });
        for (const y of a.launch)
          if (x !== y) expect({ ...context, x, y, ok: independent(x, y) }).toEqual({ ...context, x, y, ok: true });
        for (const y of a.active)
          expect({ ...context, x, y, ok: independent(x, y) }).toEqual({ ...context, x, y, ok: true });
      }
      // Greedy maximality: replaying the scan in id order with pairwise checks selects the same set.
      const expected: string[] = [];
      if (a.attention.length === 0) {
        for (const r of s.plan.rows) {
          if (r.state === "VERIFIED" || r.state === "ABANDONED" || a.active.includes(r.id)) continue;
          if (!ready(r.id) || foreignHit(r.id) || a.active.some((y) => !independent(r.id, y))) continue;
          if (expected.some((y) => !independent(r.id, y)) || expected.length >= free) continue;
          expected.push(r.id);
        }
      }
      expect({ ...context, launch: a.launch }).toEqual({ ...context, launch: expected });
      const ids = s.plan.rows.map((r) => r.id);
      const anyIndependent = ids.some((x, i) => ids.slice(i + 1).some((y) => independent(x, y)));
      expect({ ...context, mode: a.mode }).toEqual({ ...context, mode: anyIndependent ? "orchestrated" : "solo" });
      const blocked = Object.values(a.blocked).reduce((x, y) => x + (y ?? 0), 0);
      const unfinished = s.plan.rows.filter(
        (r) => r.state !== "VERIFIED" && r.state !== "ABANDONED" && !a.active.includes(r.id),
      ).length;
      expect(blocked + a.launch.length).toBe(unfinished);
      seen.launched += a.launch.length > 0 ? 1 : 0;
      seen.several += a.launch.length > 1 ? 1 : 0;
      seen.selectedConflict += a.blocked["selected-conflict"] ? 1 : 0;
      seen.activeConflict += a.blocked["active-conflict"] ? 1 : 0;
      seen.lease += a.blocked["live-lease-conflict"] ? 1 : 0;
      seen.slots += a.blocked.slots ? 1 : 0;
    }
    // The generator must exercise every rule, or the properties above prove little.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(100);
  }, 120_000);
});
