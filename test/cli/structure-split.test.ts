// Issue 30, problem "Regroup cannot be said" (and `split` likewise): a split needed a hand-written
// request file. Now the leaf and its parts are named: `kbz structure split --scope S 5 --into
// 'src/5/a/**' 'src/5/b/**'` writes and applies the request itself. On the binary.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { flowRepo, leafGates, type FlowRepo } from "../helpers/flow.ts";
import { hashTree } from "../helpers/kbz.ts";

setDefaultTimeout(180_000);

const repos: FlowRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** Leaf 1 (src/1/**), then leaf 5 (src/5/**, test/leaf-5/**) needing it. */
function scope(): FlowRepo {
  const r = flowRepo("kbz-split-");
  repos.push(r);
  expect(r.run(["init", "--scope", "S"]).code).toBe(0);
  expect(r.run(["plan", "add", "--scope", "S", "1", "--owns", "src/1/**"]).code).toBe(0);
  r.write(".unlazy/S/gates/leaf-1.md", leafGates("1", "src/1/**", "src/1/done.txt"));
  expect(
    r.run([
      "plan",
      "add",
      "--scope",
      "S",
      "5",
      "--owns",
      "src/5/**,test/leaf-5/**",
      "--needs",
      "1",
      "--tier",
      "mechanical",
    ]).code,
  ).toBe(0);
  return r;
}

const split = (r: FlowRepo, ...args: string[]) => r.run(["structure", "split", "--scope", "S", ...args]);
const rows = (r: FlowRepo) =>
  r
    .read(".unlazy/S/PLAN.md")
    .split("\n")
    .filter((l) => /^\| [0-9.]+ \|/.test(l))
    .map((l) =>
      l
        .split("|")
        .slice(1, 7)
        .map((c) => c.trim()),
    );

function refused(r: FlowRepo, args: string[], message: string): void {
  const before = hashTree(r.dir);
  const x = split(r, ...args);
  expect([x.code, x.stderr]).toEqual([2, expect.stringContaining(message)]);
  expect(x.stdout).toBe("");
  expect(hashTree(r.dir)).toBe(before);
}

describe("split cannot be said", () => {
  test("kbz structure split --scope S 5 --into GLOBS GLOBS splits the named leaf with no hand-written request; a retry says it is already applied", () => {
    const r = scope();
    const x = split(r, "5", "--into", "src/5/a/**,test/leaf-5/a/**", "src/5/b/**");
    expect(x.code).toBe(0);
    expect(x.stdout.split("\n")[0]).toBe(
      "SPLIT 5 into 5.1 (src/5/a/**, test/leaf-5/a/**), 5.2 (src/5/b/**); 5 waits to integrate them",
    );
    // Short: the new ledgers to fill, the person's review, the stale receipts.
    expect(x.stdout).toContain(".unlazy/S/gates/leaf-5.1.md");
    expect(x.stdout).toContain("kbz approve --scope S");
    expect(Buffer.byteLength(x.stdout)).toBeLessThanOrEqual(400);
    // The plan: the children inherit the parent's needs and tier, the parent integrates them.
    expect(rows(r)).toEqual([
      ["1", "src/1/**", "-", "judgment", "1", "READY"],
      ["5", "src/5/**, test/leaf-5/**", "1, 5.1, 5.2", "mechanical", "3", "WAITING"],
      ["5.1", "src/5/a/**, test/leaf-5/a/**", "1", "mechanical", "2", "WAITING"],
      ["5.2", "src/5/b/**", "1", "mechanical", "2", "WAITING"],
    ]);
    expect(r.read(".unlazy/S/gates/leaf-5.1.md")).toStartWith(
      "# Gates: leaf 5.1\nOWNS: src/5/a/**, test/leaf-5/a/**\n",
    );
    expect(r.read(".unlazy/S/gates/leaf-5.2.md")).toContain("- [ ] G1: ");
    const registry = JSON.parse(r.read(".unlazy/S/STRUCTURE.json"));
    expect(registry.splits.map((s: { parent: string; children: string[] }) => [s.parent, s.children])).toEqual([
      ["5", ["5.1", "5.2"]],
    ]);
    expect(r.read(".unlazy/S/PLAN.md")).toContain("Contract revision: 2.");
    // A retry is the same split: nothing changes, and it says so.
    const before = hashTree(r.dir);
    const again = split(r, "5", "--into", "src/5/a/**,test/leaf-5/a/**", "src/5/b/**");
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("already applied (nothing changed)")]);
    expect(hashTree(r.dir)).toBe(before);
    // Other parts for a split leaf: refused, nothing written.
    refused(r, ["5", "--into", "src/5/x/**", "src/5/y/**"], "5 is already split into 5.1, 5.2");
    // The help names the verb.
    expect(r.run(["structure", "--help"]).stdout).toContain("split LEAF --into G G…");
    expect(r.run(["structure", "split", "--help"]).stdout).toContain("kbz structure split");
  });

  test("split refuses a VERIFIED or busy leaf, parts outside its OWNS, overlapping parts and a single part: exit 2, no file changed", () => {
    const r = scope();
    // Usage: one part, no parts, no leaf.
    refused(r, ["5", "--into", "src/5/a/**"], "at least two parts");
    refused(r, ["5"], "at least two parts");
    refused(r, ["--into", "src/5/a/**", "src/5/b/**"], "one leaf id");
    refused(r, ["7", "--into", "src/7/a/**", "src/7/b/**"], "unknown task 7");
    // Parts must lie inside the leaf's OWNS and be independent of each other.
    refused(r, ["5", "--into", "src/5/a/**", "src/6/**"], "src/6/** is not inside 5's OWNS");
    refused(r, ["5", "--into", "src/5/**", "src/5/b/**"], "parts 1 and 2 overlap");
    // A busy leaf: launched, IN-FLIGHT, leased.
    expect(r.run(["next", "--scope", "S", "--launch"]).stdout).toStartWith("LAUNCHED w1: 1;");
    refused(r, ["1", "--into", "src/1/a/**", "src/1/b/**"], "1 is IN-FLIGHT");
    // A VERIFIED leaf: its verification boundary stays its own.
    r.write("src/1/done.txt", "1\n");
    expect(r.run(["advance", "--scope", "S", "--leaf", "1", "--approve"]).code).toBe(0);
    refused(r, ["1", "--into", "src/1/a/**", "src/1/b/**"], "never splits VERIFIED work: 1 is VERIFIED");
    expect(r.read(".unlazy/S/PLAN.md")).toContain("Contract revision: 1.");
  });

  test("the request it applies is the documented format: --json shows it, and kbz structure apply of that file on a twin scope writes the same plan", () => {
    const a = scope();
    const x = split(a, "5", "--into", "src/5/a/**", "src/5/b/**", "--json");
    expect(x.code).toBe(0);
    const env = JSON.parse(x.stdout);
    expect(env.status).toBe("applied");
    expect(env.children).toEqual([
      { id: "5.1", owns: ["src/5/a/**"], ledger: ".unlazy/S/gates/leaf-5.1.md" },
      { id: "5.2", owns: ["src/5/b/**"], ledger: ".unlazy/S/gates/leaf-5.2.md" },
    ]);
    const schema = JSON.parse(
      fs.readFileSync(path.join(import.meta.dir, "../../skill/references/structure-request.schema.json"), "utf8"),
    );
    for (const k of schema.required) expect(Object.keys(env.request)).toContain(k);
    for (const c of env.request.refinements["5"].children)
      for (const k of schema.$defs.child.required) expect(Object.keys(c)).toContain(k);
    const b = scope();
    b.write("split.json", JSON.stringify(env.request));
    expect(b.run(["structure", "apply", "--scope", "S", "--request", "split.json"]).code).toBe(0);
    for (const f of ["PLAN.md", "ACCESS.json", "gates/leaf-5.1.md", "gates/leaf-5.2.md"])
      expect([f, b.read(`.unlazy/S/${f}`)]).toEqual([f, a.read(`.unlazy/S/${f}`)]);
  });
});
