// Issue 28 item 4 (checks outlive kbz), the dashboard's part, on the real binary in tmux: q or
// ctrl-c while a CHECK runs closes the dashboard at once and ends the CHECK (by its pid).
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv } from "../helpers/approvals.ts";
import { TmuxPane, haveTmux } from "../helpers/tmux.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const panes: TmuxPane[] = [];
afterAll(() => {
  for (const p of panes.splice(0)) p.kill();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await Bun.sleep(50);
  }
  return !alive(pid);
}

describe.skipIf(!haveTmux())("item 4: checks outlive kbz (the dashboard)", () => {
  for (const [key, name] of [
    ["q", "q"],
    ["C-c", "ctrl-c"],
  ] as const) {
    test(`item 4: ${name} while a CHECK runs closes the dashboard at once and ends the CHECK`, async () => {
      const root = tempDir();
      writeTree(root, {
        "GATES.md":
          "# Gates\n\n- [ ] G1: the long build\n  CHECK: sh -c 'echo $$ > check.pid; exec sleep 300'\n  EXPECT: never\n  EVIDENCE: pending\n",
      });
      const p = new TmuxPane(100, 30);
      panes.push(p);
      p.start([BIN], root, checkEnv());
      await p.waitFor((s) => s.includes("UNMET: 1"));
      p.send("4");
      await p.waitFor((s) => s.includes("GATES:G1"));
      p.send("a");
      await p.waitFor((s) => s.includes("approve GATES:G1?"));
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("approved GATES:G1"));
      p.send("3");
      await p.waitFor((s) => /\[(3 )?Gat/.test(s));
      p.send("r");
      const pidFile = path.join(root, "check.pid");
      const end = Date.now() + 10_000;
      while (!fs.existsSync(pidFile) && Date.now() < end) await Bun.sleep(50);
      await Bun.sleep(100);
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
      expect(alive(pid)).toBe(true);
      p.send(key);
      // Far below the CHECK's 120 s timeout and its 300 s sleep.
      expect(await p.waitFor((s) => s.includes("EXIT="), 30_000)).toContain("EXIT=0");
      expect(await gone(pid, 30_000)).toBe(true);
      p.kill();
    }, 60_000);
  }
});
