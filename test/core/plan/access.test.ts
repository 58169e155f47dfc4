import { describe, expect, test } from "bun:test";
import { accessEntry, parseAccess } from "../../../src/core/plan/access.ts";
import { ScheduleInputError } from "../../../src/core/plan/errors.ts";
import { naturalCompare } from "../../../src/core/plan/order.ts";
import { parsePlan } from "../../../src/core/plan/table.ts";

const plan = parsePlan(
  "Contract revision: 3.\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n| 1 | a/** | - | judgment | 1 | READY |\n| 2 | b/** | - | judgment | 1 | READY |\n",
  naturalCompare,
);
const entry = (over: Record<string, unknown> = {}) => ({
  complete: true,
  reads: ["c/**"],
  resourceReads: [],
  resourceWrites: [],
  ...over,
});
const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ScheduleInputError) return e.located();
    throw e;
  }
  throw new Error("accepted");
};
const doc = (v: unknown) => JSON.stringify(v);

describe("ACCESS.json", () => {
  test("a matching file yields normalized reads and resources per leaf", () => {
    const leaves = parseAccess(
      doc({ schema: 1, contractRevision: 3, leaves: { "1": entry({ reads: ["./c//x/**"] }), "2": entry() } }),
      plan,
    );
    expect(accessEntry("1", leaves["1"])).toEqual({ reads: ["c/x/**"], resourceReads: [], resourceWrites: [] });
  });

  test("invalid JSON names the file", () => {
    expect(message(() => parseAccess("{", plan))).toStartWith("ACCESS.json: invalid JSON:");
  });

  test("schema or revision that disagrees with PLAN is refused, naming both revisions", () => {
    expect(message(() => parseAccess(doc({ schema: 1, contractRevision: 2, leaves: {} }), plan))).toBe(
      "ACCESS.json: ACCESS schema/revision must match PLAN (PLAN revision 3; ACCESS has schema 1, contractRevision 2)",
    );
    expect(message(() => parseAccess(doc({ schema: 2, contractRevision: 3, leaves: {} }), plan))).toContain(
      "ACCESS schema/revision must match PLAN",
    );
  });

  test("leaf ids must match PLAN exactly, naming what is missing and what is extra", () => {
    expect(
      message(() => parseAccess(doc({ schema: 1, contractRevision: 3, leaves: { "1": entry(), "3": entry() } }), plan)),
    ).toBe("ACCESS.json: ACCESS leaf ids must match PLAN exactly (missing 2; not in PLAN 3)");
  });

  test("entries must attest completeness and declare every array", () => {
    // issue 20.3: the message names the field and what is expected.
    expect(message(() => accessEntry("1", entry({ complete: "yes" })))).toBe(
      'ACCESS.json: declare complete access information for 1 (leaves["1"].complete: expected true, your statement that its reads and resources are all listed)',
    );
    expect(message(() => accessEntry("1", { complete: true, resourceReads: [], resourceWrites: [] }))).toBe(
      "ACCESS.json: 1 reads must be an array of nonblank strings",
    );
    expect(message(() => accessEntry("1", entry({ resourceWrites: [" "] })))).toBe(
      "ACCESS.json: 1 resourceWrites must be an array of nonblank strings",
    );
    expect(message(() => accessEntry("1", entry({ reads: ["x", "x"] })))).toBe(
      "ACCESS.json: 1 reads contains duplicates",
    );
    expect(message(() => accessEntry("1", entry({ reads: ["../up"] })))).toBe(
      "ACCESS.json: 1 reads contains an invalid or placeholder path: ../up",
    );
    expect(message(() => accessEntry("1", entry({ reads: ["<glob>"] })))).toContain("invalid or placeholder path");
  });

  test("resource ids must be canonical lowercase names", () => {
    expect(message(() => accessEntry("1", entry({ resourceReads: ["DB:Test"] })))).toBe(
      'ACCESS.json: resource ids must be canonical lowercase names: 1 declares "DB:Test"',
    );
    expect(accessEntry("1", entry({ resourceReads: ["port:4000", "db:test/x_y.z-1"] })).resourceReads).toEqual([
      "port:4000",
      "db:test/x_y.z-1",
    ]);
  });
});
