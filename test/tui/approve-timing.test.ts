// Issue 41: keys typed into the person's dashboard from elsewhere (tmux send-keys from the agent's
// shell: `4 a y`) arrive before the oracle could have been read; the dashboard refuses such a
// confirmation and records nothing. A y after the oracle was on screen long enough approves.
// Fails on 571b8e3, where the burst approves.
import { afterEach, describe, expect, test } from "bun:test";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { TmuxPane, haveTmux } from "../helpers/tmux.ts";
import { needs } from "../helpers/needs.ts";

const panes: TmuxPane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});

describe.skipIf(!needs("tmux"))("dashboard: an approval key before the oracle could be read (issue 41)", () => {
  test("a y in the same burst as a is refused (nothing recorded); a y after the oracle was on screen approves", async () => {
    expect(haveTmux()).toBe(true);
    const root = tempDir();
    writeTree(root, {
      "GATES.md": "- [ ] R1: smoke\n  CHECK: echo SMOKE_OK\n  EXPECT: SMOKE_OK\n  EVIDENCE: pending\n",
    });
    const env = agentEnv();
    const p = new TmuxPane(100, 30);
    panes.push(p);
    p.start([BIN], root, env);
    await p.waitFor((s) => s.includes("UNMET: 1"));
    p.send("4");
    await p.waitFor((s) => s.includes("[4 Approvals 1]"));
    p.send("a", "y");
    await p.waitFor((s) => s.includes("Too soon: GATES:R1 was on screen for less than 1 s, nothing was recorded"));
    expect(kbz(["check"], { cwd: root, env }).stdout).toMatch(/^UNMET: 1 \(met: 0\)/m);
    await Bun.sleep(1200);
    p.send("y");
    await p.waitFor((s) => s.includes("approved GATES:R1"));
    expect(kbz(["check"], { cwd: root, env }).stdout).toContain("ALL MET");
  }, 60_000);
});
