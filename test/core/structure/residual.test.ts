// Issue 19: the checker's residual count follows the original's counting (docs/formats.md#structure-verification): a
// conflicting launched pair is reported in both orders; under --final the remaining leases,
// the active workers and the unfinished waves are one issue each, however many there are.
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { applyStructure } from "../../../src/io/structure/apply.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { clone } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { verifyStructure } from "../../../src/core/structure/verify.ts";
import {
  child,
  lease,
  makeScope,
  readScope,
  refinement,
  request,
  SCOPE,
  setState,
  verify,
  writeDispatch,
  writeScope,
} from "./scope.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** A split into A.1 and A.2, both verified with A, and the root ledger met: --final passes. */
async function finished(): Promise<string> {
  const root = makeScope([{ id: "A" }]);
  roots.push(root);
  await applyStructure(root, SCOPE, request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) }));
  for (const id of ["A.1", "A.2", "A"]) verify(root, id);
  writeScope(
    root,
    "GATES.md",
    readScope(root, "GATES.md").replace(
      "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending",
      "- [x] ROOT: integrated scope reviewed\n  EVIDENCE: reviewed by hand",
    ),
  );
  expect(checkStructure(root, SCOPE, { final: true })).toEqual({ ok: true, residual: 0, errors: [] });
  return root;
}

describe("residual counts as the original's", () => {
  test("a selection with two conflicting tasks reports the pair in both orders", async () => {
    const root = makeScope([{ id: "A", resourceWrites: ["db:test"] }]);
    roots.push(root);
    await applyStructure(root, SCOPE, request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) }));
    const m = clone(loadStructure(root, SCOPE));
    m.rows.find((r) => r.id === "A.1")!.access.resourceWrites = ["db:test"];
    m.rows.find((r) => r.id === "A.2")!.access.resourceWrites = ["db:test"];
    const v = verifyStructure(m, { launch: ["A.1", "A.2"], slots: 2 });
    expect(v).toEqual({
      ok: false,
      residual: 2,
      errors: [
        { code: "parallel-conflict", id: "A.2,A.1" },
        { code: "parallel-conflict", id: "A.1,A.2" },
      ],
    });
  });

  test("--final with two leases left is one remaining-leases issue", async () => {
    const root = await finished();
    lease(root, "A.1", ["src/A/1/**"]);
    lease(root, "A.2", ["src/A/2/**"]);
    expect(checkStructure(root, SCOPE, { final: true })).toEqual({
      ok: false,
      residual: 1,
      errors: [{ code: "remaining-leases", id: "leaf-A.1,leaf-A.2" }],
    });
  });

  test("--final with two unfinished waves is one unfinished-dispatch issue", async () => {
    const root = await finished();
    writeDispatch(root, { w1: { state: "abandoned", leaves: ["A.1"] }, w2: { state: "abandoned", leaves: ["A.2"] } });
    expect(checkStructure(root, SCOPE, { final: true })).toEqual({
      ok: false,
      residual: 1,
      errors: [{ code: "unfinished-dispatch", id: "w1,w2" }],
    });
  });

  test("--final with two active workers is one active-workers issue (each unfinished task still counts)", async () => {
    const root = await finished();
    setState(root, "A.1", "IN-FLIGHT");
    setState(root, "A.2", "IN-FLIGHT");
    const v = checkStructure(root, SCOPE, { final: true });
    expect(v.errors.filter((e) => e.code === "active-workers")).toEqual([{ code: "active-workers", id: "A.1,A.2" }]);
    expect(v.errors.filter((e) => e.code === "unfinished-task").map((e) => e.id)).toEqual(["A.1", "A.2"]);
  });
});
