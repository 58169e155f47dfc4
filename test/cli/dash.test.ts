// The compiled binary on a real terminal (tmux): the dashboard opens, follows files, quits.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, fixtureCopy, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv, privateApprovalDir } from "../helpers/approvals.ts";
import { TmuxPane, haveTmux } from "../helpers/tmux.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const panes: TmuxPane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});

function pane(columns = 80, rows = 24): TmuxPane {
  const p = new TmuxPane(columns, rows);
  panes.push(p);
  return p;
}

const LEDGER =
  "# Gates\n\n- [ ] G1: the parser accepts the sample\n  EVIDENCE: pending\n\n- [ ] G2: docs updated\n  EVIDENCE: pending\n";

describe.skipIf(!haveTmux())("kbz dashboard in tmux (compiled binary)", () => {
  test("kbz with no arguments opens the dashboard, shows an outside edit, and q exits 0", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER });
    const p = pane();
    p.start([BIN], root);
    let screen = await p.waitFor((s) => s.includes("UNMET: 2 (met: 0)"));
    expect(screen).toContain("GATES:G1");
    const lines = screen.split("\n").filter((l) => l.trim() !== "");
    expect(lines.length).toBeLessThan(24);
    writeAtomic(
      path.join(root, "GATES.md"),
      LEDGER.replace(
        "- [ ] G2: docs updated\n  EVIDENCE: pending",
        "- [x] G2: docs updated\n  EVIDENCE: reviewed by Ana",
      ),
    );
    screen = await p.waitFor((s) => s.includes("UNMET: 1 (met: 1)"));
    expect(screen).toMatch(/MET\s+GATES:G2/);
    p.send("q");
    screen = await p.waitFor((s) => s.includes("EXIT="));
    expect(screen).toContain("EXIT=0");
  }, 30_000);

  test("a fixture scope: an outside ledger edit shows, a keypress approves and runs a check, q quits cleanly", async () => {
    const root = fixtureCopy("dash-scope");
    const env = agentEnv();
    const p = pane();
    p.start([BIN], root, env);
    let screen = await p.waitFor((s) => s.includes("scope web") && s.includes("UNMET: 3 (met: 0)"));
    expect(screen).toContain("[3 Gates]");
    const leaf = path.join(root, ".unlazy/web/gates/leaf-1.md");
    writeAtomic(
      leaf,
      fs
        .readFileSync(leaf, "utf8")
        .replace(
          "- [ ] G1: page a renders\n  EVIDENCE: pending",
          "- [x] G1: page a renders\n  EVIDENCE: reviewed by Ana",
        ),
    );
    screen = await p.waitFor((s) => s.includes("UNMET: 2 (met: 1)"));
    expect(screen).toMatch(/MET\s+leaf-1:G1/);
    p.send("4");
    screen = await p.waitFor((s) => s.includes("[4 Approvals 1]"));
    expect(screen).toMatch(/APPROVE\?\s+GATES:R1\s+echo SMOKE_OK/);
    expect(screen).toContain("PATH    /usr/bin:/bin");
    // A person's approval: a shows it whole and asks y; approving runs nothing, r runs it.
    p.send("a");
    await p.waitFor((s) => s.includes("approve GATES:R1?"));
    await Bun.sleep(READ_MS);
    p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
    await p.waitFor((s) => s.includes("approved GATES:R1"));
    p.send("3");
    await p.waitFor((s) => s.includes("[3 Gates]"));
    p.send("/", "R", "1", "Enter");
    await p.waitFor((s) => /› \S+\s+GATES:R1/.test(s) && !s.includes("▏"));
    p.send("r");
    screen = await p.waitFor((s) => s.includes("UNMET: 1 (met: 2)"));
    expect(screen).toContain("GATES:R1 passed");
    expect(fs.readFileSync(path.join(root, ".unlazy/web/GATES.md"), "utf8")).toContain(
      "- [x] R1: the smoke check prints its token",
    );
    expect(fs.readdirSync(env.UNLAZY_APPROVAL_DIR!).filter((n) => n.endsWith(".json")).length).toBe(1);
    p.send("1");
    screen = await p.waitFor((s) => s.includes("[1 Graph]"));
    expect(screen).toMatch(/L1\s+○ 1\s+ready/);
    p.send("q");
    screen = await p.waitFor((s) => s.includes("EXIT="));
    expect(screen).toContain("EXIT=0");
  }, 30_000);

  test("keys work on a real terminal: tab to the log, ? for help, resize to 60x15", async () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md": LEDGER,
      ".unlazy/api/status.log": "2026-12-02T10:00:00.000Z dispatch w1 opened: leaf-1.1\n",
    });
    const p = pane();
    p.start([BIN, "dash", "--scope", "api"], root);
    await p.waitFor((s) => s.includes("scope api"));
    p.send("Tab", "Tab");
    await p.waitFor((s) => s.includes("dispatch w1 opened: leaf-1.1"));
    p.send("?");
    await p.waitFor((s) => s.includes("Keys: enter runs the selected one") && s.includes("move down"));
    p.send("Escape");
    await p.waitFor((s) => !s.includes("Keys: enter runs") && s.includes("dispatch w1 opened"));
    p.resize(60, 15);
    const screen = await p.waitFor((s) => s.includes("scope api") && s.split("\n").every((l) => l.length <= 60));
    expect(screen.split("\n").filter((l) => l.trim() !== "").length).toBeLessThan(15);
    p.send("C-c");
    expect(await p.waitFor((s) => s.includes("EXIT="))).toContain("EXIT=0");
  }, 30_000);

  test("NO_COLOR: no colour sequences on screen, while the selection stays visible", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER });
    const colored = pane();
    colored.start([BIN], root, { TERM: "xterm-256color", FORCE_COLOR: "1" });
    await colored.waitFor((s) => s.includes("UNMET: 2 (met: 0)"));
    expect(colored.captureStyled()).toMatch(/\u001b\[[0-9;]*3[0-7]m|\u001b\[[0-9;]*38;/);
    const plain = pane();
    plain.start([BIN], root, { TERM: "xterm-256color", FORCE_COLOR: "1", NO_COLOR: "1" });
    await plain.waitFor((s) => s.includes("UNMET: 2 (met: 0)"));
    const styled = plain.captureStyled();
    expect(styled).not.toMatch(/\u001b\[[0-9;]*(3[0-7]|9[0-7]|38;[0-9;]+)m/);
    expect(styled).toMatch(/\u001b\[[0-9;]*7m/);
  }, 30_000);

  test("kbz demo opens the example scope from a folder without node_modules", async () => {
    const empty = tempDir();
    const p = pane();
    p.start([BIN, "demo"], empty);
    const screen = await p.waitFor((s) => s.includes("kbz demo") && s.includes("scope checkout"));
    expect(screen).toContain("[1 Graph]");
    // The driver advances the leaves while we watch: a wave starts, then a leaf is verified.
    await p.waitFor((s) => /[●◐] 1\.[12]\s+(in-flight|returned)\s+w1 agent-1\.[12]/.test(s), 20_000);
    await p.waitFor((s) => /✓ 1\.[12]\s+verified/.test(s), 25_000);
    p.send("q");
    const end = await p.waitFor((s) => s.includes("EXIT="));
    expect(end).toContain("EXIT=0");
    // Quitting removes the demo's temporary folder and says what to do next, in one line.
    const unwrapped = end.replace(/\s*\n\s*/g, " ");
    expect(unwrapped).toContain(
      "kbz demo: finished (its example folder is removed); next: in your own repository run kbz init",
    );
    expect(fs.readdirSync(process.env.TMPDIR!).filter((n) => n.startsWith("kbz-demo-"))).toEqual([]);
  }, 60_000);

  test("kbz in a folder without ledgers opens the demo directly, which ends with a banner saying what to press", async () => {
    const empty = tempDir();
    const p = pane(120);
    p.start([BIN], empty);
    await p.waitFor((s) => s.includes("kbz demo") && s.includes("scope checkout"));
    // The driver plays the plan to its end (about 50 steps, one every 0.9 s), then the banner says what next.
    await p.waitFor(
      (s) => s.includes("▶ your turn: approve the root checks: press 4 (Approvals), then a (y confirms)"),
      90_000,
    );
    p.send("q");
    expect(await p.waitFor((s) => s.includes("EXIT="))).toContain("EXIT=0");
    expect(fs.readdirSync(process.env.TMPDIR!).filter((n) => n.startsWith("kbz-demo-"))).toEqual([]);
  }, 120_000);
});

describe("kbz without a terminal", () => {
  test("kbz and kbz dash print the status instead of opening the dashboard", () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER });
    for (const args of [[], ["dash"]]) {
      const r = kbz(args, { cwd: root });
      expect(r.stdout).toContain("UNMET: 2 (met: 0)");
      expect(r.stdout).not.toContain("\u001b[");
      expect(r.code).toBe(1);
    }
  }, 30_000);

  test("kbz demo plays to its end under the person policy of the person's own store (its driver's ticks count in the demo's own store, never UNATTESTED)", () => {
    const r = kbz(["demo"], { cwd: tempDir(), env: { UNLAZY_APPROVAL_DIR: privateApprovalDir() } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  MET         leaf-3.2:G2");
    expect(r.stdout).not.toContain("UNATTESTED");
    expect(r.stdout).toContain("UNMET: 3 (met: 12) [scope checkout]\n");
  });

  test("kbz demo and kbz in an empty folder tell the live demo's story, end with what to do next, and leave nothing behind", () => {
    for (const args of [["demo"], []]) {
      const r = kbz(args, { cwd: tempDir() });
      expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
      expect(r.stdout).toContain("kbz demo: scope checkout, a plan of 6 leaves");
      for (const w of ["w1: leaf-1.1, leaf-1.2", "w2: leaf-2.1, leaf-2.2", "w3: leaf-3.1, leaf-3.2"])
        expect(r.stdout).toContain(`  wave ${w} claimed and launched`);
      expect(r.stdout).toContain("  MET         leaf-3.2:G2");
      expect(r.stdout).toContain("UNMET: 3 (met: 12) [scope checkout]\n");
      expect(r.stdout).toEndWith(
        "next: in your own repository run kbz init (README: your repository in five minutes)\n",
      );
      expect(fs.readdirSync(process.env.TMPDIR!).filter((n) => n.startsWith("kbz-demo-"))).toEqual([]);
    }
  }, 30_000);
});
