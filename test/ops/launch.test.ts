// Issue 30, "two calls per leaf": `kbz next --launch` claims, opens a wave, starts each leaf with a
// handle (given or generated) and seals in one call, and prints per leaf what its worker needs.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { commitDispatch } from "../../src/io/dispatch/transition.ts";
import { hashTree } from "../helpers/kbz.ts";
import { flowRepo, type FlowRepo } from "../helpers/flow.ts";

setDefaultTimeout(120_000);
const repos: FlowRepo[] = [];
afterAll(() => repos.forEach((r) => r.cleanup()));

/** A scope with leaves 1 and 2 ready and 3 waiting on 1; leaf 2 reads lib/** and has a manual gate. */
function scope(): FlowRepo {
  const r = flowRepo("kbz-launch-");
  repos.push(r);
  r.run(["init", "--scope", "S"]);
  r.run(["plan", "add", "1", "--owns", "src/1/**"]);
  r.run(["plan", "add", "2", "--owns", "src/2/**", "--reads", "lib/**"]);
  r.run(["plan", "add", "3", "--owns", "src/3/**", "--needs", "1"]);
  const l2 = ".unlazy/S/gates/leaf-2.md";
  r.write(l2, r.read(l2) + "\n- [ ] G2: the docs read well\n  EVIDENCE: pending\n");
  return r;
}

const dispatch = (r: FlowRepo) => JSON.parse(r.read(".unlazy/S/dispatch.json"));
const rowState = (r: FlowRepo, id: string) =>
  r
    .read(".unlazy/S/PLAN.md")
    .split("\n")
    .find((l) => l.startsWith(`| ${id} |`))!
    .split("|")[6]!
    .trim();
const leases = (r: FlowRepo) =>
  fs.existsSync(path.join(r.dir, ".unlazy/locks"))
    ? fs.readdirSync(path.join(r.dir, ".unlazy/locks")).filter((n) => n.endsWith(".lease"))
    : [];

describe("issue 30: six calls per leaf become two (kbz next --launch, then kbz advance)", () => {
  test("six calls per leaf: one next --launch claims, opens, starts each leaf with a handle (given or generated), seals and marks it IN-FLIGHT", () => {
    const r = scope();
    const l = r.run(["next", "--scope", "S", "--launch", "--handle", "1=agent-7"]);
    expect([l.code, l.stderr]).toEqual([0, ""]);
    expect(l.stdout).toBe(
      [
        "LAUNCHED w1: 1, 2; as each worker returns: kbz advance --scope S --leaf ID",
        "  1 handle agent-7: owns src/1/**; meet G1 in .unlazy/S/gates/leaf-1.md",
        "  2 handle S-w1-leaf-2: owns src/2/**; reads lib/**; meet G1, G2 (manual: a person signs) in .unlazy/S/gates/leaf-2.md",
        "",
      ].join("\n"),
    );
    const w1 = dispatch(r).waves.w1;
    expect([w1.state, w1.leaves, w1.started["leaf-1"].handle, w1.started["leaf-2"].handle]).toEqual([
      "sealed",
      ["leaf-1", "leaf-2"],
      "agent-7",
      "S-w1-leaf-2",
    ]);
    expect([rowState(r, "1"), rowState(r, "2"), rowState(r, "3")]).toEqual(["IN-FLIGHT", "IN-FLIGHT", "WAITING"]);
    expect(leases(r).length).toBe(2);
    const log = r.read(".unlazy/S/status.log");
    for (const e of [
      "dispatch w1 opened: leaf-1, leaf-2",
      "dispatch w1 started leaf-1 as agent-7",
      "dispatch w1 sealed",
      "claim leaf-2: src/2/**",
      "launch w1: 1, 2 -> IN-FLIGHT",
    ])
      expect(log).toContain(e);
    // Nothing more can start: a second launch says so in the advice's words and changes nothing.
    const again = r.run(["next", "--scope", "S", "--launch"]);
    expect([again.code, again.stdout.trimEnd().split("\n").pop()]).toEqual([
      0,
      "WAIT-OR-VERIFY: nothing new can start: when a leaf returns run kbz advance --scope S --leaf LEAF",
    ]);
    expect(Object.keys(dispatch(r).waves)).toEqual(["w1"]);
  });

  test("the JSON envelope keeps the whole advice and, per leaf, what its worker needs", () => {
    const r = scope();
    const j = JSON.parse(r.run(["next", "--scope", "S", "--launch", "--slots", "1", "--json"]).stdout);
    expect(j).toMatchObject({
      schema: 1,
      exit: 0,
      verdict: "launched",
      action: "dispatch",
      launch: ["1"],
      wave: "w1",
      claimed: ["leaf-1"],
    });
    expect(j.launched).toEqual([
      {
        id: "1",
        leaf: "leaf-1",
        handle: "S-w1-leaf-1",
        generated: true,
        ledger: ".unlazy/S/gates/leaf-1.md",
        owns: ["src/1/**"],
        reads: [],
        gates: [{ id: "G1", title: "the leaf's outcome is observable from outside", manual: false }],
        continues: null,
      },
    ]);
    expect(j.snapshot).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the leaf comes back through advance: the second of its two calls", () => {
    const r = scope();
    r.run(["next", "--scope", "S", "--launch", "--slots", "1"]);
    r.write("test/leaf-1/check.mjs", 'console.log("LEAF_1_OK")\n');
    r.run(["approve", "--scope", "S"], { input: "y\n" });
    const a = r.run(["advance", "--scope", "S", "--leaf", "1"]);
    expect([a.code, a.stdout]).toEqual([
      0,
      "VERIFIED leaf-1 (1 gate passed); lease released; READY now: 3\nLAUNCH 2, 3: kbz next --scope S --launch\n",
    ]);
    expect(dispatch(r).waves.w1.state).toBe("complete");
  });

  test("six calls per leaf: advance never stops for an approval; a missing one is one NOT APPROVED line, nothing of it runs, and after kbz approve --scope the same call verifies", () => {
    const r = scope();
    r.run(["next", "--scope", "S", "--launch", "--slots", "1"]);
    r.write(
      "test/leaf-1/check.mjs",
      'import { writeFileSync } from "node:fs"; writeFileSync("ran", ""); console.log("LEAF_1_OK")\n',
    );
    const a = r.run(["advance", "--scope", "S", "--leaf", "1"]);
    expect([a.code, a.stdout, a.stderr]).toEqual([
      1,
      "NOT APPROVED leaf-1:G1 (nothing of it ran)\nPERSON: 1 oracle to approve; in their terminal: kbz approve --scope S\nNOT VERIFIED leaf-1: 1 of 1 gate(s) unmet\n",
      "",
    ]);
    expect(fs.existsSync(path.join(r.dir, "ran"))).toBe(false);
    const j = JSON.parse(r.run(["advance", "--scope", "S", "--leaf", "1", "--json"]).stdout);
    expect(j).toMatchObject({ exit: 1, verdict: "not-verified", unapproved: ["leaf-1:G1"], failed: [] });
    r.run(["approve", "--scope", "S"], { input: "y\n" });
    expect(r.run(["advance", "--scope", "S", "--leaf", "1"]).stdout).toStartWith("VERIFIED leaf-1 (1 gate passed)");
  });

  test("a refused launch changes nothing: a handle for a leaf it does not start, a bad handle, an existing wave", () => {
    const r = scope();
    r.run(["next", "--scope", "S", "--launch", "--slots", "1"]);
    const before = hashTree(r.dir);
    for (const [args, message] of [
      [["--handle", "3=x"], "--handle names 3, which this launch does not start"],
      [["--handle", "2=bad\u0007handle"], "handle must be printable"],
      [["--wave", "w1"], "wave w1 already exists"],
      [["--handle", "2"], "--handle takes LEAF=HANDLE"],
    ] as [string[], string][]) {
      const x = r.run(["next", "--scope", "S", "--launch", ...args]);
      expect([x.code, x.stdout, x.stderr]).toEqual([2, "", expect.stringContaining(message)]);
      expect(hashTree(r.dir)).toBe(before);
    }
    expect(r.run(["next", "--scope", "S", "--handle", "2=x"]).stderr).toContain("--handle and --wave go with --launch");
  });

  test("the dispatch steps of a launch are one write: a refused step in the batch leaves dispatch.json as it was", async () => {
    const r = scope();
    r.run(["next", "--scope", "S", "--launch", "--slots", "1"]);
    const before = r.read(".unlazy/S/dispatch.json");
    const batch = [
      { kind: "open" as const, wave: "w2", leaves: ["leaf-2", "leaf-3"] },
      { kind: "start" as const, wave: "w2", leaf: "leaf-2", handle: "h" },
      { kind: "start" as const, wave: "w2", leaf: "leaf-3", handle: "h" },
      { kind: "seal" as const, wave: "w2" },
    ];
    await expect(commitDispatch(r.dir, "S", batch)).rejects.toThrow("handle is already assigned to leaf-2");
    expect(r.read(".unlazy/S/dispatch.json")).toBe(before);
  });

  test("next without --launch names the one launch call; --details keeps the separate steps for hosts that record them", () => {
    const r = scope();
    const n = r.run(["next", "--scope", "S"]);
    expect(n.stdout).toBe(
      "scope S: 3 task(s), 4 slot(s), 0 active, mode orchestrated\nLAUNCH 2: 1, 2\nWAITING 1: 3 (--details says why)\nDISPATCH: kbz next --scope S --launch starts them (leases, wave, handles); as each returns run kbz advance --scope S --leaf LEAF\n",
    );
    const d = r.run(["next", "--scope", "S", "--details"]).stdout;
    expect(d).toContain("  kbz wave open --scope S --wave w1 --leaf leaf-1 --leaf leaf-2\n");
    expect(d).toContain("  3 (dependencies-or-unreleased-leases): needs 1 (READY)\n");
  });
});
