// Issue 31: the dashboard watches the oracle files its approvals bind. A checker script edited
// in another shell moves its gate to Approvals and makes a met gate STALE, on screen, without a
// key and without reopening the panel. It also watches kbz's failure records: a check that failed
// in another shell reads FAILED at once. On the real binary in tmux at the five sizes.
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv, checkEnv } from "../helpers/approvals.ts";
import { PanePool, TUI_SIZES, haveTmux } from "../helpers/tmux.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const SIZES = TUI_SIZES;
const panes = new PanePool();
afterAll(() => panes.killAll());

function keep(name: string, screen: string): void {
  const dir = process.env.KBZ_SCREENS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.txt`), screen);
}

const rowOf = (s: string, qid: string) => s.split("\n").find((l) => l.includes(qid) && /^[›\s]/.test(l)) ?? "";

describe.skipIf(!haveTmux())("the dashboard watches oracle files", () => {
  for (const [w, h] of SIZES) {
    test(`a checker script changed in another shell shows in the open Approvals panel and as STALE in Gates, with no key pressed (${w}x${h})`, async () => {
      const root = tempDir();
      writeTree(root, {
        "GATES.md":
          "# Gates\n\n- [ ] G1: two and two make four\n  CHECK: sh scripts/check.sh\n  EXPECT: ADD_OK\n  EVIDENCE: pending\n\n- [ ] G2: docs reviewed\n  EVIDENCE: pending\n",
        "scripts/check.sh": "test $((2+2)) = 4 && echo ADD_OK\n",
      });
      const env = checkEnv();
      const p = panes.open([BIN], root, env, w, h);
      await p.waitFor((s) => s.includes("UNMET: 2"));
      // Approve G1 in the open Approvals panel: nothing is left to approve.
      p.send("4");
      await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s));
      p.send("a");
      await p.waitFor((s) => s.includes("approve GATES:G1?"));
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("approved GATES:G1") && !/(APPROVE\?|\?)\s+GATES:G1/.test(s));
      // The agent edits the checker (scripts/ is no ledger folder): the gate asks again, in the open panel.
      fs.writeFileSync(path.join(root, "scripts/check.sh"), "echo ADD_OK\n");
      const asked = await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s), 30_000);
      keep(`7-oracle-watch-approvals-${w}x${h}`, asked);
      // Approved again and run: G1 is met.
      p.send("a");
      await p.waitFor((s) => s.includes("approve GATES:G1?"));
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("approved GATES:G1"));
      p.send("3");
      await p.waitFor((s) => /\[(3 )?Gat/.test(s) && /›.*GATES:G1/.test(s));
      p.send("r");
      await p.waitFor((s) => s.includes("GATES:G1 passed"), 15_000);
      const met = w >= 80 ? /^› MET\s+GATES:G1/ : /^› ✓ GATES:G1/;
      const staleRow = w >= 80 ? /^› STALE\s+GATES:G1/ : /^› ~ GATES:G1/;
      await p.waitFor((s) => met.test(rowOf(s, "GATES:G1")));
      // The checker is edited by rename (as editors and agents write): the met gate goes STALE on
      // screen, and Approvals counts it again.
      const tmp = path.join(root, "scripts/.check.sh.swp");
      fs.writeFileSync(tmp, "echo ADD_OK # faster\n");
      fs.renameSync(tmp, path.join(root, "scripts/check.sh"));
      const stale = await p.waitFor((s) => staleRow.test(rowOf(s, "GATES:G1")) && s.includes("Approvals 1"), 30_000);
      keep(`7-oracle-watch-gates-${w}x${h}`, stale);
      p.send("q");
      expect(await p.waitFor((s) => s.includes("EXIT="), 30_000)).toContain("EXIT=0");
      p.kill();
    }, 60_000);
  }

  for (const [w, h] of SIZES) {
    test(`a check that failed in another shell reads FAILED in the open Gates panel, and a pass there clears it, with no key pressed (${w}x${h})`, async () => {
      const root = tempDir();
      const ledger = (check: string) =>
        `# Gates\n\n- [ ] G1: the widget builds\n  CHECK: ${check}\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n`;
      writeTree(root, { "GATES.md": ledger("echo boom; exit 3") });
      // The agent's own shell approves and runs (agent policy); the person watches.
      const env = agentEnv();
      const p = panes.open([BIN], root, env, w, h);
      await p.waitFor((s) => /› (UNMET|·)\s+GATES:G1/.test(s));
      expect(kbz(["check", "--approve"], { cwd: root, env }).code).toBe(1);
      const failed = await p.waitFor(
        (s) => (w >= 80 ? /› FAILED \(exit 3\)\s+GATES:G1/ : /› ✗ GATES:G1/).test(s),
        8000,
      );
      keep(`7-failed-elsewhere-${w}x${h}`, failed);
      writeTree(root, { "GATES.md": ledger("echo BUILD_OK") });
      expect(kbz(["check", "--approve"], { cwd: root, env }).code).toBe(0);
      await p.waitFor((s) => (w >= 80 ? /› MET\s+GATES:G1/ : /› ✓ GATES:G1/).test(s), 30_000);
      p.send("q");
      expect(await p.waitFor((s) => s.includes("EXIT="), 30_000)).toContain("EXIT=0");
      p.kill();
    }, 60_000);
  }
});
