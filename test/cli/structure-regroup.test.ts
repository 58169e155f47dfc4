// Issue 30, problem "Regroup cannot be said": the skill and --help documented split and handoff only;
// a guessed empty request merged all six leaves, verified ones included. Now the leaves to merge
// are named: `kbz structure regroup --scope S 2.3 3.1`. On the binary.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { flowRepo, leafGates, type FlowRepo } from "../helpers/flow.ts";
import { hashTree } from "../helpers/kbz.ts";

setDefaultTimeout(180_000);

let repo: FlowRepo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

function scope(leaves: [string, string, string?][]): FlowRepo {
  const r = (repo = flowRepo("kbz-regroup-"));
  expect(r.run(["init", "--scope", "S"]).code).toBe(0);
  for (const [id, dir, needs] of leaves) {
    expect(
      r.run(["plan", "add", "--scope", "S", id, "--owns", `src/${dir}/**`, ...(needs ? ["--needs", needs] : [])]).code,
    ).toBe(0);
    r.write(`.unlazy/S/gates/leaf-${id}.md`, leafGates(id, `src/${dir}/**`, `src/${dir}/done.txt`));
  }
  return r;
}

const groups = (r: FlowRepo) => JSON.parse(r.read(".unlazy/S/STRUCTURE.json")).groups;

describe("regroup cannot be said", () => {
  test("kbz structure regroup --scope S 2.3 3.1 merges exactly the named leaves' groups, with no hand-written request", () => {
    const r = scope([
      ["2.3", "a"],
      ["3.1", "b", "2.3"],
      ["4.1", "c"],
      ["4.2", "d", "4.1"],
    ]);
    const x = r.run(["structure", "regroup", "--scope", "S", "2.3", "3.1"]);
    expect([x.code, x.stdout]).toEqual([
      0,
      "REGROUPED 2.3, 3.1: one group, run one after the other (3 group(s) now)\n",
    ]);
    // Only the named pair: 4.1 -> 4.2 is a chain too, and stays as it was.
    expect(groups(r)).toEqual([["2.3", "3.1"], ["4.1"], ["4.2"]]);
    // A retry is the same operation: nothing changes.
    const before = hashTree(r.dir);
    const again = r.run(["structure", "regroup", "--scope", "S", "2.3", "3.1"]);
    expect(again.code).toBe(0);
    expect(hashTree(r.dir)).toBe(before);
    // Independent work is never merged (it would lose parallelism): refused, nothing written.
    const indep = r.run(["structure", "regroup", "--scope", "S", "3.1", "4.1"]);
    expect([indep.code, indep.stderr]).toEqual([2, expect.stringContaining("independent")]);
    expect(hashTree(r.dir)).toBe(before);
    // The help and the skill name the verb.
    expect(r.run(["structure", "--help"]).stdout).toContain("regroup ID ID…");
    expect(r.run(["structure", "regroup", "--help"]).stdout).toContain("kbz structure regroup --scope S 2.3 3.1");
  });

  test("kbz structure plan --details explains each group in words", () => {
    const r = scope([
      ["2.3", "a"],
      ["3.1", "b", "2.3"],
      ["4.1", "c"],
    ]);
    r.write("recalc.json", JSON.stringify({ schema: 1, operation: "recalc-1", contractRevision: 1, refinements: {} }));
    const p = r.run(["structure", "plan", "--scope", "S", "--request", "recalc.json", "--details"]);
    expect(p.code).toBe(0);
    expect(p.stdout).toContain("  group 2.3, 3.1: one chain of unfinished 2.3, 3.1\n");
    expect(p.stdout).not.toContain("group 3.1, 4.1");
  });

  test("regroup never merges VERIFIED leaves (refused, nothing written, no contract revision bump)", () => {
    const r = scope([
      ["1.1", "a"],
      ["1.2", "b", "1.1"],
    ]);
    const ok = (args: string[]) => expect([args.join(" "), r.run(args).code]).toEqual([args.join(" "), 0]);
    ok(["scope", "claim", "--scope", "S", "--leaf", "leaf-1.1"]);
    ok(["wave", "open", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1.1"]);
    ok(["wave", "start", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1.1", "--handle", "agent-1"]);
    ok(["wave", "seal", "--scope", "S", "--wave", "w1"]);
    r.write("src/a/done.txt", "a\n");
    ok(["advance", "--scope", "S", "--leaf", "1.1", "--approve"]);
    const before = hashTree(r.dir);
    const x = r.run(["structure", "regroup", "--scope", "S", "1.1", "1.2"]);
    expect([x.code, x.stderr]).toEqual([2, expect.stringContaining("never merges VERIFIED work: 1.1 is VERIFIED")]);
    expect(hashTree(r.dir)).toBe(before);
    expect(fs.readFileSync(path.join(r.dir, ".unlazy/S/PLAN.md"), "utf8")).toContain("Contract revision: 1.");
  });
});
