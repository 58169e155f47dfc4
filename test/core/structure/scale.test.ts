// Issue 19: the 1,000-leaf generated plan (bench/structure.ts) keeps the output it had before the
// planner was made to scale. The figures were recorded from the quadratic planner (commit
// bd6a7bc): the snapshot hash, the actions, the calculated state, every written file, and the
// same again for a split of the last leaf.
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { applyStructure, planStructure } from "../../../src/io/structure/apply.ts";
import { canonical, sha } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { generatedScope } from "./generated.ts";
import { child, readScope, refinement, request, SCOPE } from "./scope.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

const digest = (v: unknown) => sha(canonical(v));
const TARGETS = ["PLAN.md", "ACCESS.json", "GATES.md", "STRUCTURE.json"];
const written = (root: string) => Object.fromEntries(TARGETS.map((f) => [f, sha(readScope(root, f))]));

test("the 1,000-leaf bench plan keeps its snapshot, actions, state and files through plan, apply, check and a split", async () => {
  const root = generatedScope(1000);
  roots.push(root);
  const planned = planStructure(root, SCOPE, request("init", 1));
  if (planned.status !== "planned") throw new Error("expected a plan");
  expect(planned.snapshot).toBe("7a001a2b0fe5363639b5a83e11f8961e0cd5a44a9fb85a7cb79ed7115c7c7cb5");
  expect(planned.calc.actions.length).toBe(701);
  expect(digest(planned.calc.actions)).toBe("d473372f0845a0d4afb66e050af5f10a49bd3b9a1cc4018ddb95eee4e490abfc");
  expect(digest(planned.calc.next)).toBe("729e8f12a99cefdcfc7f788799ae8c56760202fc5fe259cb032a3db533f12fd7");
  expect(planned.calc.check).toEqual({ ok: true, residual: 0, errors: [] });
  expect(planned.calc.complexity).toEqual({ groups: 299, boundaryEdges: 561, depth: 0 });

  const applied = await applyStructure(root, SCOPE, request("init", 1));
  if (applied.status !== "applied") throw new Error("expected an apply");
  expect(digest(applied.actions)).toBe("d473372f0845a0d4afb66e050af5f10a49bd3b9a1cc4018ddb95eee4e490abfc");
  expect(written(root)).toEqual({
    "PLAN.md": "d53ff8fffa3497af026f328a43876f2eab59fa1ded5b877e11fc3bca81699e20",
    "ACCESS.json": "418b669448411a3eb4595bf78e96deba42b7230f5517a11c3111ede0bb2dda1d",
    "GATES.md": "f7f51430568567effa79f526c143e545dda65aee8cbaeb152155c091245394a8",
    "STRUCTURE.json": "5f7f1264888ad0aa24f65cc979bdf7e975ad50c70e78bcf11cb5639bddb16712",
  });
  expect(checkStructure(root, SCOPE)).toEqual({ ok: true, residual: 0, errors: [] });

  const split = await applyStructure(
    root,
    SCOPE,
    request("split", 2, { T999: refinement([child("T999", "a"), child("T999", "b")]) }),
  );
  if (split.status !== "applied") throw new Error("expected a split");
  expect(split.actions.length).toBe(5);
  expect(digest(split.actions)).toBe("d6877a8fc8be1cca4cddc4e43af6bd2c8a69812d3c23cdb6363ca2624b4da00d");
  expect(written(root)).toEqual({
    "PLAN.md": "fc01c5422d26e444bc57ebfea4c8701be6196eaf7dc25d804c4665ddfb42b5dc",
    "ACCESS.json": "b7d4700b6edc4db6550531d5a001fff20690597ee817ef58c076d320c9e857d1",
    "GATES.md": "f7f51430568567effa79f526c143e545dda65aee8cbaeb152155c091245394a8",
    "STRUCTURE.json": "465ccf53e74b85db8eff16e0853b74e9bd0e830d5e323239e1121ccebaaf90ac",
  });
  expect(checkStructure(root, SCOPE)).toEqual({ ok: true, residual: 0, errors: [] });
}, 120_000);
