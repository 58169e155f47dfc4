// Random plans and random split / regroup / verify sequences (seeded): task conservation, an
// acyclic group graph, every task in exactly one group, no gate lost, and the independent
// check agreeing with the planner's own verdict after every event.
import { describe, expect, test } from "bun:test";
import { applyStructure, planStructure } from "../../../src/io/structure/apply.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { StructureError } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { verifyStructure } from "../../../src/core/structure/verify.ts";
import { child, makeScope, refinement, request, revisionOf, SCOPE, verify, type TaskSpec } from "./scope.ts";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomPlan(r: () => number): TaskSpec[] {
  const n = 2 + Math.floor(r() * 5);
  const tasks: TaskSpec[] = [];
  for (let i = 0; i < n; i++) {
    const needs = tasks.filter(() => r() < 0.35).map((t) => t.id);
    tasks.push({ id: `T${i}`, needs, resourceWrites: r() < 0.3 ? ["db:test"] : [] });
  }
  return tasks;
}

function invariants(root: string): void {
  const m = loadStructure(root, SCOPE);
  const rows = m.rows.map((x) => x.id).sort();
  const children = m.meta.splits.flatMap((s) => s.children);
  expect([...new Set([...m.meta.initial, ...children])].sort()).toEqual(rows);
  expect([...m.meta.expected].sort()).toEqual(rows);
  const assigned = m.meta.groups.flat().sort();
  expect(assigned).toEqual(rows);
  for (const [task, gates] of Object.entries(m.meta.requiredGates)) {
    const row = m.rows.find((x) => x.id === task)!;
    for (const g of gates) expect(row.gates.map((d) => d.id)).toContain(g);
  }
  const verdict = m.registryInitialized ? checkStructure(root, SCOPE) : verifyStructure(m);
  const codes = verdict.errors.map((e) => e.code);
  expect(codes).not.toContain("group-cycle");
  expect(codes).toEqual([]);
}

describe("random plans and random structure events", () => {
  test("25 seeded runs of up to 5 events keep every invariant and the checker agrees with the planner", async () => {
    let applied = 0;
    let refused = 0;
    for (let seed = 1; seed <= 25; seed++) {
      const r = rng(seed);
      const root = makeScope(randomPlan(r));
      for (let step = 0; step < 5; step++) {
        const m = loadStructure(root, SCOPE);
        const rev = revisionOf(root);
        const choice = r();
        if (choice < 0.25) {
          const ready = m.rows.filter((x) => x.state === "READY");
          if (ready.length > 0) verify(root, ready[Math.floor(r() * ready.length)]!.id);
          continue;
        }
        let req = request(`op-${seed}-${step}`, rev);
        if (choice < 0.8) {
          const open = m.rows.filter((x) => x.state === "READY" || x.state === "WAITING");
          if (open.length === 0) continue;
          const p = open[Math.floor(r() * open.length)]!;
          const base = p.owns[0]!.replace(/\/\*\*$/, "");
          const sequential = r() < 0.15;
          const kids = ["a", "b", "c"].slice(0, 2 + Math.floor(r() * 2)).map((s, i) =>
            child(p.id, s, {
              owns: [`${base}/${s}/**`],
              needs: sequential && i > 0 ? [`${p.id}.a`] : [],
              resourceWrites: p.access.resourceWrites.length && r() < 0.5 ? ["db:test"] : [],
            }),
          );
          req = request(`op-${seed}-${step}`, rev, { [p.id]: refinement(kids) });
        }
        let planned: boolean;
        try {
          const plan = planStructure(root, SCOPE, req);
          planned = plan.status === "planned" && plan.calc.check.ok;
        } catch (e) {
          if (!(e instanceof StructureError)) throw e;
          planned = false;
        }
        let ok = true;
        try {
          await applyStructure(root, SCOPE, req);
        } catch (e) {
          if (!(e instanceof StructureError)) throw e;
          ok = false;
        }
        expect(ok).toBe(planned);
        if (ok) applied++;
        else refused++;
        invariants(root);
      }
    }
    // The generator exercises both outcomes.
    expect(applied).toBeGreaterThan(15);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);
});
