// docs/formats.md#scheduling handoff behaviours: a worker's split report, stop and return, lease release, review,
// and accept / resume / reject in a later logical turn.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { readScheduleFacts } from "../../../src/ops/facts.ts";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { clone, StructureError } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { verifyTransition } from "../../../src/core/structure/transition.ts";
import { verifyStructure } from "../../../src/core/structure/verify.ts";
import { hashTree } from "../../helpers/kbz.ts";
import { ACCEPT, acceptanceScenario, ARTIFACT, proposal, returnA, runningScope } from "./handoff-scenario.ts";
import {
  applyError,
  child,
  dir,
  lease,
  readScope,
  refinement,
  request,
  SCOPE,
  setState,
  verify,
  writeDispatch,
  writeScope,
} from "./scope.ts";

const schedule = (root: string, slots = 8) =>
  adviseNext(readScheduleFacts({ root, scope: SCOPE, slots, order: "original" }), { details: false });
const codes = (v: { errors: { code: string }[] }) => v.errors.map((e) => e.code);
const report = (op = "report-A", rev = 1, p = proposal()) => request(op, rev, {}, { reports: [p] });
const accept = (op = "accept-A", rev = 2, entry: Record<string, unknown> = ACCEPT) =>
  request(op, rev, {}, { acceptReports: [entry] });

async function expectNoWrites(root: string, req: unknown, message: string | RegExp): Promise<void> {
  const before = hashTree(root);
  const err = await applyError(root, req);
  if (typeof message === "string") expect(err).toBe(message);
  else expect(err ?? "").toMatch(message);
  expect(hashTree(root)).toBe(before);
}

describe("reporting", () => {
  test("a report is a pending obligation at turn 1: the parent stays active and IN-FLIGHT, no rows, final flags it, retry is inert", async () => {
    const root = runningScope();
    const r = await applyStructure(root, SCOPE, report());
    expect(r.status === "applied" && r.turn).toBe(1);
    const m = loadStructure(root, SCOPE);
    expect(m.meta.reports.map((x) => [x.id, x.state, x.reportedTurn])).toEqual([["r1", "pending", 1]]);
    expect(m.active).toEqual(["A"]);
    expect(m.rows.find((x) => x.id === "A")!.state).toBe("IN-FLIGHT");
    expect(m.rows.length).toBe(3);
    expect(codes(checkStructure(root, SCOPE, { final: true }))).toContain("pending-refinement-report");
    const after = hashTree(root);
    expect((await applyStructure(root, SCOPE, report())).status).toBe("already-applied");
    expect(hashTree(root)).toBe(after);
  });

  test("a report and its acceptance in one request are refused (later turn), with no writes", async () => {
    const root = runningScope();
    returnA(root);
    await expectNoWrites(
      root,
      request("both", 1, {}, { reports: [proposal()], acceptReports: [ACCEPT] }),
      "resolve one existing pending report in a later turn",
    );
  });

  test("checkpoint coverage must be exact: empty remaining, a gate in both, an unknown gate, an unmet gate claimed done", async () => {
    const root = runningScope();
    const cp = (completed: string[], remaining: string[]) =>
      proposal("r1", "A", { checkpoint: { summary: "s", completed, remaining, artifacts: [] } });
    await expectNoWrites(root, report("x", 1, cp(["G0", "G1"], [])), "invalid checkpoint");
    await expectNoWrites(root, report("x", 1, cp(["G0"], ["G0", "G1"])), "checkpoint must partition every parent Gate");
    await expectNoWrites(root, report("x", 1, cp(["G0"], ["G1", "G9"])), "checkpoint must partition every parent Gate");
    await expectNoWrites(
      root,
      report("x", 1, cp(["G1"], ["G0"])),
      "completed checkpoint Gates need current met evidence",
    );
    const art = (a: unknown[]) =>
      proposal("r1", "A", { checkpoint: { summary: "s", completed: ["G0"], remaining: ["G1"], artifacts: a } });
    await expectNoWrites(
      root,
      report("x", 1, art([{ path: "lib/x.ts", sha256: "0".repeat(64) }])),
      "checkpoint artifact outside parent ownership",
    );
    await expectNoWrites(
      root,
      report("x", 1, art([{ path: "src/A/*.ts", sha256: "0".repeat(64) }])),
      "invalid checkpoint artifact path/hash",
    );
    await expectNoWrites(
      root,
      report("x", 1, art([{ path: ARTIFACT, sha256: "0".repeat(64) }])),
      `checkpoint artifact changed: ${ARTIFACT}`,
    );
  });

  test("a source handle that does not match is refused; a reused report id is refused", async () => {
    const root = runningScope();
    await expectNoWrites(
      root,
      report("x", 1, proposal("r1", "A", { source: { wave: "w1", handle: "other" } })),
      "report source must be a current sealed execution attempt",
    );
    await applyStructure(root, SCOPE, report());
    await expectNoWrites(root, report("again", 2, proposal("r1", "B")), "invalid or reused report id");
    await expectNoWrites(root, report("again", 2, proposal("r2", "A")), "parent already has a pending report");
  });

  test("while A's report is pending the unrelated chain B→C advances and handoffs.pending lists the report", async () => {
    const root = runningScope();
    await applyStructure(root, SCOPE, report());
    expect(schedule(root).launch).toEqual(["B"]);
    verify(root, "B");
    const advice = schedule(root);
    expect(advice.launch).toEqual(["C"]);
    expect(advice.handoffs).toEqual({
      turn: 1,
      pending: [{ id: "r1", parent: "A", returned: false, leaseReleased: true }],
    });
  });
});

describe("acceptance", () => {
  test("acceptance requires, separately, a return, a released lease and each stop/review field; with all it applies at turn 2", async () => {
    const root = runningScope();
    await applyStructure(root, SCOPE, report());
    await expectNoWrites(root, accept(), "reported execution must have returned before handoff");
    returnA(root);
    const file = lease(root, "A", ["src/A/**"]);
    await expectNoWrites(root, accept(), "parent lease must be released before handoff");
    fs.rmSync(file);
    for (const missing of ["stopped", "reviewed", "stopEvidence", "reviewEvidence"]) {
      const entry: Record<string, unknown> = { ...ACCEPT };
      delete entry[missing];
      await expectNoWrites(
        root,
        accept(`acc-${missing}`, 2, entry),
        "explicit stop and parent review evidence required",
      );
    }
    const r = await applyStructure(root, SCOPE, accept());
    expect(r.status === "applied" && r.turn).toBe(2);
  });

  test("accepting leaves dispatch.json byte-identical, records the original ledger, retires only A's attempt and schedules [A.x, A.y]", async () => {
    const root = runningScope([{ id: "D", state: "IN-FLIGHT" }]);
    await applyStructure(root, SCOPE, report());
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["D"], started: { D: "host-w2-D" } },
    });
    const dispatch = readScope(root, "dispatch.json");
    await applyStructure(root, SCOPE, accept());
    expect(readScope(root, "dispatch.json")).toBe(dispatch);
    const m = loadStructure(root, SCOPE);
    const r1 = m.meta.reports[0]!;
    expect(r1.state).toBe("applied");
    expect(r1.ledger).toContain("- [x] G0");
    expect(r1.checkpoint.artifacts[0]!.path).toBe(ARTIFACT);
    expect(m.active).toEqual(["D"]);
    expect(Object.values(m.rows.find((x) => x.id === "A")!.gateStates)).toEqual(["unmet", "unmet"]);
    expect(schedule(root).launch).toEqual(["A.x", "A.y", "B"]);
  });

  test("concurrent identical acceptances: one applied, one already-applied; the same id with other evidence is reused", async () => {
    const { root } = await acceptanceScenario();
    const both = await Promise.all([applyStructure(root, SCOPE, accept()), applyStructure(root, SCOPE, accept())]);
    expect(both.map((b) => b.status).sort()).toEqual(["already-applied", "applied"]);
    const after = hashTree(root);
    expect((await applyStructure(root, SCOPE, accept())).status).toBe("already-applied");
    expect(hashTree(root)).toBe(after);
    await expectNoWrites(
      root,
      accept("accept-A", 2, { ...ACCEPT, reviewEvidence: "something else" }),
      "operation id reused with different request",
    );
  });

  test("after the children are verified the parent continues its old worker; a new wave makes it active, then awaiting, then done", async () => {
    const { root } = await acceptanceScenario();
    await applyStructure(root, SCOPE, accept());
    verify(root, "A.x");
    verify(root, "A.y");
    let advice = schedule(root);
    expect(advice.launch).toContain("A");
    expect(advice.continuations).toContainEqual({ leaf: "A", after: "A", handle: "host-w1-A" });
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["A"], started: { A: "host-w1-A" } },
    });
    advice = schedule(root);
    expect(advice.active).toEqual(["A"]);
    expect(advice.launch).not.toContain("A");
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
    });
    expect(schedule(root).awaitVerification).toEqual(["A"]);
    verify(root, "A");
    expect(schedule(root).active).toEqual([]);
  });

  test("a second live attempt of the parent blocks acceptance; changed artifacts, lost met evidence and a changed contract too", async () => {
    const { root } = await acceptanceScenario();
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["A"], started: { A: "host-w2-A" } },
    });
    await expectNoWrites(root, accept(), "another execution attempt needs reconciliation");
    returnA(root);
    fs.writeFileSync(path.join(root, ARTIFACT), "changed\n");
    await expectNoWrites(root, accept(), `checkpoint artifact changed: ${ARTIFACT}`);
    const { root: r2 } = await acceptanceScenario();
    writeScope(r2, "gates/leaf-A.md", readScope(r2, "gates/leaf-A.md").replace("- [x] G0", "- [ ] G0"));
    await expectNoWrites(r2, accept(), "completed checkpoint Gates need current met evidence");
    const { root: r3 } = await acceptanceScenario();
    const access = JSON.parse(readScope(r3, "ACCESS.json"));
    access.leaves.A.reads = ["docs/**"];
    writeScope(r3, "ACCESS.json", JSON.stringify(access));
    await expectNoWrites(r3, accept(), "parent contract changed since report");
  });

  test("a sequential proposal stays pending: acceptance fails (no independent pair) and nothing changes", async () => {
    const root = runningScope();
    const seq = proposal("r1", "A", { refinement: refinement([child("A", "x"), child("A", "y", { needs: ["A.x"] })]) });
    await applyStructure(root, SCOPE, report("report-A", 1, seq));
    returnA(root);
    await expectNoWrites(root, accept(), "no independent child pair; keep sequential work together");
    expect(loadStructure(root, SCOPE).meta.reports[0]!.state).toBe("pending");
  });

  test("a running child can itself report and, after return and acceptance, split further; its sibling stays active", async () => {
    const { root } = await acceptanceScenario();
    await applyStructure(root, SCOPE, accept());
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["A.x", "A.y"], started: { "A.x": "host-w1-A.x", "A.y": "host-w2-A.y" } },
    });
    setState(root, "A.x", "IN-FLIGHT");
    setState(root, "A.y", "IN-FLIGHT");
    const sub = {
      id: "r2",
      parent: "A.x",
      source: { wave: "w2", handle: "host-w1-A.x" },
      checkpoint: { summary: "A.x splits", completed: [], remaining: ["C1"], artifacts: [] },
      refinement: refinement([
        child("A.x", "x", { owns: ["src/A/x/x/**"] }),
        child("A.x", "y", { owns: ["src/A/x/y/**"] }),
      ]),
    };
    await applyStructure(root, SCOPE, request("report-Ax", 3, {}, { reports: [sub] }));
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: {
        state: "sealed",
        leaves: ["A.x", "A.y"],
        started: { "A.x": "host-w1-A.x", "A.y": "host-w2-A.y" },
        returned: ["A.x"],
      },
    });
    await applyStructure(root, SCOPE, request("accept-Ax", 4, {}, { acceptReports: [{ ...ACCEPT, id: "r2" }] }));
    const advice = schedule(root);
    expect(advice.launch).toEqual(expect.arrayContaining(["A.x.x", "A.x.y"]));
    expect(advice.active).toEqual(["A.y"]);
    expect(checkStructure(root, SCOPE).ok).toBe(true);
  });

  test("an integration parent hands off a second disjoint set: its split becomes [A.w, A.x, A.y, A.z] and only A.w, A.z launch", async () => {
    const { root } = await acceptanceScenario();
    await applyStructure(root, SCOPE, accept());
    verify(root, "A.x");
    verify(root, "A.y");
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["A"], started: { A: "host-w2-A" } },
    });
    setState(root, "A", "IN-FLIGHT");
    const second = {
      ...proposal("r3", "A"),
      source: { wave: "w2", handle: "host-w2-A" },
      checkpoint: { summary: "more", completed: [], remaining: ["G0", "G1"], artifacts: [] },
      refinement: refinement([child("A", "w"), child("A", "z")]),
    };
    await applyStructure(root, SCOPE, request("report-A2", 3, {}, { reports: [second] }));
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "complete", leaves: ["A"], started: { A: "host-w2-A" }, returned: ["A"] },
    });
    await applyStructure(root, SCOPE, request("accept-A2", 4, {}, { acceptReports: [{ ...ACCEPT, id: "r3" }] }));
    const m = loadStructure(root, SCOPE);
    expect(m.meta.splits.find((s) => s.parent === "A")!.children).toEqual(["A.w", "A.x", "A.y", "A.z"]);
    expect(schedule(root).launch.filter((id) => id.startsWith("A"))).toEqual(["A.w", "A.z"]);
  });

  test("two reports on different parents are recorded together and accepted together; four children launch", async () => {
    const root = runningScope([{ id: "E", state: "IN-FLIGHT", gates: ["G0", "G1"] }]);
    writeScope(
      root,
      "gates/leaf-E.md",
      "OWNS: src/E/**\n- [x] G0: outcome G0\n  EVIDENCE: reviewed by hand\n- [ ] G1: outcome G1\n  EVIDENCE: pending\n",
    );
    writeDispatch(root, { w1: { state: "sealed", leaves: ["A", "E"], started: { A: "host-w1-A", E: "host-w1-E" } } });
    await applyStructure(root, SCOPE, request("two", 1, {}, { reports: [proposal(), proposal("r2", "E")] }));
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A", "E"], started: { A: "host-w1-A", E: "host-w1-E" }, returned: ["A", "E"] },
    });
    await applyStructure(root, SCOPE, request("acc-two", 2, {}, { acceptReports: [ACCEPT, { ...ACCEPT, id: "r2" }] }));
    expect(schedule(root).launch).toEqual(["A.x", "A.y", "B", "E.x", "E.y"]);
    expect(loadStructure(root, SCOPE).meta.reports.filter((r) => r.state === "applied").length).toBe(2);
  });

  test("a retired source cannot report again; resolving twice in one request and overriding the refinement are refused", async () => {
    const { root } = await acceptanceScenario();
    await expectNoWrites(
      root,
      request("twice", 2, {}, { acceptReports: [ACCEPT], rejectReports: [{ id: "r1", reason: "no" }] }),
      "resolve one existing pending report in a later turn",
    );
    await expectNoWrites(
      root,
      request("override", 2, { A: refinement([child("A", "p"), child("A", "q")]) }, { acceptReports: [ACCEPT] }),
      "reported refinement cannot be overridden",
    );
    await applyStructure(root, SCOPE, accept());
    await expectNoWrites(
      root,
      report("again", 3, proposal("r9")),
      /report requires unfinished parent|current sealed execution attempt/,
    );
  });
});

describe("resume and reject", () => {
  test("rejection keeps the worker active and is idempotent; accepting it then fails; a new report on the source resumed makes A launchable", async () => {
    const root = runningScope();
    await applyStructure(root, SCOPE, report());
    const reject = request(
      "reject-A",
      2,
      {},
      { rejectReports: [{ id: "r1", reason: "parent will finish sequentially" }] },
    );
    await applyStructure(root, SCOPE, reject);
    expect(loadStructure(root, SCOPE).active).toEqual(["A"]);
    const after = hashTree(root);
    expect((await applyStructure(root, SCOPE, reject)).status).toBe("already-applied");
    expect(hashTree(root)).toBe(after);
    returnA(root);
    await expectNoWrites(root, accept("acc", 3), "resolve one existing pending report in a later turn");
    await applyStructure(root, SCOPE, report("report-again", 3, proposal("r2")));
    await applyStructure(root, SCOPE, request("resume", 4, {}, { resumeReports: [{ ...ACCEPT, id: "r2" }] }));
    expect(schedule(root).launch).toContain("A");
    expect(await applyError(root, request("rej-blank", 5, {}, { rejectReports: [{ id: "r2", reason: " " }] }))).toBe(
      "resolve one existing pending report in a later turn",
    );
  });

  test("a sequential proposal resolved with resume: no children, A launchable with its old handle, idempotent; a new attempt is active", async () => {
    const root = runningScope();
    const seq = proposal("r1", "A", { refinement: refinement([child("A", "x"), child("A", "y", { needs: ["A.x"] })]) });
    await applyStructure(root, SCOPE, report("report-A", 1, seq));
    returnA(root);
    const resume = request("resume-A", 2, {}, { resumeReports: [ACCEPT] });
    await applyStructure(root, SCOPE, resume);
    const m = loadStructure(root, SCOPE);
    expect(m.meta.reports[0]!.state).toBe("resumed");
    expect(m.rows.length).toBe(3);
    const advice = schedule(root);
    expect(advice.launch).toContain("A");
    expect(advice.continuations).toContainEqual({ leaf: "A", after: "A", handle: "host-w1-A" });
    expect((await applyStructure(root, SCOPE, resume)).status).toBe("already-applied");
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "sealed", leaves: ["A"], started: { A: "host-w2-A" } },
    });
    expect(schedule(root).active).toEqual(["A"]);
  });

  test("resume also requires the return and the lease release; an interrupted resume is recovered by retrying at turn 2", async () => {
    const root = runningScope();
    await applyStructure(root, SCOPE, report());
    const resume = request("resume-A", 2, {}, { resumeReports: [ACCEPT] });
    await expectNoWrites(root, resume, "reported execution must have returned before handoff");
    returnA(root);
    const file = lease(root, "A", ["src/A/**"]);
    await expectNoWrites(root, resume, "parent lease must be released before handoff");
    fs.rmSync(file);
    try {
      await applyStructure(root, SCOPE, resume, {
        afterWrite: (k) => {
          if (k === 3) throw new StructureError("crash");
        },
      });
    } catch {}
    expect((await applyStructure(root, SCOPE, resume)).status).toBe("already-applied");
    expect(loadStructure(root, SCOPE).meta.turn).toBe(2);
    expect(schedule(root).launch).toContain("A");
  });

  test("a report interrupted after its first write recovers at its original turn 1 with one report and 3 rows", async () => {
    const root = runningScope();
    try {
      await applyStructure(root, SCOPE, report(), {
        afterWrite: (k) => {
          if (k === 2) throw new StructureError("crash");
        },
      });
    } catch {}
    await recoverStructure(root, SCOPE);
    const m = loadStructure(root, SCOPE);
    expect([m.meta.turn, m.meta.reports.length, m.rows.length]).toEqual([1, 1, 3]);
  });

  test("an artifact changed during a pending acceptance transaction blocks roll-forward and is preserved", async () => {
    const { root } = await acceptanceScenario();
    try {
      await applyStructure(root, SCOPE, accept(), {
        afterWrite: (k) => {
          if (k === 2) throw new StructureError("crash");
        },
      });
    } catch {}
    fs.writeFileSync(path.join(root, ARTIFACT), "edited by hand\n");
    let message = "";
    try {
      await recoverStructure(root, SCOPE);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(`checkpoint artifact changed: ${ARTIFACT}`);
    expect(fs.readFileSync(path.join(root, ARTIFACT), "utf8")).toBe("edited by hand\n");
  });
});

describe("the checker on handoff history", () => {
  async function accepted() {
    const { root } = await acceptanceScenario();
    await applyStructure(root, SCOPE, accept());
    return { root, m: loadStructure(root, SCOPE) };
  }

  test("forged turns, a forged return time and a dropped parent→child edge are detected", async () => {
    const { m } = await accepted();
    const turn = clone(m);
    turn.meta.reports[0]!.resolvedTurn = 1;
    expect(codes(verifyStructure(turn))).toContain("resolution-turn-mismatch");
    const op = clone(m);
    op.meta.operations[1]!.turn = 5;
    expect(codes(verifyStructure(op))).toContain("invalid-operation-turn");
    const ret = clone(m);
    ret.meta.reports[0]!.returnedAt = "2030-01-01T00:00:00.000Z";
    expect(codes(verifyStructure(ret))).toContain("unconfirmed-handoff");
    const edge = clone(m);
    edge.rows.find((r) => r.id === "A")!.needs = ["A.x"];
    expect(codes(verifyStructure(edge))).toContain("lost-reported-child");
  });

  test("the transition checker detects deleted report history and a retirement while the parent was leased", async () => {
    const { root } = await acceptanceScenario();
    const before = loadStructure(root, SCOPE);
    const gone = clone(before);
    gone.meta.reports = [];
    gone.meta.turn += 1;
    gone.meta.operations.push({ id: "z", requestHash: "0".repeat(64), turn: gone.meta.turn });
    expect(codes(verifyTransition(before, gone))).toContain("changed-handoff-history");
    await applyStructure(root, SCOPE, accept());
    const after = loadStructure(root, SCOPE);
    const leased = clone(before);
    leased.leases = [{ scope: SCOPE, leaf: "leaf-A", globs: ["src/A/**"], invalid: false }];
    expect(codes(verifyTransition(leased, after))).toContain("unsafe-handoff-boundary");
  });

  test("an omitted active worker and a VERIFIED parent with a pending report are detected", async () => {
    const root = runningScope();
    await applyStructure(root, SCOPE, report());
    const m = loadStructure(root, SCOPE);
    const omitted = clone(m);
    omitted.active = [];
    expect(codes(verifyStructure(omitted))).toContain("active-accounting-mismatch");
    const ver = clone(m);
    ver.rows.find((r) => r.id === "A")!.state = "VERIFIED";
    expect(codes(verifyStructure(ver))).toContain("pending-parent-verified");
  });

  test("final success needs the children, the re-run parent, the unrelated branch and the root done and no pending report", async () => {
    const { root } = await accepted();
    for (const id of ["A.x", "A.y", "B", "C"]) verify(root, id);
    writeDispatch(root, {
      w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
      w2: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] },
    });
    expect(checkStructure(root, SCOPE, { final: true }).ok).toBe(false);
    verify(root, "A");
    writeScope(
      root,
      "GATES.md",
      readScope(root, "GATES.md").replace(
        "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending",
        "- [x] ROOT: integrated scope reviewed\n  EVIDENCE: reviewed by hand",
      ),
    );
    expect(checkStructure(root, SCOPE, { final: true })).toEqual({ ok: true, residual: 0, errors: [] });
    expect(fs.existsSync(path.join(dir(root), "STRUCTURE.pending.json"))).toBe(false);
  });
});
