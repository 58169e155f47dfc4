// A killed `kbz check` leaves every ledger as the old or the new text, never a mix:
// 200 runs (a quarter outside CI, test/helpers/soak.ts) are killed with SIGKILL at random
// moments around writeback.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn } from "node:child_process";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { soakRounds } from "../helpers/soak.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const RUNS = soakRounds(200);
const padding = Array.from(
  { length: 40 },
  (_, i) => `- [x] M${i}: manual outcome ${i}\n  EVIDENCE: reviewed line ${i}\n`,
).join("\n");
const ledger = (name: string) =>
  `# Gates: ${name}\n\n- [ ] G1: ${name} works\n  CHECK: printf ok-${name}\n  EXPECT: ok-${name}\n  EVIDENCE: pending\n\n${padding}`;
const NAMES = ["a", "b", "c"];

function runAndKill(dir: string, env: Record<string, string>, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ["check", "--jobs", "3"], { cwd: dir, env: { ...process.env, ...env }, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    child.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe("crash safety of writeback", () => {
  test(`${RUNS} runs killed by SIGKILL at random moments leave each ledger parseable and old or new`, async () => {
    const dir = tempDir();
    const files = Object.fromEntries(NAMES.map((n) => [`gates/${n}.md`, ledger(n)]));
    writeTree(dir, files);
    const env = agentEnv();
    // Approve once and learn the new texts; then time an ordinary run of the same work.
    expect(kbz(["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    const after = Object.fromEntries(
      NAMES.map((n) => [n, fs.readFileSync(path.join(dir, "gates", `${n}.md`), "utf8")]),
    );
    const reset = () => writeTree(dir, files);
    reset();
    const t0 = performance.now();
    await runAndKill(dir, env, 60_000);
    const full = performance.now() - t0;
    for (const n of NAMES) expect(fs.readFileSync(path.join(dir, "gates", `${n}.md`), "utf8")).toBe(after[n]!);

    const seen = { old: 0, new: 0 };
    for (let i = 0; i < RUNS; i++) {
      reset();
      // Most kills land in the second half of a run, where the results are written back.
      await runAndKill(dir, env, full * (0.3 + Math.random() * 0.8));
      for (const n of NAMES) {
        const text = fs.readFileSync(path.join(dir, "gates", `${n}.md`), "utf8");
        expect(parseLedger(text, n).errors).toEqual([]);
        const isOld = text === files[`gates/${n}.md`];
        const isNew = text === after[n];
        expect([n, isOld || isNew]).toEqual([n, true]);
        if (isOld) seen.old++;
        else seen.new++;
      }
    }
    // The kills really landed on both sides of the writes.
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
    // A killed holder's lock is recovered (dead pid), so the next ordinary run still works.
    reset();
    expect(kbz(["check"], { cwd: dir, env }).code).toBe(0);
  }, 240_000);
});
