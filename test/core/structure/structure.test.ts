// docs/formats.md#scheduling structure behaviours, through the core: planning, applying, the checker, the
// transition checker, selection checks, journals and recovery, and the docs/formats.md#fixes fixes.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { readScheduleFacts } from "../../../src/ops/facts.ts";
import { applyStructure, planStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { assertStable, loadStructure } from "../../../src/io/structure/model.ts";
import { clone, StructureError } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { calculateStructure } from "../../../src/core/structure/plan.ts";
import { artifactHasher } from "../../../src/io/structure/recover.ts";
import { verifyTransition } from "../../../src/core/structure/transition.ts";
import { verifyStructure } from "../../../src/core/structure/verify.ts";
import { hashTree } from "../../helpers/kbz.ts";
import {
  applyError,
  child,
  dir,
  errorOf,
  lease,
  makeScope,
  meet,
  planRow,
  readScope,
  recoverError,
  refinement,
  request,
  revisionOf,
  SCOPE,
  setState,
  verify,
  writeDispatch,
  writeScope,
  type TaskSpec,
} from "./scope.ts";

export function schedule(root: string, slots = 4) {
  return adviseNext(readScheduleFacts({ root, scope: SCOPE, slots, order: "original" }), { details: false });
}

function scheduleError(root: string): string {
  try {
    schedule(root);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

const A: TaskSpec[] = [{ id: "A" }];
const splitA = (op = "split-A", rev = 1) => request(op, rev, { A: refinement([child("A", "1"), child("A", "2")]) });
const codes = (v: { errors: { code: string }[] }) => v.errors.map((e) => e.code);

describe("planning and applying a split", () => {
  test("planning is deterministic, read-only, passes its own check, keeps the parent ledger text and reports depth 1", () => {
    const root = makeScope(A);
    const before = hashTree(root);
    const ledger = readScope(root, "gates/leaf-A.md");
    const a = calculateStructure(loadStructure(root, SCOPE), splitA(), artifactHasher(root));
    const b = calculateStructure(loadStructure(root, SCOPE), splitA(), artifactHasher(root));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const p = planStructure(root, SCOPE, splitA());
    expect(p.status).toBe("planned");
    if (p.status !== "planned") return;
    expect(p.calc.check).toEqual({ ok: true, residual: 0, errors: [] });
    expect(p.calc.complexity.depth).toBe(1);
    expect(hashTree(root)).toBe(before);
    expect(readScope(root, "gates/leaf-A.md")).toBe(ledger);
  });

  test("a nested refinement yields depth 2 and 5 rows; launches go [A.1.x, A.1.y, A.2] then [A.1, A.2] then [A]", async () => {
    const root = makeScope(A);
    const nested = refinement([child("A.1", "x"), child("A.1", "y")]);
    const req = request("nest", 1, {
      A: refinement([child("A", "1", { owns: ["src/A/1/**"], refinement: nested }), child("A", "2")]),
    });
    // A.1's children must stay inside A.1's ownership.
    (nested.children as Record<string, unknown>[])[0]!.ledger =
      "OWNS: src/A/1/x/**\n- [ ] C1: x\n  EVIDENCE: pending\n";
    (nested.children as Record<string, unknown>[])[1]!.ledger =
      "OWNS: src/A/1/y/**\n- [ ] C1: y\n  EVIDENCE: pending\n";
    const r = await applyStructure(root, SCOPE, req);
    expect(r.status === "applied" && r.complexity.depth).toBe(2);
    expect(loadStructure(root, SCOPE).rows.map((x) => x.id)).toEqual(["A", "A.1", "A.1.x", "A.1.y", "A.2"]);
    expect(schedule(root).launch).toEqual(["A.1.x", "A.1.y", "A.2"]);
    verify(root, "A.1.x");
    verify(root, "A.1.y");
    expect(schedule(root).launch).toEqual(["A.1", "A.2"]);
    verify(root, "A.1");
    verify(root, "A.2");
    expect(schedule(root).launch).toEqual(["A"]);
  });

  test("applying the same operation twice: the second is already-applied and changes no file (T(T(S)) = T(S))", async () => {
    const root = makeScope(A);
    expect((await applyStructure(root, SCOPE, splitA())).status).toBe("applied");
    const after = hashTree(root);
    expect(await applyStructure(root, SCOPE, splitA())).toEqual({ status: "already-applied", operation: "split-A" });
    expect(hashTree(root)).toBe(after);
  });

  test("two concurrent applies of one request create the children once", async () => {
    const root = makeScope(A);
    const results = await Promise.all([applyStructure(root, SCOPE, splitA()), applyStructure(root, SCOPE, splitA())]);
    expect(results.map((r) => r.status).sort()).toEqual(["already-applied", "applied"]);
    expect(loadStructure(root, SCOPE).rows.length).toBe(3);
  });

  test("a reused operation id with a different payload, and a stale revision, are refused without writes", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    const before = hashTree(root);
    const changed = splitA();
    (changed as { note?: string }).note = "different";
    expect(await applyError(root, changed)).toBe("operation id reused with different request");
    expect(await applyError(root, request("other", 1))).toBe("stale request contractRevision");
    expect(hashTree(root)).toBe(before);
  });

  const rejected: [string, () => Record<string, unknown>, string][] = [
    [
      "sequential children",
      () => refinement([child("A", "1"), child("A", "2", { needs: ["A.1"] })]),
      "no independent child pair; keep sequential work together",
    ],
    [
      "a child writing outside the parent",
      () => refinement([child("A", "1", { owns: ["lib/**"] }), child("A", "2")]),
      "child writes escape parent ownership",
    ],
    [
      "complete:false",
      () => refinement([child("A", "1", { complete: false }), child("A", "2")]),
      "complete access declaration required",
    ],
    [
      "a child reading outside the parent",
      () => refinement([child("A", "1", { reads: ["secret/**"] }), child("A", "2")]),
      "child reads escape parent declaration",
    ],
    [
      "an undeclared resource write",
      () => refinement([child("A", "1", { resourceWrites: ["db:test"] }), child("A", "2")]),
      "child resource access escapes parent declaration",
    ],
    [
      "a pre-checked child gate",
      () =>
        refinement([
          child("A", "1", { ledger: "OWNS: src/A/1/**\n- [x] C1: done\n  EVIDENCE: ok\n" }),
          child("A", "2"),
        ]),
      "invalid or pre-certified child ledger",
    ],
    [
      "a duplicate child id",
      () => refinement([child("A", "1"), child("A", "1", { owns: ["src/A/3/**"] })]),
      "duplicate child id",
    ],
    [
      "retainsParentGates:false",
      () => ({ ...refinement([child("A", "1"), child("A", "2")]), retainsParentGates: false }),
      "refinement requires children and retained parent gates",
    ],
    [
      "a child id outside the parent's namespace",
      () => refinement([child("B", "1", { owns: ["src/A/1/**"] }), child("A", "2")]),
      "invalid or reused child id",
    ],
    [
      "a need naming no sibling",
      () => refinement([child("A", "1", { needs: ["Z"] }), child("A", "2")]),
      "child needs must reference siblings",
    ],
    ["a missing tier", () => refinement([child("A", "1", { tier: "expert" }), child("A", "2")]), "child tier required"],
  ];
  for (const [what, ref, message] of rejected) {
    test(`rejected refinement: ${what} ("${message}"), no writes`, async () => {
      const root = makeScope(A);
      const before = hashTree(root);
      expect(await applyError(root, request("bad", 1, { A: ref() }))).toStartWith(message); // then the field and what is expected
      expect(hashTree(root)).toBe(before);
    });
  }

  test("a leased parent is not a safe boundary", async () => {
    const root = makeScope(A);
    lease(root, "A", ["src/A/**"]);
    const before = hashTree(root);
    expect(await applyError(root, splitA())).toBe("parent is not an unstarted safe boundary or accepted handoff");
    expect(hashTree(root)).toBe(before);
  });

  test("an abandoned root integration gate blocks any event as an unresolved handoff, with no writes", async () => {
    const root = makeScope(A, {
      gatesMd: "- [ ] ROOT: integrated\n  EVIDENCE: pending\nABANDON: ROOT blocked upstream\n",
    });
    const before = hashTree(root);
    expect(await applyError(root, splitA())).toBe("unresolved handoff");
    expect(hashTree(root)).toBe(before);
  });

  test("a child OWNS with a pipe (unrenderable in the PLAN table) is refused before any write", async () => {
    const root = makeScope(A);
    const before = hashTree(root);
    const bad = child("A", "1", {
      ledger: "OWNS: src/A/a|b/**\n- [ ] C1: x\n  EVIDENCE: pending\n",
      owns: ["src/A/a|b/**"],
    });
    const err = await applyError(root, request("pipe", 1, { A: refinement([bad, child("A", "2")]) }));
    expect(err).toBe("rendered plan differs from verified calculation");
    expect(hashTree(root)).toBe(before);
  });

  test("a parent declared in a dispatch wave, or active, cannot be split directly", async () => {
    const root = makeScope([{ id: "A" }, { id: "B" }]);
    writeDispatch(root, { w1: { state: "complete", leaves: ["A"], started: { A: "h1" }, returned: ["A"] } });
    expect(await applyError(root, splitA())).toBe("parent is not an unstarted safe boundary or accepted handoff");
    const root2 = makeScope([{ id: "A", state: "IN-FLIGHT" }]);
    expect(await applyError(root2, splitA())).toBe("parent is not an unstarted safe boundary or accepted handoff");
  });

  test("a missing parent, an unknown parent and a second different split are refused", async () => {
    const root = makeScope(A);
    expect(await applyError(root, request("x", 1, { Z: refinement([child("Z", "1"), child("Z", "2")]) }))).toBe(
      "unknown refinement parent",
    );
    await applyStructure(root, SCOPE, splitA());
    const other = request("again", 2, { A: refinement([child("A", "3"), child("A", "4")]) });
    expect(await applyError(root, other)).toBe("parent already expanded differently");
    // The identical refinement in a later event is a harmless no-op.
    expect(
      (
        await applyStructure(
          root,
          SCOPE,
          request("same", 2, { A: splitA().refinements && (splitA().refinements as Record<string, unknown>).A }),
        )
      ).status,
    ).toBe("applied");
  });
});

describe("regrouping", () => {
  test("a chain A→B→C coarsens to one group; a later empty event keeps it and reports no actions; nothing is lost", async () => {
    const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }, { id: "C", needs: ["B"] }]);
    const r = await applyStructure(root, SCOPE, request("init", 1));
    expect(r.status).toBe("applied");
    const m = loadStructure(root, SCOPE);
    expect(m.meta.groups).toEqual([["A", "B", "C"]]);
    const again = await applyStructure(root, SCOPE, request("noop", 2));
    expect(again.status === "applied" && again.actions).toEqual([]);
    expect(loadStructure(root, SCOPE).meta.groups).toEqual([["A", "B", "C"]]);
    expect(loadStructure(root, SCOPE).rows.map((x) => x.id)).toEqual(["A", "B", "C"]);
  });

  test("after a split's children and parent are verified, a later dependent task can be split and its children launch", async () => {
    const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }]);
    await applyStructure(root, SCOPE, splitA());
    for (const id of ["A.1", "A.2", "A"]) verify(root, id);
    const r = await applyStructure(
      root,
      SCOPE,
      request("split-B", 2, { B: refinement([child("B", "1"), child("B", "2")]) }),
    );
    expect(r.status).toBe("applied");
    expect(schedule(root).launch).toEqual(["B.1", "B.2"]);
  });

  test("a not-yet-started child can be split in a later event; launch becomes [A.1.x, A.1.y, A.2]", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    const r = await applyStructure(
      root,
      SCOPE,
      request("split-A1", 2, {
        "A.1": refinement([
          child("A.1", "x", { owns: ["src/A/1/x/**"] }),
          child("A.1", "y", { owns: ["src/A/1/y/**"] }),
        ]),
      }),
    );
    expect(r.status).toBe("applied");
    expect(schedule(root).launch).toEqual(["A.1.x", "A.1.y", "A.2"]);
  });

  test("planned waves that are still valid are kept; only those a split invalidates move (fixes kill §6.2 #17)", async () => {
    const root = makeScope([{ id: "A" }, { id: "B" }]);
    writeScope(
      root,
      "PLAN.md",
      readScope(root, "PLAN.md").replace("| B | src/B/** | - | judgment | 1 |", "| B | src/B/** | - | judgment | 3 |"),
    );
    await applyStructure(root, SCOPE, splitA());
    expect(planRow(root, "B")[4]).toBe("3");
    expect(planRow(root, "A")[4]).toBe("2");
    expect(planRow(root, "A.1")[4]).toBe("1");
  });
});

describe("the independent checker", () => {
  async function splitModel() {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    return loadStructure(root, SCOPE);
  }

  test("flags a removed task, a double assignment, a removed parent→child edge and an all-in-one group", async () => {
    const m = await splitModel();
    const lost = clone(m);
    lost.rows = lost.rows.filter((r) => r.id !== "A.2");
    lost.rows.find((r) => r.id === "A")!.needs = ["A.1"];
    expect(codes(verifyStructure(lost))).toContain("task-conservation");
    const dup = clone(m);
    dup.meta.groups = [
      ["A", "A.1"],
      ["A.1", "A.2"],
    ];
    expect(codes(verifyStructure(dup))).toContain("duplicate-assignment");
    const edge = clone(m);
    edge.rows.find((r) => r.id === "A")!.needs = ["A.1"];
    expect(codes(verifyStructure(edge))).toEqual(expect.arrayContaining(["orphan-child", "lost-edge"]));
    const one = clone(m);
    one.meta.groups = [["A", "A.1", "A.2"]];
    expect(codes(verifyStructure(one))).toContain("lost-parallelism");
  });

  test("the transition checker flags a weakened parent gate title and a changed read set", async () => {
    const m = await splitModel();
    const weaker = clone(m);
    weaker.meta.turn += 1;
    weaker.meta.operations.push({ id: "x", requestHash: "0".repeat(64), turn: weaker.meta.turn });
    const gate = weaker.rows.find((r) => r.id === "A")!.gates[0]!;
    gate.title = "something easier";
    expect(codes(verifyTransition(m, weaker))).toContain("changed-original-gates");
    const reads = clone(weaker);
    reads.rows.find((r) => r.id === "A")!.gates = clone(m.rows.find((r) => r.id === "A")!.gates);
    reads.rows.find((r) => r.id === "A")!.access.reads = ["docs/**"];
    expect(codes(verifyTransition(m, reads))).toContain("changed-original-access");
  });

  test("groups [[A,C],[B]] over the chain A→B→C form a quotient cycle", async () => {
    const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }, { id: "C", needs: ["B"] }]);
    await applyStructure(root, SCOPE, request("init", 1));
    const m = loadStructure(root, SCOPE);
    m.meta.groups = [["A", "C"], ["B"]];
    expect(codes(verifyStructure(m))).toContain("group-cycle");
  });

  test("selection: [A.1, A.2] with 2 slots passes; 1 slot is capacity-exceeded; the parent early is not-ready; a resource clash is parallel-conflict", async () => {
    const root = makeScope([{ id: "A", resourceWrites: ["db:test"] }]);
    await applyStructure(root, SCOPE, splitA());
    const m = loadStructure(root, SCOPE);
    expect(verifyStructure(m, { launch: ["A.1", "A.2"], slots: 2 }).ok).toBe(true);
    expect(codes(verifyStructure(m, { launch: ["A.1", "A.2"], slots: 1 }))).toContain("capacity-exceeded");
    expect(codes(verifyStructure(m, { launch: ["A"], slots: 2 }))).toContain("not-ready");
    const clash = clone(m);
    clash.rows.find((r) => r.id === "A.1")!.access.resourceWrites = ["db:test"];
    clash.rows.find((r) => r.id === "A.2")!.access.resourceReads = ["db:test"];
    expect(codes(verifyStructure(clash, { launch: ["A.1", "A.2"], slots: 2 }))).toContain("parallel-conflict");
    expect(errorOf(() => verifyStructure(m, { launch: "A.1" }))).toBe("invalid selection");
  });

  test("an event demotes root and node ledgers: GATES.md has ROOT and S_STRUCTURE, none met; the node gate is unmet", async () => {
    const root = makeScope(A, {
      gatesMd: "- [x] ROOT: integrated\n  EVIDENCE: reviewed by hand\n",
      extra: { "gates/node-1.md": "- [x] N1: branch integrated\n  EVIDENCE: reviewed by hand\n" },
    });
    await applyStructure(root, SCOPE, splitA());
    const m = loadStructure(root, SCOPE);
    const gates = m.integrations.find((i) => i.file === "GATES.md")!;
    expect(gates.gates.map((g) => g.id)).toEqual(["ROOT", "S_STRUCTURE"]);
    expect(Object.values(gates.gateStates).every((s) => s !== "met")).toBe(true);
    expect(m.integrations.find((i) => i.file === "gates/node-1.md")!.gateStates.N1).toBe("unmet");
  });

  test("an integration parent VERIFIED before its children is premature; an unchecked VERIFIED ledger is stale; final fails; scheduling throws", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    verify(root, "A");
    expect(codes(checkStructure(root, SCOPE))).toContain("premature-verification");
    expect(scheduleError(root)).toContain("structure verification failed");
    const root2 = makeScope(A);
    await applyStructure(root2, SCOPE, splitA());
    setState(root2, "A.1", "VERIFIED");
    expect(codes(checkStructure(root2, SCOPE))).toContain("stale-verification");
    expect(checkStructure(root2, SCOPE, { final: true }).ok).toBe(false);
  });

  test("final: unmet root is unfinished-integration; met passes; an abandoned wave is unfinished-dispatch; a scope lease is remaining-leases", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    for (const id of ["A.1", "A.2", "A"]) verify(root, id);
    expect(checkStructure(root, SCOPE, { final: true }).errors).toEqual([
      { code: "unfinished-integration", id: "GATES.md:ROOT" },
    ]);
    writeScope(
      root,
      "GATES.md",
      readScope(root, "GATES.md").replace(
        "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending",
        "- [x] ROOT: integrated scope reviewed\n  EVIDENCE: reviewed by hand",
      ),
    );
    expect(checkStructure(root, SCOPE, { final: true }).ok).toBe(true);
    writeDispatch(root, { w9: { state: "abandoned", leaves: ["A.1"], started: {} } });
    expect(codes(checkStructure(root, SCOPE, { final: true }))).toContain("unfinished-dispatch");
    fs.rmSync(path.join(dir(root), "dispatch.json"));
    lease(root, "A", ["src/A/**"]);
    expect(codes(checkStructure(root, SCOPE, { final: true }))).toContain("remaining-leases");
  });

  test("removing a child from expected, or the S_STRUCTURE gate, makes scheduling throw (structure verification)", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    const registry = readScope(root, "STRUCTURE.json");
    writeScope(
      root,
      "STRUCTURE.json",
      registry
        .replace('"A.2"\n  ],\n  "requiredEdges"', '\n  ],\n  "requiredEdges"')
        .replace('"A.1",\n    "A.2"\n  ],\n  "requiredEdges"', '"A.1"\n  ],\n  "requiredEdges"'),
    );
    expect(scheduleError(root)).toContain("structure verification failed");
    writeScope(root, "STRUCTURE.json", registry);
    const gates = readScope(root, "GATES.md");
    writeScope(root, "GATES.md", gates.slice(0, gates.indexOf("- [ ] S_STRUCTURE")));
    expect(scheduleError(root)).toContain("missing-structure-gate");
  });

  test("a ledger edited after loading fails assertStable; deleting STRUCTURE.json while S_STRUCTURE exists makes scheduling throw", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    const m = loadStructure(root, SCOPE);
    meet(root, "gates/leaf-A.1.md");
    expect(errorOf(() => assertStable(m))).toBe("inputs changed while checking; retry");
    fs.rmSync(path.join(dir(root), "STRUCTURE.json"));
    expect(scheduleError(root)).toContain("registry missing");
  });

  test("after children are verified and an empty event regroups, A launches continuing a verified child with a null handle", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, splitA());
    verify(root, "A.1");
    verify(root, "A.2");
    await applyStructure(root, SCOPE, request("regroup", 2));
    const advice = schedule(root);
    expect(advice.launch).toEqual(["A"]);
    expect(advice.continuations.length).toBe(1);
    expect(["A.1", "A.2"]).toContain(advice.continuations[0]!.after);
    expect(advice.continuations[0]!.handle).toBeNull();
  });

  test("inputs changed during planning give the retry message", () => {
    const root = makeScope(A);
    const err = errorOf(() =>
      planStructure(root, SCOPE, splitA(), { beforeRecheck: () => meet(root, "gates/leaf-A.md") }),
    );
    expect(err).toBe("inputs changed while checking; retry");
    // Before any event the checker reads the plan as it is (fixes Kill_bezzangyi bug: "STRUCTURE registry is not initialized").
    expect(checkStructure(root, SCOPE).ok).toBe(true);
  });

  test("a scope changed between planning and writing gives the recalculate message and writes nothing", async () => {
    const root = makeScope(A);
    let before = "";
    let message = "";
    try {
      await applyStructure(root, SCOPE, splitA(), {
        beforeRecheck: () => {
          writeScope(root, "GATES.md", readScope(root, "GATES.md") + "\n");
          before = hashTree(dir(root));
        },
      });
    } catch (e) {
      message = (e as StructureError).message;
    }
    expect(message).toBe("scope changed while planning; recalculate");
    expect(hashTree(dir(root))).toBe(before);
  });
});

describe("PLAN rendering", () => {
  test("a fenced example and user notes after the topology block survive two applies; the real row keeps its tier", async () => {
    const prefix = "```\nContract revision: 99.\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n```\n";
    const root = makeScope([{ id: "A", tier: "mechanical" }], { planPrefix: prefix });
    await applyStructure(root, SCOPE, splitA());
    writeScope(root, "PLAN.md", readScope(root, "PLAN.md") + "\nUser notes after the block.\n");
    await applyStructure(root, SCOPE, request("again", 2));
    const plan = readScope(root, "PLAN.md");
    expect(plan.startsWith(prefix)).toBe(true);
    expect(plan).toContain("User notes after the block.");
    expect(plan.match(/kill-bezzangyi:expanded-topology/g)!.length).toBe(2);
    expect(revisionOf(root)).toBe(3);
    expect(planRow(root, "A")[3]).toBe("mechanical");
  });

  test("an S_STRUCTURE gate with another command is reserved", async () => {
    const root = makeScope(A, {
      gatesMd: "- [ ] ROOT: r\n  EVIDENCE: pending\n- [ ] S_STRUCTURE: mine\n  CHECK: true\n  EXPECT: STRUCTURE_OK\n",
    });
    expect(await applyError(root, splitA())).toBe(
      "S_STRUCTURE is reserved; inspect and reconcile its existing command",
    );
  });
});

describe("journal and recovery", () => {
  async function crashed(k: number) {
    const root = makeScope(A);
    let message = "";
    try {
      await applyStructure(root, SCOPE, splitA(), {
        afterWrite: (step) => {
          if (step === k) throw new StructureError(`injected interruption after write ${k}`);
        },
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(`injected interruption after write ${k}`);
    return root;
  }

  test("while a journal is pending, loading, checking and scheduling fail with 'pending'", async () => {
    const root = await crashed(3);
    expect(errorOf(() => loadStructure(root, SCOPE))).toBe("pending structure transaction: recover first");
    expect(errorOf(() => checkStructure(root, SCOPE))).toBe("pending structure transaction: recover first");
    expect(scheduleError(root)).toContain("pending structure transaction");
    expect(await recoverStructure(root, SCOPE)).toEqual({ status: "applied", operation: "split-A" });
    expect(await recoverStructure(root, SCOPE)).toEqual({ status: "nothing-to-recover" });
  });

  test("re-running the same apply after an interruption resumes its journal and ends already-applied", async () => {
    const root = await crashed(4);
    expect(await applyStructure(root, SCOPE, splitA())).toEqual({ status: "already-applied", operation: "split-A" });
    expect(loadStructure(root, SCOPE).rows.length).toBe(3);
  });

  test("a user edit to a target during a pending transaction is preserved; recovery refuses to overwrite it", async () => {
    const root = await crashed(2);
    writeScope(root, "PLAN.md", readScope(root, "PLAN.md") + "\nmy edit\n");
    const mine = readScope(root, "PLAN.md");
    expect(await recoverError(root)).toBe("recovery conflict; refusing to overwrite PLAN.md");
    expect(readScope(root, "PLAN.md")).toBe(mine);
  });

  test("an edit to an observed file outside the write set blocks recovery and is preserved", async () => {
    const root = makeScope([{ id: "A" }, { id: "B" }]);
    try {
      await applyStructure(root, SCOPE, splitA(), {
        afterWrite: (s) => {
          if (s === 2) throw new StructureError("crash");
        },
      });
    } catch {}
    meet(root, "gates/leaf-B.md");
    const mine = readScope(root, "gates/leaf-B.md");
    expect(await recoverError(root)).toBe("untouched input changed during transaction: gates/leaf-B.md");
    expect(readScope(root, "gates/leaf-B.md")).toBe(mine);
  });

  test("a changed dispatch.json, or a newly added ledger, interrupts recovery", async () => {
    const root = await crashed(2);
    writeDispatch(root, {});
    expect(await recoverError(root)).toBe("dispatch changed during transaction; manual reconciliation required");
    fs.rmSync(path.join(dir(root), "dispatch.json"));
    writeScope(root, "gates/node-9.md", "- [ ] N9: x\n");
    expect(await recoverError(root)).toBe("unexpected ledger during transaction");
  });

  test("another operation cannot run while a journal is pending; a lease change blocks recovery until reverted", async () => {
    const root = await crashed(2);
    expect(await applyError(root, request("other", 1))).toBe("another operation needs recovery first");
    const file = lease(root, "A", ["src/A/**"]);
    expect(await recoverError(root)).toBe("leases changed during transaction; manual reconciliation required");
    fs.rmSync(file);
    expect((await recoverStructure(root, SCOPE)).status).toBe("applied");
  });

  test("a tampered journal (changed after-image) fails its digest and nothing is written", async () => {
    const root = await crashed(2);
    const j = JSON.parse(readScope(root, "STRUCTURE.pending.json"));
    j.after["PLAN.md"] = "tampered";
    writeScope(root, "STRUCTURE.pending.json", JSON.stringify(j));
    const before = hashTree(root);
    expect(await recoverError(root)).toBe("recovery journal digest mismatch");
    expect(hashTree(root)).toBe(before);
  });

  test("an extra ledger in gates/ (gates/notes.md) no longer strands a journal (fixes kill §6.2 #19)", async () => {
    const root = makeScope(A, { extra: { "gates/notes.md": "- [ ] NOTE1: notes reviewed\n  EVIDENCE: pending\n" } });
    expect((await applyStructure(root, SCOPE, splitA())).status).toBe("applied");
    expect(fs.existsSync(path.join(dir(root), "STRUCTURE.pending.json"))).toBe(false);
    expect(JSON.parse(readScope(root, "STRUCTURE.json")).requiredIntegrations["gates/notes.md"]).toEqual(["NOTE1"]);
  });

  test("integration ledgers and gates added after initialisation are protected too (fixes kill §6.2 #18)", async () => {
    const root = makeScope(A);
    await applyStructure(root, SCOPE, request("init", 1));
    writeScope(root, "gates/node-7.md", "- [ ] N7: added later\n  EVIDENCE: pending\n");
    writeScope(
      root,
      "gates/leaf-A.md",
      readScope(root, "gates/leaf-A.md") + "- [ ] GX: added later\n  EVIDENCE: pending\n",
    );
    await applyStructure(root, SCOPE, request("second", 2));
    fs.rmSync(path.join(dir(root), "gates/node-7.md"));
    expect(codes(checkStructure(root, SCOPE))).toContain("lost-integration-gate");
    writeScope(root, "gates/node-7.md", "- [ ] N7: added later\n  EVIDENCE: pending\n");
    writeScope(
      root,
      "gates/leaf-A.md",
      readScope(root, "gates/leaf-A.md").replace("- [ ] GX: added later\n  EVIDENCE: pending\n", ""),
    );
    expect(checkStructure(root, SCOPE).errors).toEqual([{ code: "lost-gate", id: "A:GX" }]);
  });
});
