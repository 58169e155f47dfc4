// The dashboard on a real terminal (tmux, compiled binary): a failing check's output in the gate
// detail view, the selection following its gate across a reload, messages that clear.
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { TmuxPane, haveTmux } from "../helpers/tmux.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const panes: TmuxPane[] = [];
afterAll(() => {
  for (const p of panes.splice(0)) p.kill();
});

function pane(columns = 100, rows = 30): TmuxPane {
  const p = new TmuxPane(columns, rows);
  panes.push(p);
  return p;
}

const gate = (id: string, title: string) => `- [ ] ${id}: ${title}\n  EVIDENCE: pending\n\n`;

describe.skipIf(!haveTmux())("dashboard in tmux", () => {
  test("a failing gate approved from Approvals shows its output in the gate detail view", async () => {
    const root = tempDir();
    // The output is assembled by the shell, so the text the screen must show is not in the ledger.
    const ledger = `# Gates\n\n- [ ] G1: the widget builds\n  CHECK: echo "compiling" "widget"; echo "boom:" "the widget is broken at line" $((3+4)) >&2; exit 3\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n\n${gate("G2", "docs reviewed")}`;
    writeTree(root, { "GATES.md": ledger });
    const env = agentEnv();
    const p = pane();
    p.start([BIN], root, env);
    await p.waitFor((s) => s.includes("UNMET: 2 (met: 0)"));
    p.send("4");
    await p.waitFor((s) => /APPROVE\?\s+GATES:G1/.test(s));
    p.send("a");
    await p.waitFor((s) => s.includes("Approve GATES:G1 exactly as shown?"));
    await Bun.sleep(READ_MS);
    p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
    await p.waitFor((s) => s.includes("approved GATES:G1"));
    p.send("3");
    await p.waitFor((s) => s.includes("[3 Gates]"));
    p.send("r");
    let screen = await p.waitFor((s) => s.includes("GATES:G1 failed"), 15_000);
    p.send("Enter");
    screen = await p.waitFor((s) => s.includes("Gate GATES:G1") && s.includes("boom: the widget is broken at line 7"));
    expect(screen).toContain("compiling widget");
    expect(screen).toMatch(/last run\s+failed: exit 3/);
    expect(screen).toMatch(/approval\s+approved for exactly these bindings/);
    expect(screen).toMatch(/EXPECT\s+BUILD_OK/);
    // The output lives in the cache, not in the ledger.
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toBe(ledger);
    p.send("Escape");
    await p.waitFor((s) => s.includes("› FAILED"));
    p.send("q");
    expect(await p.waitFor((s) => s.includes("EXIT="))).toContain("EXIT=0");
  }, 40_000);

  test("a row inserted above the selection keeps the same gate selected", async () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    writeTree(root, { "GATES.md": `# Gates\n\n${gate("G1", "first")}${gate("G2", "second")}${gate("G3", "third")}` });
    const p = pane();
    p.start([BIN], root, agentEnv());
    await p.waitFor((s) => s.includes("UNMET: 3 (met: 0)"));
    p.send("j", "j");
    await p.waitFor((s) => /› UNMET\s+GATES:G3/.test(s));
    writeAtomic(
      file,
      `# Gates\n\n${gate("G0", "inserted above")}${gate("G1", "first")}${gate("G2", "second")}${gate("G3", "third")}`,
    );
    const screen = await p.waitFor((s) => s.includes("UNMET: 4 (met: 0)"));
    expect(screen).toMatch(/› UNMET\s+GATES:G3/);
    expect(screen).toMatch(/^\s+UNMET\s+GATES:G0/m);
    p.send("q");
    await p.waitFor((s) => s.includes("EXIT="));
  }, 30_000);

  test("a message clears on the next key, and by itself after a few seconds", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": `# Gates\n\n${gate("G1", "first")}${gate("G2", "second")}` });
    const p = pane();
    p.start([BIN], root, agentEnv());
    await p.waitFor((s) => s.includes("UNMET: 2 (met: 0)"));
    p.send("u");
    await p.waitFor((s) => s.includes("showing only what is not done"));
    p.send("j");
    await p.waitFor((s) => !s.includes("showing only what is not done") && s.includes("q quit"));
    p.send("u");
    await p.waitFor((s) => s.includes("showing everything"));
    const started = Date.now();
    await p.waitFor((s) => !s.includes("showing everything"), 10_000);
    expect(Date.now() - started).toBeGreaterThan(2000);
    p.send("q");
    await p.waitFor((s) => s.includes("EXIT="));
  }, 30_000);
});
