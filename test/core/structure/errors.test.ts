// The rest of docs/formats.md#errors: preconditions, request shapes, registry shapes the checker
// refuses, and journals whose content (with a valid digest) is not a journal kbz would write.
import { describe, expect, test } from "bun:test";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { buildJournal } from "../../../src/core/structure/journal.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { StructureError } from "../../../src/core/structure/model.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { hashTree } from "../../helpers/kbz.ts";
import { proposal, runningScope } from "./handoff-scenario.ts";
import {
  applyError,
  child,
  errorOf,
  lease,
  makeScope,
  readScope,
  refinement,
  request,
  SCOPE,
  setState,
  writeDispatch,
  writeScope,
} from "./scope.ts";

const split = (op: string, rev: number, parent = "A") =>
  request(op, rev, { [parent]: refinement([child(parent, "1"), child(parent, "2")]) });

async function refused(root: string, req: unknown, message: string): Promise<void> {
  const before = hashTree(root);
  expect(await applyError(root, req)).toBe(message);
  expect(hashTree(root)).toBe(before);
}

describe("event preconditions and request shapes", () => {
  test("a lease of another scope requires review", async () => {
    const root = makeScope([{ id: "A" }]);
    lease(root, "X", ["other/**"], "elsewhere");
    await refused(root, split("s", 1), "external lease requires review");
  });

  test("an open launch wave must be finished first", async () => {
    const root = makeScope([{ id: "A" }, { id: "B" }]);
    writeDispatch(root, { w1: { state: "open", leaves: ["B"] } });
    await refused(root, split("s", 1), "open launch wave: finish or review it first");
  });

  test("an abandoned wave or an ABANDONED row is an unresolved handoff", async () => {
    const root = makeScope([{ id: "A" }, { id: "B" }]);
    writeDispatch(root, { w1: { state: "abandoned", leaves: ["B"] } });
    await refused(root, split("s", 1), "unresolved handoff");
    const root2 = makeScope([{ id: "A" }, { id: "B", state: "ABANDONED" }]);
    await refused(root2, split("s", 1), "unresolved handoff");
  });

  test("issue 20.4: a malformed structure request names the field and what is expected; lists that are not arrays", async () => {
    const root = makeScope([{ id: "A" }]);
    await refused(root, { schema: 2, operation: "x", refinements: {} }, "invalid structure request: schema must be 1");
    await refused(
      root,
      { schema: 1, operation: "../x", refinements: {} },
      "invalid structure request: operation must be a new id (letters, digits, . _ -), e.g. split-2",
    );
    await refused(
      root,
      { schema: 1, operation: "x", refinements: [] },
      "invalid structure request: refinements must be an object of parent leaf id -> refinement ({} when there is none)",
    );
    await refused(root, [], "invalid structure request: expected a JSON object");
    for (const k of ["reports", "acceptReports", "resumeReports", "rejectReports"])
      await refused(root, request("x", 1, {}, { [k]: {} }), `invalid ${k}: expected an array`);
  });

  test("a forged turn counter is refused by the checker before planning (so the turn can never overflow)", async () => {
    const root = makeScope([{ id: "A" }]);
    await applyStructure(root, SCOPE, request("init", 1));
    const reg = JSON.parse(readScope(root, "STRUCTURE.json"));
    expect(loadStructure(root, SCOPE).meta.turn).toBe(1);
    reg.turn = Number.MAX_SAFE_INTEGER;
    reg.operations = new Array(0);
    writeScope(root, "STRUCTURE.json", JSON.stringify(reg));
    // The checker refuses the forged registry before any planning.
    expect(await applyError(root, request("next", 2))).toBe("invalid logical turn/report registry");
  });

  test("a pending report blocks refining its parent; an active group member blocks a split", async () => {
    const root = runningScope([{ id: "F" }]);
    await applyStructure(root, SCOPE, request("rep", 1, {}, { reports: [proposal()] }));
    writeDispatch(root, { w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] } });
    // A's refinement alone (not an acceptance) is refused while its report is pending.
    expect(await applyError(root, request("x", 2, { A: refinement([child("A", "p"), child("A", "q")]) }))).toBe(
      "pending report must be resolved first",
    );
    const root2 = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }]);
    await applyStructure(root2, SCOPE, request("init", 1));
    expect(loadStructure(root2, SCOPE).meta.groups).toEqual([["A", "B"]]);
    setState(root2, "B", "IN-FLIGHT");
    await refused(root2, split("s", 2), "parent group has active ownership");
  });

  test("a report on a finished parent, and a report without refinement candidates, are refused", async () => {
    const root = runningScope();
    await refused(
      root,
      request(
        "x",
        1,
        {},
        { reports: [proposal("r1", "A", { refinement: { retainsParentGates: true, children: [] } })] },
      ),
      "report needs explicit refinement candidates",
    );
    await refused(
      root,
      request("x", 1, {}, { reports: [proposal("r1", "B")] }),
      "report source must be a current sealed execution attempt",
    );
    await refused(root, request("x", 1, {}, { reports: [proposal("r1", "Q")] }), "report requires unfinished parent");
    await refused(root, request("x", 1, {}, { reports: [proposal("../r", "A")] }), "invalid or reused report id");
  });
});

describe("registry shapes the checker refuses", () => {
  async function initialized(): Promise<{ root: string; reg: Record<string, unknown> }> {
    const root = runningScope();
    await applyStructure(root, SCOPE, request("rep", 1, {}, { reports: [proposal()] }));
    return { root, reg: JSON.parse(readScope(root, "STRUCTURE.json")) };
  }
  const forged: [string, (r: Record<string, any>) => void, string][] = [
    ["a wrong schema", (r) => (r.schema = 2), "invalid STRUCTURE schema"],
    ["groups that are not an array", (r) => (r.groups = {}), "invalid STRUCTURE schema"],
    ["a turn that disagrees with the operations", (r) => (r.turn = 5), "invalid logical turn/report registry"],
    ["a duplicate report", (r) => r.reports.push(r.reports[0]), "invalid or duplicate report"],
    ["a report without a contract", (r) => delete r.reports[0].contract, "invalid report checkpoint contract"],
  ];
  for (const [what, forge, message] of forged) {
    test(`${what}: "${message}"`, async () => {
      const { root, reg } = await initialized();
      forge(reg);
      writeScope(root, "STRUCTURE.json", JSON.stringify(reg));
      expect(errorOf(() => checkStructure(root, SCOPE))).toBe(message);
    });
  }
});

describe("journals with a valid digest but impossible content", () => {
  async function crashed(): Promise<{ root: string; j: Record<string, any> }> {
    const root = makeScope([{ id: "A" }]);
    try {
      await applyStructure(root, SCOPE, split("s", 1), {
        afterWrite: (k) => {
          if (k === 2) throw new StructureError("crash");
        },
      });
    } catch {}
    return { root, j: JSON.parse(readScope(root, "STRUCTURE.pending.json")) };
  }
  const broken: [string, (j: Record<string, any>) => void, string][] = [
    ["before and after name different files", (j) => delete j.before["PLAN.md"], "recovery file inventory mismatch"],
    [
      "a target outside the allowed names",
      (j) => {
        j.before["../x.md"] = null;
        j.after["../x.md"] = "x";
      },
      "invalid recovery path/payload",
    ],
    [
      "no STRUCTURE.json target",
      (j) => {
        delete j.before["STRUCTURE.json"];
        delete j.after["STRUCTURE.json"];
      },
      "incomplete recovery targets",
    ],
    [
      "an observed name outside the scope inputs",
      (j) => (j.observed["../../etc/passwd"] = null),
      "invalid observed path/payload",
    ],
    ["a missing field", (j) => delete j.leases, "invalid recovery journal"],
  ];
  for (const [what, breakIt, message] of broken) {
    test(`${what}: "${message}", nothing written`, async () => {
      const { root, j } = await crashed();
      const { digest: _, ...rest } = j;
      breakIt(rest);
      writeScope(
        root,
        "STRUCTURE.pending.json",
        JSON.stringify(message === "invalid recovery journal" ? rest : buildJournal(rest as never)),
      );
      const before = hashTree(root);
      let err = "";
      try {
        await recoverStructure(root, SCOPE);
      } catch (e) {
        err = (e as Error).message;
      }
      expect(err).toBe(message);
      expect(hashTree(root)).toBe(before);
    });
  }
});
