// A crashed `kbz check --approve` never blocks the next one (issue 15): 100 runs (a quarter of
// them outside CI, test/helpers/soak.ts) are killed with SIGKILL at random moments, and each time the next --approve records and runs at once.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { spawn } from "node:child_process";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { approvalRecords, checkEnv, agentApprovalDir } from "../helpers/approvals.ts";
import { soakRounds } from "../helpers/soak.ts";

setDefaultTimeout(300_000);

const KILLS = soakRounds(100);
const ledger = (i: number) =>
  `# Gates: crash\n\n- [ ] G1: approval ${i} records\n  CHECK: printf ok-${i}\n  EXPECT: ok-${i}\n  EVIDENCE: pending\n`;

function runAndKill(dir: string, env: Record<string, string>, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ["check", "--approve"], { cwd: dir, env: { ...process.env, ...env }, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    child.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe("crash safety of check --approve", () => {
  test(`${KILLS} SIGKILLs during check --approve, then --approve works at once each time`, async () => {
    const dir = tempDir();
    const store = agentApprovalDir();
    const env = checkEnv(store);
    writeTree(dir, { "GATES.md": ledger(-1) });
    const t0 = performance.now();
    await runAndKill(dir, env, 60_000);
    const full = performance.now() - t0;
    let littered = 0;
    for (let i = 0; i < KILLS; i++) {
      // A fresh CHECK each round, so every run has an approval to record under the lock.
      writeTree(dir, { "GATES.md": ledger(i) });
      await runAndKill(dir, env, full * Math.random());
      writeTree(dir, { "GATES.md": ledger(i) });
      if (approvalRecords(store).some((n) => !n.endsWith(".json"))) littered++;
      const r = kbz(["check", "--approve"], { cwd: dir, env });
      expect({ i, code: r.code, stderr: r.stderr }).toEqual({ i, code: 0, stderr: "" });
      // Only records remain: no lock, no temp file, no staged owner record.
      for (const name of approvalRecords(store)) expect(name).toMatch(/^[0-9a-f]{64}\.json$/);
    }
    console.log(`${littered} of ${KILLS} killed runs left a lock or temp file behind`);
  });
});
