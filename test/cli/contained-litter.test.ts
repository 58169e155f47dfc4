// Issue 28 item 11: litter. kbz is killed (SIGKILL, by strace's fault injection) exactly at the
// rename of an atomic write of GATES.md; its temp file stays. The next write in that folder
// removes it. Fails on 33d2fc2 (KBZ_TEST_BIN=/work/tools/kbz-old-33d2fc2).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(60_000);

const strace = needs("strace");

const RENAMES = "rename,renameat,renameat2";
const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"));

describe.skipIf(!strace)("issue 28 item 11: litter", () => {
  test("item 11: a SIGKILL at the rename leaves a temp file; the next atomic write in that folder removes it", () => {
    const dir = tempDir();
    const ledger = "# Gates: litter\n\n- [ ] G1: t\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: pending\n";
    writeTree(dir, { "GATES.md": ledger });
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...agentEnv() };
    expect(kbz(["check", "--status"], { cwd: dir, env }).code).toBe(1);
    // Which rename writes GATES.md (approval record and run cache come first).
    const traced = spawnSync(
      "strace",
      [
        "-f",
        "-qq",
        "-e",
        `trace=${RENAMES}`,
        "-o",
        path.join(dir, "..", path.basename(dir) + ".trace"),
        BIN,
        "check",
        "--approve",
      ],
      { cwd: dir, env },
    );
    expect(traced.status).toBe(0);
    const traceFile = path.join(dir, "..", path.basename(dir) + ".trace");
    const lines = fs
      .readFileSync(traceFile, "utf8")
      .split("\n")
      .filter((l) => /rename/.test(l) && / = 0$/.test(l));
    fs.rmSync(traceFile);
    const nth = lines.findIndex((l) => l.includes(`${path.join(dir, "GATES.md")}"`)) + 1;
    expect(nth).toBeGreaterThan(0);
    // Again from the start, killed at that rename.
    fs.writeFileSync(path.join(dir, "GATES.md"), ledger);
    const env2: Record<string, string> = { ...(process.env as Record<string, string>), ...agentEnv() };
    const killed = spawnSync(
      "strace",
      [
        "-f",
        "-qq",
        "-o",
        "/dev/null",
        "-e",
        `trace=${RENAMES}`,
        "-e",
        `inject=${RENAMES}:signal=KILL:when=${nth}`,
        BIN,
        "check",
        "--approve",
      ],
      { cwd: dir, env: env2 },
    );
    expect(killed.status).not.toBe(0);
    expect(temps(dir)).toEqual([expect.stringMatching(/^GATES\.md\.\d+\.[0-9a-f]{16}\.tmp$/)]);
    expect(fs.readFileSync(path.join(dir, "GATES.md"), "utf8")).toBe(ledger); // old bytes, never a mix
    // Older than a live writer's temp ever is (docs/formats.md#writes), so surely a dead writer's.
    const left = path.join(dir, temps(dir)[0]!);
    fs.utimesSync(left, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    // The next write in the folder: the pass is written and the dead writer's temp file is gone.
    expect(kbz(["check", "--approve"], { cwd: dir, env: env2 }).code).toBe(0);
    expect(temps(dir)).toEqual([]);
  });
});
