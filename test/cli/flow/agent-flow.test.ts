// Issue 20 acceptance: an agent drives a fresh repository through a scoped plan with kbz verbs
// only, and never writes PLAN.md, ACCESS.json, dispatch.json, leases or a ledger checkbox.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runAgentFlow, type FlowResult } from "../../helpers/agent-flow.ts";

setDefaultTimeout(600_000);
let flow: FlowResult | null = null;
afterAll(() => flow?.repo.cleanup());

describe("issue 20: an agent drives a scoped plan from the skill alone, with no hand edits", () => {
  test("init, five leaves, one approval review, one launch, then one advance --launch per returned leaf (a failing one sent back, launching nothing), a regroup and a split by name, a receipt, a cascade refreshed in one call, the root verification in one call: ALL MET and the Stop hook allows", () => {
    flow = runAgentFlow();
    const { steps, hook, repo } = flow;
    const last = (s: { stdout: string }) => s.stdout.trimEnd().split("\n").pop();
    // No step was a usage or parse failure (the driver throws on exit 2). Two calls per leaf: a
    // launch per wave, an advance per returned leaf; leaf 3 came back unfinished and was sent back.
    // One next --launch; then each advance --launch starts what its leaf unblocked.
    expect(steps.filter((s) => s.args[0] === "next").length).toBe(1);
    const launches = steps.filter((s) => /^LAUNCHED /m.test(s.stdout));
    expect(launches.map((s) => [s.args[0], s.code, /^LAUNCHED .*$/m.exec(s.stdout)![0]])).toEqual([
      ["next", 0, "LAUNCHED w1: 1, 2; as each worker returns: kbz advance --scope S --leaf ID"],
      ["advance", 0, "LAUNCHED w2: 3; as each worker returns: kbz advance --scope S --leaf ID"],
      ["advance", 0, "LAUNCHED w3: 4; as each worker returns: kbz advance --scope S --leaf ID"],
      ["advance", 0, "LAUNCHED w4: 5.1, 5.2; as each worker returns: kbz advance --scope S --leaf ID"],
      ["advance", 0, "LAUNCHED w5: 5; as each worker returns: kbz advance --scope S --leaf ID"],
    ]);
    expect(steps.filter((s) => s.args[0] === "wave" || (s.args[0] === "scope" && s.args[1] === "claim"))).toEqual([]);
    const advances = steps.filter((s) => s.args[0] === "advance");
    expect(advances.map((s) => s.args[4])).toEqual(["1", "2", "3", "3", "4", "5.1", "5.2", "5"]);
    expect(advances.every((s) => s.args.includes("--launch"))).toBe(true);
    const [sentBack] = advances.splice(2, 1);
    expect([sentBack!.code, last(sentBack!)]).toEqual([1, "NOT VERIFIED leaf-3: 1 of 1 gate(s) unmet"]);
    expect(sentBack!.stdout).toContain("  FAIL leaf-3:G1: the leaf's outcome is observable from outside\n");
    expect(sentBack!.stdout).not.toContain("LAUNCHED");
    for (const a of advances)
      expect([a.args[4], a.code, a.stdout]).toEqual([
        a.args[4],
        0,
        expect.stringContaining(`VERIFIED leaf-${a.args[4]} (1 gate passed)`),
      ]);
    // advance never stopped for an approval: the person approved every CHECK of the scope first.
    for (const a of advances) expect(a.stdout).not.toContain("APPROV");
    // Root verification in one call: the advice names the manual root gate a person signs first.
    expect(last(advances[advances.length - 1]!)).toStartWith(
      'VERIFY-ROOT: every task is VERIFIED: a person signs N2 first (kbz sign .unlazy/S/GATES.md N2 --evidence "..."), then run kbz check --scope S --reverify',
    );
    // A cascade (one change in leaf 1's code: two gates with INPUTS and leaf 1's receipt) refreshed in one call.
    const refresh = steps.find((s) => s.args.includes("--stale"))!;
    expect([refresh.code, refresh.stdout]).toEqual([0, "refreshed 2 gates, 1 receipt\n"]);
    expect(steps.filter((s) => s.args[0] === "check").length).toBe(2);
    // A regroup by name and a split by name, each one call with no request file.
    const regroup = steps.find((s) => s.args[0] === "structure" && s.args[1] === "regroup")!;
    expect([regroup.code, regroup.stdout.split("\n")[0]]).toEqual([
      0,
      "REGROUPED 1, 3: one group, run one after the other (4 group(s) now)",
    ]);
    expect(launches[1]!.stdout).toContain("continues 1 (agent S-w1-leaf-1)");
    const split = steps.find((s) => s.args[0] === "structure" && s.args[1] === "split")!;
    expect([split.code, split.stdout.split("\n")[0]]).toEqual([
      0,
      "SPLIT 5 into 5.1 (src/5/a/**), 5.2 (src/5/b/**); 5 waits to integrate them",
    ]);
    expect(split.stdout).toContain("contract revision raised: every receipt of scope S is stale now");
    expect(steps.filter((s) => s.args.includes("--request"))).toEqual([]);
    const receipt = steps.find((s) => s.args[0] === "verify")!;
    expect([receipt.code, receipt.stdout]).toEqual([
      0,
      "ACCEPTED .unlazy/S/gates/leaf-1.md: checked once; receipt reusable while its inputs stay unchanged\n",
    ]);
    const root = steps.find((s) => s.args[0] === "check" && s.args.includes("--reverify"))!;
    expect([root.code, root.stdout]).toEqual([0, expect.stringMatching(/^ALL MET \(\d+ met, reran: \d+.*\n$/)]);
    expect(hook.code).toBe(0);
    expect(hook.stdout.trim() === "" || !JSON.parse(hook.stdout).decision).toBe(true);
    // The files kbz owns were written by kbz: every row VERIFIED, every box ticked by a CHECK or kbz sign.
    const plan = fs.readFileSync(path.join(repo.dir, ".unlazy/S/PLAN.md"), "utf8");
    expect(
      plan
        .split("\n")
        .filter((l) => /^\| [0-9.]+ \|/.test(l))
        .map((l) => l.split("|")[6]!.trim()),
    ).toEqual(Array(7).fill("VERIFIED"));
    expect(plan).toContain("Contract revision: 3.");
    expect(
      fs.existsSync(path.join(repo.dir, ".unlazy/locks"))
        ? fs.readdirSync(path.join(repo.dir, ".unlazy/locks")).filter((n) => n.endsWith(".lease"))
        : [],
    ).toEqual([]);
  });

  test("agent-flow figures: at most 30 invocations (the person's included) and 6 KB of output the agent reads (bench/agent-flow.ts prints them per verb)", () => {
    expect(flow).not.toBeNull();
    expect(flow!.invocations).toBeLessThanOrEqual(30);
    expect(flow!.bytes).toBeLessThanOrEqual(6 * 1024);
  });
});
