import { describe, expect, test } from "bun:test";
import { ScheduleInputError } from "../../../src/core/plan/errors.ts";
import { codeUnitCompare, naturalCompare } from "../../../src/core/plan/order.ts";
import { parsePlan } from "../../../src/core/plan/table.ts";

const HEAD = "| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n";
const plan = (rows: string, pre = "Contract revision: 3.\n\n") => `# Plan\n${pre}${HEAD}${rows}`;
const parse = (text: string) => parsePlan(text, naturalCompare);
const error = (text: string): string => {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof ScheduleInputError) return e.located();
    throw e;
  }
  throw new Error("parsed without error");
};

describe("parsePlan", () => {
  test("reads the revision and rows, sorts rows by id and keeps PLAN row order for successors", () => {
    const p = parse(
      plan(
        "| 2 | web/b/**, ./web/c/x.ts | 1 | mechanical | 2 | WAITING |\n| 1 | web/a/** | - | judgment | 1 | VERIFIED |\n| 3 | - | 1 | judgment | 2 | READY |\n",
      ),
    );
    expect(p.revision).toBe(3);
    expect(p.rows.map((r) => r.id)).toEqual(["1", "2", "3"]);
    expect(p.byId.get("2")!.owns).toEqual(["web/b/**", "web/c/x.ts"]);
    expect(p.byId.get("3")!.owns).toEqual([]);
    expect(p.successors.get("1")).toEqual(["2", "3"]);
    expect(p.order).toEqual(["1", "2", "3"]);
    expect(p.byId.get("2")!.line).toBe(6);
  });

  test("fenced examples are ignored: a fenced table and revision do not count", () => {
    const text = plan(
      "| 1 | a/** | - | judgment | 1 | READY |\n",
      "Contract revision: 2.\n```md\nContract revision: 9.\n" + HEAD + "| 9 | z | - | judgment | 1 | READY |\n```\n",
    );
    const p = parse(text);
    expect(p.revision).toBe(2);
    expect(p.rows.map((r) => r.id)).toEqual(["1"]);
  });

  test("the revision line must be unique, positive, without leading zero, and a safe integer", () => {
    const row = "| 1 | a/** | - | judgment | 1 | READY |\n";
    expect(error(plan(row, ""))).toBe("PLAN.md: PLAN needs exactly one Contract revision: positive integer");
    expect(error(plan(row, "Contract revision: 1.\nContract revision: 2.\n"))).toBe(
      "PLAN.md:3: PLAN needs exactly one Contract revision: positive integer",
    );
    expect(error(plan(row, "Contract revision: 03.\n"))).toContain("PLAN needs exactly one Contract revision");
    expect(error(plan(row, "Contract revision: 4x\n"))).toContain("PLAN needs exactly one Contract revision");
    expect(error(plan(row, "Contract revision: 99999999999999999999\n"))).toBe("PLAN.md:2: invalid contract revision");
    expect(parse(plan(row, "Contract revision: 7\n")).revision).toBe(7);
  });

  test("table shape errors: no table, two tables, wrong columns, bad separator, wrong cell count, no rows", () => {
    const row = "| 1 | a/** | - | judgment | 1 | READY |\n";
    expect(error("Contract revision: 1.\n")).toBe("PLAN.md: PLAN needs exactly one leaf dispatch table");
    expect(error(plan(row) + "\n" + HEAD + row)).toContain("PLAN needs exactly one leaf dispatch table");
    expect(
      error("Contract revision: 1.\n| Leaf | Owns | Needs | Tier | Wave | State |\n|---|---|---|---|---|---|\n" + row),
    ).toBe("PLAN.md:2: unsupported PLAN dispatch columns");
    expect(error("Contract revision: 1.\n" + HEAD.split("\n")[0] + "\n|---|---|\n" + row)).toBe(
      "PLAN.md:3: invalid table separator",
    );
    expect(error(plan("| 1 | a/** | - | judgment | 1 |\n"))).toBe(
      "PLAN.md:6: invalid PLAN row: expected 6 cells, found 5",
    );
    expect(error(plan(""))).toBe("PLAN.md:4: PLAN has no leaves");
  });

  test("row fields: bare ids, invalid ids, metadata, owns and needs lists", () => {
    const at = (r: string) => error(plan(r + "\n"));
    expect(at("| leaf-1 | a/** | - | judgment | 1 | READY |")).toBe(
      "PLAN.md:6: use bare leaf ids (without leaf-) in PLAN: leaf-1",
    );
    expect(at("| .. | a/** | - | judgment | 1 | READY |")).toContain("invalid PLAN row: leaf id");
    expect(at("| 1 | a/** | - | wizard | 1 | READY |")).toBe("PLAN.md:6: invalid PLAN metadata for 1");
    expect(at("| 1 | a/** | - | judgment | 01 | READY |")).toBe("PLAN.md:6: invalid PLAN metadata for 1");
    expect(at("| 1 | a/** | - | judgment | 1 | DONE |")).toBe("PLAN.md:6: invalid PLAN metadata for 1");
    expect(at("| 1 | a/**, | - | judgment | 1 | READY |")).toBe(
      "PLAN.md:6: 1 Owns must be an array of nonblank strings",
    );
    expect(at("| 1 | a/**, a/** | - | judgment | 1 | READY |")).toBe("PLAN.md:6: 1 Owns contains duplicates");
    expect(at("| 1 | a/**, ./a/** | - | judgment | 1 | READY |")).toBe("PLAN.md:6: 1 Owns contains duplicates");
    expect(at("| 1 | ../a/** | - | judgment | 1 | READY |")).toBe(
      "PLAN.md:6: 1 Owns contains an invalid or placeholder path: ../a/**",
    );
    expect(at("| 1 | src/<leaf>/** | - | judgment | 1 | READY |")).toBe(
      "PLAN.md:6: 1 Owns contains an invalid or placeholder path: src/<leaf>/**",
    );
    expect(at("| 1 | /etc | - | judgment | 1 | READY |")).toContain("1 Owns contains an invalid or placeholder path");
    expect(at("| 1 | a/** | 2, 2 | judgment | 2 | READY |")).toBe("PLAN.md:6: 1 Needs contains duplicates");
  });

  test("graph errors: duplicate id, unknown and self dependency, waves out of order", () => {
    expect(error(plan("| 1 | a | - | judgment | 1 | READY |\n| 1 | b | - | judgment | 1 | READY |\n"))).toBe(
      "PLAN.md:7: duplicate PLAN leaf id 1 (first on line 6)",
    );
    expect(error(plan("| 1 | a | 9 | judgment | 2 | READY |\n"))).toBe("PLAN.md:6: unknown dependency 9 (needed by 1)");
    expect(error(plan("| 1 | a | 1 | judgment | 2 | READY |\n"))).toBe("PLAN.md:6: self dependency 1");
    expect(error(plan("| 1 | a | - | judgment | 2 | READY |\n| 2 | b | 1 | judgment | 2 | WAITING |\n"))).toBe(
      "PLAN.md:7: dependency must be in an earlier Planned wave: 2 (wave 2 needs 1 in wave 2)",
    );
  });

  test("a dependency cycle is reported with the tasks on it", () => {
    const text = plan(
      "| 1 | a | - | judgment | 1 | READY |\n| 2 | b | 1, 4 | judgment | 2 | WAITING |\n| 3 | c | 2 | judgment | 3 | WAITING |\n| 4 | d | 3 | judgment | 4 | WAITING |\n",
    );
    expect(error(text)).toBe("PLAN.md:7: dependency cycle in PLAN: 2 needs 4 needs 3 needs 2");
  });

  test("the Kahn order starts with sorted roots, then follows PLAN row order", () => {
    const text = plan(
      "| 10 | a | - | judgment | 1 | READY |\n| 2 | b | - | judgment | 1 | READY |\n| 5 | c | 10 | judgment | 2 | WAITING |\n| 4 | d | 2 | judgment | 2 | WAITING |\n",
    );
    expect(parsePlan(text, naturalCompare).order).toEqual(["2", "10", "4", "5"]);
    expect(parsePlan(text, codeUnitCompare).order).toEqual(["10", "2", "5", "4"]);
    expect(parsePlan(text, codeUnitCompare).rows.map((r) => r.id)).toEqual(["10", "2", "4", "5"]);
  });

  test("all 1024 forward DAGs over five nodes parse and their Kahn order respects every dependency", () => {
    const pairs: [number, number][] = [];
    for (let j = 1; j <= 5; j++) for (let i = 1; i < j; i++) pairs.push([i, j]);
    for (let mask = 0; mask < 1 << pairs.length; mask++) {
      const needs = new Map<number, number[]>([1, 2, 3, 4, 5].map((n) => [n, []]));
      pairs.forEach(([i, j], k) => {
        if (mask & (1 << k)) needs.get(j)!.push(i);
      });
      const rows = [1, 2, 3, 4, 5]
        .map((n) => `| ${n} | s/${n} | ${needs.get(n)!.join(", ") || "-"} | judgment | ${n} | WAITING |`)
        .join("\n");
      const p = parse(plan(rows + "\n"));
      const pos = new Map(p.order.map((id, k) => [id, k]));
      expect(p.order.length).toBe(5);
      for (const [j, ns] of needs) for (const i of ns) expect(pos.get(String(i))!).toBeLessThan(pos.get(String(j))!);
    }
  });
});

describe("id order", () => {
  test("natural order compares digit runs as numbers and stays total", () => {
    const ids = ["10", "2", "1.10", "1.2", "a", "A", "b2", "b10", "02", "2"];
    expect([...ids].sort(naturalCompare)).toEqual(["1.2", "1.10", "02", "2", "2", "10", "A", "a", "b2", "b10"]);
    expect([...ids].sort(codeUnitCompare)).toEqual(["02", "1.10", "1.2", "10", "2", "2", "A", "a", "b10", "b2"]);
    expect(naturalCompare("02", "2")).toBe(-1);
    expect(naturalCompare("2", "2")).toBe(0);
  });
});
