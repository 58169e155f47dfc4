// Issues 20 and 43 acceptance: an agent drives a fresh repository with a solo ledger next to a scope
// with kbz verbs only (never PLAN.md, ACCESS.json, dispatch.json, leases or a ledger checkbox), the
// person runs what the PERSON lines name, and the figures hold the budget (bench/agent-flow.ts).
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { APPROVE_COVERS_ALL } from "../../../src/core/text/person.ts";
import { type FlowResult, runAgentFlow } from "../../helpers/agent-flow.ts";

setDefaultTimeout(600_000);
let flow: FlowResult | null = null;
afterAll(() => flow?.repo.cleanup());

describe("issue 43: a solo ledger next to a scope, probes and two manual gates, from the skill alone", () => {
  test("init, four leaves, the person's approvals from one PERSON line each, one launch, one advance --launch per returned leaf (one sent back), the solo check, the probe, the root: DONE and the Stop hook allows", () => {
    flow = runAgentFlow();
    const { steps, hook, repo } = flow;
    const agent = steps.filter((s) => !s.person);
    const lastLine = (s: { stdout: string }) => s.stdout.trimEnd().split("\n").pop();
    // The first checks: one line of what waits for the person, with the commands.
    const [scopeCheck, soloCheck] = agent.filter((s) => s.args[0] === "check").slice(0, 2);
    expect(lastLine(scopeCheck!)).toBe(
      'PERSON: 5 oracles to approve, 1 sign-off (GATES:N2); in their terminal: kbz approve --scope S; kbz sign .unlazy/S/GATES.md N2 --evidence "..."',
    );
    // Each oracle waiting is one line to the agent (the person's review shows it whole).
    expect(scopeCheck!.stdout).toMatch(/^APPROVAL REQUIRED GATES:N1 \[[0-9a-f]{12}\]\nAPPROVAL REQUIRED leaf-1:G1 /);
    expect(lastLine(soloCheck!)).toBe(
      'PERSON: 1 oracle to approve, 1 sign-off (GATES:G2); in their terminal: kbz approve GATES.md; kbz sign GATES.md G2 --evidence "..."',
    );
    // The person ran exactly what the lines named (kbz approve, kbz check --probe --approve, kbz sign).
    expect(steps.filter((s) => s.person).map((s) => s.args.slice(0, 2).join(" "))).toEqual([
      "approve --scope",
      "sign .unlazy/S/GATES.md",
      "approve GATES.md",
      "sign GATES.md",
      "check --probe",
    ]);
    for (const s of steps.filter((x) => x.person)) expect([s.args.join(" "), s.code]).toEqual([s.args.join(" "), 0]);
    // One launch; then each advance --launch starts what its leaf unblocked. Leaf 3 was sent back.
    const advances = agent.filter((s) => s.args[0] === "advance");
    expect(advances.map((s) => [s.args[4], s.code])).toEqual([
      ["1", 0],
      ["2", 0],
      ["3", 1],
      ["3", 0],
      ["4", 0],
    ]);
    expect(lastLine(advances[2]!)).toBe("NOT VERIFIED leaf-3: 1 of 1 gate(s) unmet");
    expect(advances[0]!.stdout).toContain("LAUNCHED w2: 3\n  3 handle S-w2-leaf-3:");
    expect(lastLine(advances[4]!)).toBe(
      "VERIFY-ROOT: every task is VERIFIED: run kbz check --scope S --reverify, then kbz scope release --scope S",
    );
    // The probe: a PERSON line for its approval; run by the person, it observes the deliverable.
    const probe = agent.find((s) => s.args.includes("--probe"))!;
    expect(lastLine(probe)).toBe("PERSON: 1 probe to approve; in their terminal: kbz check --probe --approve GATES.md");
    expect(steps.find((s) => s.person && s.args.includes("--probe"))!.stdout).toContain("PROBE OK (1 observe");
    const root = agent.find((s) => s.args.includes("--reverify"))!;
    expect([root.code, root.stdout]).toEqual([0, expect.stringMatching(/^ALL MET \(6 met, reran: \d+.*\n$/)]);
    const done = agent[agent.length - 1]!;
    expect([done.args.join(" "), done.code, done.stdout]).toEqual([
      "next --scope S",
      0,
      "DONE: scope S is verified and released: nothing left to do\n",
    ]);
    expect([hook.code, hook.stdout]).toEqual([0, ""]);
    // The files kbz owns were written by kbz: every row VERIFIED, every box ticked by a CHECK or kbz sign.
    const plan = fs.readFileSync(path.join(repo.dir, ".unlazy/S/PLAN.md"), "utf8");
    expect(
      plan
        .split("\n")
        .filter((l) => /^\| [0-9.]+ \|/.test(l))
        .map((l) => l.split("|")[6]!.trim()),
    ).toEqual(Array(4).fill("VERIFIED"));
    expect(fs.readFileSync(path.join(repo.dir, "GATES.md"), "utf8")).not.toContain("- [ ]");
  });

  test("agent-flow figures: at most 22 agent invocations and 2.8 KB the agent reads; the person's invocations (2 once kbz approve covers probes and sign-offs, 5 until then)", () => {
    expect(flow).not.toBeNull();
    expect(flow!.invocations).toBeLessThanOrEqual(22);
    expect(flow!.bytes).toBeLessThanOrEqual(2800);
    expect(flow!.personInvocations).toBeLessThanOrEqual(APPROVE_COVERS_ALL ? 2 : 5);
  });
});
