import { describe, expect, test } from "bun:test";
import { reduce, verdictExit, verdictLines } from "../../../src/core/ledger/state.ts";

const s = (qid: string, state: any) => ({ qid, state });

describe("completion reduction", () => {
  test("all met gives ALL MET and exit 0", () => {
    const r = reduce([s("GATES:G1", "met"), s("GATES:G2", "met")]);
    expect(verdictLines(r)).toEqual(["ALL MET (2 met)"]);
    expect(verdictExit(r)).toBe(0);
  });

  test("unmet, stale and no-evidence all count as unmet, listed by qualified id", () => {
    const r = reduce([s("a:G1", "met"), s("a:G2", "unmet"), s("a:G3", "stale-unmet"), s("b:G1", "unmet-no-evidence")]);
    expect(verdictLines(r)).toEqual(["UNMET: 3 (met: 1)", "  a:G2, a:G3, b:G1"]);
    expect(verdictExit(r)).toBe(1);
  });

  test("abandonment is a handoff, printed before UNMET, never ALL MET", () => {
    const r = reduce([s("GATES:G1", "unmet"), s("GATES:G5", "abandoned"), s("GATES:G2", "met")]);
    expect(r.verdict).toBe("handoff");
    expect(verdictLines(r)).toEqual([
      "HANDOFF REQUIRED: 1 abandoned (met: 1, unmet: 1)",
      "  GATES:G5",
      "UNMET: 1 (met: 1, abandoned: 1)",
      "  GATES:G1",
    ]);
    expect(verdictLines(reduce([s("GATES:G5", "abandoned"), s("GATES:G1", "met")]))).toEqual([
      "HANDOFF REQUIRED: 1 abandoned (met: 1)",
      "  GATES:G5",
    ]);
  });

  test("more than 12 ids are cut with a +k more suffix", () => {
    const states = Array.from({ length: 15 }, (_, i) => s(`GATES:G${i + 1}`, "unmet"));
    expect(verdictLines(reduce(states))[1]).toEndWith("GATES:G12, +3 more");
  });

  test("dispatch blocking items and abandoned waves fold into the verdict with a scope suffix", () => {
    const r = reduce([s("leaf-1:G1", "met")], {
      blocking: ["dispatch:w1 open (1/2 started)"],
      abandoned: ["dispatch:w2"],
    });
    expect(verdictLines(r, "", "api")).toEqual([
      "HANDOFF REQUIRED: 1 abandoned (met: 1, unmet: 1) [scope api]",
      "  dispatch:w2",
      "UNMET: 1 (met: 1, abandoned: 1) [scope api]",
      "  dispatch:w1 open (1/2 started)",
    ]);
  });

  test("extras (reverify not run, stale results) count as unmet and are taken off the met count", () => {
    const r = reduce([s("GATES:G1", "met"), s("GATES:G2", "met")], { extras: ["GATES:G1 (reverify not run)"] });
    expect(verdictLines(r, ", reran: 1, previously met reverified: 1")).toEqual([
      "UNMET: 1 (met: 1, reran: 1, previously met reverified: 1)",
      "  GATES:G1 (reverify not run)",
    ]);
  });

  test("status listings can omit the id lines", () => {
    expect(verdictLines(reduce([s("a:G1", "unmet")]), "", null, false)).toEqual(["UNMET: 1 (met: 0)"]);
  });
});
