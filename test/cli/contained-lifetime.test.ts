// Issue 28 item 4: checks outlive kbz. A signal to `kbz check` ends every CHECK it started and kbz;
// a SIGKILL of kbz (which kbz cannot catch) ends its checks all the same. Each test fails on 33d2fc2.
// No wall-clock bound (issue 44 item 5: "within 2 s" failed at 2.15 s under load): each waits for
// the event with a generous ceiling (ENDED_WITHIN) far below the sleepers' own ~400 s, so what it
// proves is the order (kbz ended them, they did not end by themselves), never the speed.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { pidsWith, token } from "../helpers/procs.ts";

setDefaultTimeout(60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Generous: a loaded 2-core machine takes seconds; the sleepers would live ~400 s on their own. */
const ENDED_WITHIN = 30_000;

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}

/** `kbz check` running one CHECK that starts a plain and a setsid sleeper, then waits. */
async function runningCheck(level?: string) {
  const t = token();
  const dir = tempDir();
  writeTree(dir, {
    "GATES.md": `# Gates: life\n\n- [ ] G1: outlives nothing\n  CHECK: sleep ${t} & setsid sleep ${t} & echo started > started; wait\n  EXPECT: never\n  EVIDENCE: pending\n`,
  });
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...agentEnv() };
  if (level) env.KBZ_CONTAINMENT = level;
  const proc = Bun.spawn([BIN, "check", "--approve"], {
    cwd: dir,
    env,
    stdout: "ignore",
    stderr: "ignore",
    stdin: "ignore",
  });
  const started = await waitFor(() => fs.existsSync(path.join(dir, "started")) && sleepers(t).length === 2, 15_000);
  expect(started).toBe(true);
  return { proc, t };
}

/** The CHECK's sleepers (not the shell whose command line names them too). */
function sleepers(t: string): number[] {
  return pidsWith(`sleep ${t}`).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "sleep";
    } catch {
      return false;
    }
  });
}

const cleanup = (t: string) => {
  for (const pid of pidsWith(`sleep ${t}`)) process.kill(pid, "SIGKILL");
};

describe("issue 28 item 4: checks outlive kbz", () => {
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    test(`item 4: ${sig} to kbz check ends every CHECK process (setsid ones too) and kbz exits at once`, async () => {
      const { proc, t } = await runningCheck();
      try {
        proc.kill(sig);
        // kbz exits on the signal, not when its CHECK would have ended (the sleepers run ~400 s).
        expect(
          await Promise.race([proc.exited.then(() => "exited"), sleep(ENDED_WITHIN).then(() => "still running")]),
        ).toBe("exited");
        expect(await waitFor(() => pidsWith(`sleep ${t}`).length === 0, ENDED_WITHIN)).toBe(true);
      } finally {
        cleanup(t);
      }
    });
  }

  for (const level of ["cgroup", "pgroup"]) {
    test(`item 4: SIGKILL of kbz check ends its CHECK (containment ${level}; issue 44 item 5: no 2 s bound)`, async () => {
      const { proc, t } = await runningCheck(level);
      try {
        proc.kill("SIGKILL");
        await proc.exited;
        // The plain sleeper is in the check's group at every level; at cgroup the setsid one too.
        const gone = () => (level === "cgroup" ? pidsWith(`sleep ${t}`).length === 0 : sleepers(t).length <= 1);
        expect(await waitFor(gone, ENDED_WITHIN)).toBe(true);
      } finally {
        cleanup(t);
      }
    });
  }
});
