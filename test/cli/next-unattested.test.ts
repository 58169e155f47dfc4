// kbz next reads UNATTESTED (issue 27, "evidence is attested"): under the default person policy a
// met gate whose evidence kbz has no record of is unmet for `kbz next` too, as for status and the
// Stop hook. The agent forges the evidence of two leaves by running the checks under an approval
// store of its own (agent policy), marks them VERIFIED, and asks `kbz next`: it must not say
// verify-root. On the binary; the dashboard's queue is built by the same op (test/ops/one-truth).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, fixtureCopy, kbz, writeTree } from "../helpers/kbz.ts";
import { agentEnv, checkEnv, personRun } from "../helpers/approvals.ts";
import { loadPlanView } from "../../src/ops/dashboardPlan.ts";

setDefaultTimeout(60_000);

const LEAF1 = ".unlazy/api/gates/leaf-1.md";
const LEAF3 = ".unlazy/api/gates/leaf-3.md";
const gate = (n: number) =>
  `OWNS: src/${n}/**\n\n- [ ] G1: leaf ${n} deliverable\n  CHECK: cat src/${n}/a.txt\n  EXPECT: ok\n  EVIDENCE: pending\n`;

function verified(dir: string, ...ids: string[]): void {
  const plan = path.join(dir, ".unlazy/api/PLAN.md");
  let text = fs.readFileSync(plan, "utf8");
  for (const id of ids) text = text.replace(new RegExp(`^(\\| ${id} \\|.*\\| )READY \\|$`, "m"), "$1VERIFIED |");
  fs.writeFileSync(plan, text);
}

describe("kbz next reads UNATTESTED", () => {
  test("evidence written under the agent's own approval store: next says review (verified-ledger-not-met), not verify-root; after a person's approval and kbz's run, nothing to review", () => {
    const dir = fs.realpathSync(fixtureCopy("next-golden"));
    writeTree(dir, { [LEAF1]: gate(1), [LEAF3]: gate(3), "src/1/a.txt": "ok\n", "src/3/a.txt": "ok\n" });
    const person = checkEnv(); // a fresh store: the default person policy
    const agent = { ...person, CLAUDECODE: "1" };
    // The agent's act: its own store, under the agent policy, approves and runs the checks.
    const forged = kbz(["check", "--approve", LEAF1, LEAF3], { cwd: dir, env: { ...agentEnv(), CLAUDECODE: "1" } });
    expect(forged.code).toBe(0);
    verified(dir, "1", "3");
    const st = kbz(["status", LEAF1, LEAF3], { cwd: dir, env: agent });
    expect(st.stdout).toContain("leaf-1:G1 (kbz has no record of this pass; run kbz check --reverify)");

    const next = kbz(["next", "--scope", "api", "--json"], { cwd: dir, env: agent });
    const j = JSON.parse(next.stdout);
    expect(j.action).toBe("review");
    expect(j.attention.map((a: { leaf: string; reason: string }) => `${a.leaf} ${a.reason}`)).toEqual([
      "1 verified-ledger-not-met",
      "3 verified-ledger-not-met",
    ]);
    expect(next.code).toBe(1);
    const text = kbz(["next", "--scope", "api"], { cwd: dir, env: agent });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("verified-ledger-not-met");
    // The dashboard's queue (same op, this process's environment) agrees.
    const saved = process.env.UNLAZY_APPROVAL_DIR;
    process.env.UNLAZY_APPROVAL_DIR = person.UNLAZY_APPROVAL_DIR;
    try {
      const queue = loadPlanView(dir, "api", 4, [])!.advice!;
      expect([queue.action, queue.attention.map((a) => `${"leaf" in a ? a.leaf : ""} ${a.reason}`)]).toEqual([
        j.action,
        ["1 verified-ledger-not-met", "3 verified-ledger-not-met"],
      ]);
    } finally {
      process.env.UNLAZY_APPROVAL_DIR = saved;
    }

    // The honest path: a person approves in a terminal, kbz runs the gates and vouches for the passes.
    const p = personRun(BIN, ["check", "--approve", LEAF1, LEAF3], { cwd: dir, env: person });
    expect(p.code).toBe(0);
    const after = JSON.parse(kbz(["next", "--scope", "api", "--json"], { cwd: dir, env: agent }).stdout);
    expect(after.attention).toEqual([]);
    expect(after.action).not.toBe("review");
  });
});
