// Issue 31, the person's cockpit, on the real binary in tmux at 200x50, 120x35, 80x24, 80x12 and
// 40x10: one test per numbered problem and size, named after the problem. With KBZ_SCREENS set,
// the screens the closing note shows are saved there.
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, gitRepo } from "../helpers/approvals.ts";
import { PanePool, TUI_SIZES, type TmuxPane, haveTmux } from "../helpers/tmux.ts";
import { writeDemoFolder } from "../../src/demo/scope.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const SIZES = TUI_SIZES;
const panes = new PanePool();
afterAll(() => panes.killAll());

function open(root: string, env: Record<string, string>, w: number, h: number, argv: string[] = [BIN]): TmuxPane {
  return panes.open(argv, root, env, w, h);
}

/** esc alone: a key sent right after it would read as alt-key. */
async function esc(p: TmuxPane): Promise<void> {
  p.send("Escape");
  await Bun.sleep(150);
}

async function quit(p: TmuxPane): Promise<void> {
  p.send("q");
  expect(await p.waitFor((s) => s.includes("EXIT="), 30_000)).toContain("EXIT=0");
  p.kill();
}

/** Save a screen for the closing note when KBZ_SCREENS names a folder. */
function keep(name: string, screen: string): void {
  const dir = process.env.KBZ_SCREENS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.txt`), screen);
}

const footer = (s: string) => s.trimEnd().split("\n").pop() ?? "";

/** The runs of bold text in a line captured with its SGR sequences (tmux capture-pane -e). */
function boldRuns(styled: string): string[] {
  const runs: string[] = [];
  let bold = false;
  let cur = "";
  for (const part of styled.split(/(\u001b\[[0-9;]*m)/)) {
    const sgr = /^\u001b\[([0-9;]*)m$/.exec(part);
    if (!sgr) {
      if (bold) cur += part;
      continue;
    }
    for (const code of sgr[1]!.split(";")) {
      if (code === "1") bold = true;
      else if (code === "" || code === "0" || code === "22") bold = false;
    }
    if (!bold && cur) runs.push(cur), (cur = "");
  }
  if (cur) runs.push(cur);
  return runs.map((r) => r.trim()).filter(Boolean);
}
const wide = (w: number) => w >= 80;

/** Approve the selected check inside the dashboard: a shows it whole, y confirms. */
async function approveHere(p: TmuxPane, qid: string): Promise<void> {
  p.send("a");
  await p.waitFor((s) => s.includes(`approve ${qid}?`));
  await Bun.sleep(READ_MS);
  p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
  await p.waitFor((s) => s.includes(`approved ${qid}`));
}

/** a on the selected approval, then every row of the oracle shown (j scrolls), as one text with rows joined. */
async function readConfirmation(p: TmuxPane, qid: string): Promise<string> {
  p.send("a");
  let seen = await p.waitFor((s) => /y yes · n no$/.test(footer(s)));
  let text = seen;
  for (let i = 0; i < 40 && /rows \d+-\d+ of/.test(seen) && !/rows \d+-(\d+) of \1\b/.test(seen); i++) {
    p.send("j");
    await Bun.sleep(100);
    seen = p.capture();
    text += seen;
  }
  expect(text).toContain(qid);
  return text.replace(/\n\s*/g, " ").replace(/\s+/g, " ");
}

describe.skipIf(!haveTmux())("issue 31: the person's cockpit in tmux", () => {
  for (const [w, h] of SIZES) {
    test(`1. failure reads as failure (${w}x${h}): a running row with spinner and elapsed, its output streaming, then FAILED (exit 3) in the list, the detail and kbz status`, async () => {
      const root = tempDir();
      writeTree(root, {
        "GATES.md":
          "# Gates\n\n- [ ] G1: the widget builds\n  CHECK: echo compiling the widget; sleep 2; echo boom >&2; exit 3\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n\n- [ ] G2: docs reviewed\n  EVIDENCE: pending\n",
      });
      const env = checkEnv();
      const p = open(root, env, w, h);
      await p.waitFor((s) => s.includes("UNMET: 2"));
      p.send("4");
      await p.waitFor((s) => s.includes("GATES:G1"));
      await approveHere(p, "GATES:G1");
      p.send("3");
      await p.waitFor((s) => /\[(3 )?Gat/.test(s));
      p.send("r");
      // Its own row: the gate's row shows the spinner (and elapsed from 80 columns); nothing shifts.
      const running = await p.waitFor(
        (s) => (wide(w) ? /› [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] RUN \d+\.\ds\s+GATES:G1/ : /› [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] GATES:G1/).test(s),
        8000,
      );
      expect(running.split("\n")[2]).toContain("GATES:G1");
      if (h >= 24)
        expect(await p.waitFor((s) => /output\s+compiling the widget/.test(s), 30_000)).toMatch(
          /output\s+compiling the widget/,
        );
      const failed = await p.waitFor((s) => s.includes("GATES:G1 failed"), 15_000);
      if (wide(w)) expect(failed).toMatch(/› FAILED \(exit 3\)\s+GATES:G1/);
      else expect(failed).toMatch(/› ✗ GATES:G1/);
      expect(failed).not.toMatch(/UNMET\s+GATES:G1/);
      p.send("Enter");
      const detail = await p.waitFor((s) => s.includes("Gate GATES:G1"));
      expect(detail).toMatch(/state\s+FAILED \(exit 3\)/);
      keep(`1-failure-${w}x${h}`, detail);
      await quit(p);
      const status = kbz(["status"], { cwd: root, env });
      expect(status.stdout).toContain("  FAILED      GATES:G1 (exit 3): the widget builds");
      expect(status.stdout).toContain("  UNMET       GATES:G2 (unchecked): docs reviewed");
      const json = JSON.parse(kbz(["status", "--json"], { cwd: root, env }).stdout);
      expect(json.gates[0]).toMatchObject({ qid: "GATES:G1", state: "failed", reason: "exit 3" });
    }, 60_000);

    test(`2. the person approves what they can see (${w}x${h}): the whole command is readable, a asks y, approving runs nothing, a removed gate is confirmed in the same panel`, async () => {
      const root = tempDir();
      const check =
        "touch ran-marker; echo the quick brown fox jumps over the lazy dog and keeps running far past the edge of any narrow terminal FOX_OK";
      writeTree(root, {
        "GATES.md": `# Gates\n\n- [ ] G1: the fox runs\n  CHECK: ${check}\n  EXPECT: FOX_OK\n  EVIDENCE: pending\n`,
      });
      const env = checkEnv();
      const p = open(root, env, w, h);
      await p.waitFor((s) => s.includes("UNMET: 1"));
      p.send("4");
      const list = await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s));
      keep(`2-approvals-${w}x${h}`, list);
      p.send("a");
      // The confirmation is asked over the whole oracle; scrolling (j) shows every row of it.
      let seen = await p.waitFor((s) => s.includes("approve GATES:G1?"));
      expect(footer(seen)).toMatch(/approve GATES:G1\? (\(\d+ mor.*?)?y yes · n no/); // rows left to see (issue 44 item 6), cut at 40 columns
      let text = seen;
      for (let i = 0; i < 12 && !/rows \d+-(\d+) of \1\b/.test(seen) && /rows \d+-\d+ of/.test(seen); i++) {
        p.send("j");
        await Bun.sleep(120);
        seen = p.capture();
        text += seen;
      }
      const joined = text.replace(/\n\s*/g, " ").replace(/\s+/g, " ");
      for (const word of check.split(" ")) expect(joined).toContain(word);
      expect(joined).toContain("EXPECT");
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("approved GATES:G1"));
      await Bun.sleep(300);
      expect(fs.existsSync(path.join(root, "ran-marker"))).toBe(false);
      expect(fs.readdirSync(env.UNLAZY_APPROVAL_DIR!).filter((n) => n.endsWith(".json")).length).toBe(1);
      // Removed-gate confirmations live in the same panel: the approved gate leaves its ledger.
      writeAtomic(path.join(root, "GATES.md"), "# Gates\n\n- [ ] G2: the fox was seen\n  EVIDENCE: pending\n");
      const removed = await p.waitFor((s) =>
        (wide(w) ? /› REMOVED\?\s+GATES:G1\s+deleted from GATES\.md/ : /› R GATES:G1/).test(s),
      );
      keep(`2-removed-${w}x${h}`, removed);
      expect(kbz(["status"], { cwd: root, env }).stdout).toContain("REMOVED     GATES:G1");
      p.send("a");
      const asked = await p.waitFor((s) => /y yes · n no$/.test(footer(s)) && s.includes("GATES:G1"));
      if (wide(w)) expect(asked).toContain("Confirm GATES:G1 was removed on purpose?");
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("confirmed removed GATES:G1"));
      await quit(p);
      expect(kbz(["status"], { cwd: root, env }).stdout).not.toContain("REMOVED");
    }, 60_000);

    test(`2. the person approves what they can see (${w}x${h}): the oracle files, the ENV names, and what changed since the last approval with a diff against the approved bytes`, async () => {
      const root = gitRepo({
        "GATES.md":
          "# Gates\n\n- [ ] G1: two and two make four\n  CHECK: sh check.sh\n  EXPECT: ADD_OK\n  ENV: APP_MODE, NEVER_SET\n  ORACLE: t/*.txt\n  EVIDENCE: pending\n",
        "check.sh": "test $((2+2)) = 4 && echo ADD_OK\n",
        "t/a.txt": "a\n",
      });
      const env = checkEnv(undefined, { APP_MODE: "fast" });
      const p = open(root, env, w, h);
      await p.waitFor((s) => s.includes("UNMET: 1"));
      p.send("4");
      await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s));
      let text = await readConfirmation(p, "GATES:G1");
      expect(text).toContain("check.sh (sh)");
      expect(text).toContain("t/a.txt (ORACLE)");
      expect(text).toContain("APP_MODE, NEVER_SET (unset)");
      expect(text).toContain("never approved before");
      await Bun.sleep(READ_MS);
      p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
      await p.waitFor((s) => s.includes("approved GATES:G1"));
      // The agent rewrites the checker: the gate asks again, with what changed and the diff.
      fs.writeFileSync(path.join(root, "check.sh"), "echo ADD_OK\n");
      // Approvals follows the checker (test/tui/oracle-watch.test.ts); here it is also read again on opening.
      p.send("3");
      await p.waitFor((s) => /\[(3 )?Gat/.test(s));
      p.send("4");
      await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s));
      text = await readConfirmation(p, "GATES:G1");
      expect(text).toMatch(/since the approval of \d{4}-\d\d-\d\d/);
      expect(text).toContain("oracle file changed: check.sh");
      expect(text).toContain("--- check.sh (approved)");
      expect(text).toContain("-test $((2+2)) = 4 && echo ADD_OK");
      expect(text).toContain("+echo ADD_OK");
      keep(`2-oracle-diff-${w}x${h}`, p.capture());
      p.send("n");
      await p.waitFor((s) => s.includes("not approved: nothing was recorded"));
      await quit(p);
    }, 60_000);

    test(`3. keys that fit the item (${w}x${h}): per-kind footers, ? help · q quit always, esc clears a kept filter then goes back, ? runs a key, keys highlighted, the wheel moves and clicks select rows and tabs`, async () => {
      const demo = writeDemoFolder(tempDir());
      const env = checkEnv();
      const p = open(demo.root, env, w, h);
      let s = await p.waitFor((x) => x.includes("scope checkout"));
      p.send("3");
      // The first row is the root's runnable I1: r run, never s sign.
      // (The footer too: under load a key typed before the first frame echoes below it once.)
      s = await p.waitFor((x) => /› \S+\s+GATES:I1/.test(x) && /\? help · q quit$/.test(footer(x)));
      expect(footer(s)).toContain("r run");
      expect(footer(s)).not.toContain("s sign");
      // Keys are highlighted: in the footer exactly the keys are bold, never their labels.
      expect(boldRuns(footer(p.captureStyled()))).toEqual(
        footer(p.capture())
          .split(" · ")
          .map((h) => h.split(" ")[0]!),
      );
      // A leaf's manual gate: s sign, never r run or p probe; r says what it is for instead of refusing later.
      p.send("/", "1", ".", "1", ":", "G", "1", "Enter");
      s = await p.waitFor((x) => /› \S+\s+leaf-1\.1:G1/.test(x) && !x.includes("▏"));
      expect(footer(s)).toMatch(/\? help · q quit$/);
      if (w >= 80) expect(footer(s)).toContain("s sign");
      expect(footer(s)).not.toMatch(/\br run\b|\bp probe\b/);
      p.send("r");
      await p.waitFor((x) => x.includes("r run is not for this item"));
      // esc clears the kept filter first.
      await esc(p);
      s = await p.waitFor((x) => x.includes("GATES:I1") && x.includes("GATES:I2"));
      // o on a leaf pushes its gates; esc comes back to the graph.
      p.send("1");
      await p.waitFor((x) => /› \S*\s*L1\s+\S+ 1\.1/.test(x) || /› L1/.test(x));
      p.send("o");
      s = await p.waitFor((x) => /\[(3 )?Gat/.test(x) && /› \S+\s+leaf-1\.1:G1/.test(x));
      await esc(p);
      await p.waitFor((x) => /\[(1 )?Gra/.test(x));
      // The grouped help runs a key: u (only what is not done) from the help.
      p.send("?");
      s = await p.waitFor((x) => x.includes("Keys: enter runs") || x.includes("Keys:"));
      keep(`3-help-${w}x${h}`, s);
      expect(footer(s)).toMatch(/\? help · q quit$/);
      await esc(p);
      await p.waitFor((x) => !x.includes("Keys: enter runs"));
      // A click on a row selects it.
      p.send("3");
      await p.waitFor((x) => /\[(3 )?Gat/.test(x));
      p.send("-l", "\u001b[<0;3;5M");
      await p.waitFor((x) => x.split("\n")[4]!.startsWith("›"));
      // The wheel moves the selection: from the first gate, two down, one up.
      p.send("g");
      await p.waitFor((x) => /› \S+\s+GATES:I1/.test(x));
      p.send("-l", "\u001b[<65;3;5M");
      p.send("-l", "\u001b[<65;3;5M");
      await p.waitFor((x) => /› \S+\s+GATES:I3/.test(x));
      p.send("-l", "\u001b[<64;3;5M");
      await p.waitFor((x) => /› \S+\s+GATES:I2/.test(x));
      // A click on a tab switches to its panel.
      const tabs = p.capture().split("\n")[1]!;
      const at = tabs.indexOf("App");
      expect(at).toBeGreaterThan(0);
      p.send("-l", `\u001b[<0;${at + 1};2M`);
      await p.waitFor((x) => /\[(4 )?App/.test(x.split("\n")[1]!));
      await quit(p);
    }, 60_000);

    test(`4. space used and state kept (${w}x${h}): side by side from 160 columns, glyphs below 80, Log HH:MM:SS, Queue reasons in words, a new scope never moves the view`, async () => {
      const demo = writeDemoFolder(tempDir());
      fs.appendFileSync(
        path.join(demo.root, ".unlazy/checkout/status.log"),
        "2026-12-02T10:00:00.000Z dispatch w1 opened: leaf-1.1\n",
      );
      const env = checkEnv();
      const p = open(demo.root, env, w, h);
      let s = await p.waitFor((x) => x.includes("scope checkout"));
      p.send("3");
      s = await p.waitFor((x) => /› /.test(x) && /\[(3 )?Gat/.test(x));
      if (w >= 160) {
        // The list and the selected gate's detail share the rows, side by side.
        expect(s.split("\n")[2]).toMatch(/GATES:I1.*│gate\s+GATES:I1/);
        keep(`4-side-by-side-${w}x${h}`, s);
      } else if (w < 80) {
        // The state is a glyph and the id column fits its content.
        expect(s).toMatch(/› · GATES:I1 +checkout/);
        keep(`4-gates-${w}x${h}`, s);
      } else expect(s).toMatch(/› UNMET\s+GATES:I1/);
      p.send("j", "j", "j", "j");
      await p.waitFor((x) => /› \S+\s+leaf-1\.1:G2/.test(x));
      // A second scope appears: the open view stays (panel, selection); one line names it.
      writeTree(demo.root, { ".unlazy/other/GATES.md": "# Gates\n\n- [ ] O1: other\n  EVIDENCE: pending\n" });
      s = await p.waitFor((x) => x.includes("new scope other"));
      expect(s).toContain("scope checkout");
      expect(s).toMatch(/› \S+\s+leaf-1\.1:G2/);
      p.send("5");
      s = await p.waitFor((x) => x.includes("dispatch w1 opened"));
      expect(s).toMatch(/\d\d:\d\d:\d\d dispatch w1 opened/);
      expect(s).not.toContain("2026-12-02T10:00:00.000Z");
      p.send("2");
      s = await p.waitFor((x) => x.includes("waits for"));
      expect(s).not.toContain("dependencies-or-unreleased-leases");
      // A write while the view is open keeps the panel and the selection.
      const ledger = path.join(demo.root, ".unlazy/checkout/GATES.md");
      writeAtomic(ledger, fs.readFileSync(ledger, "utf8").replace("# Gates", "# Gates (edited)"));
      await Bun.sleep(400);
      expect(p.capture()).toMatch(/\[(2 )?Que/);
      await quit(p);
    }, 60_000);

    test(`5. the demo guides (${w}x${h}): a banner names the key at each point where the person acts: approve the root checks, run them, sign the manual gate, then ALL MET`, async () => {
      const home = tempDir();
      // The demo keeps its example folder: it is made under this test's own temp folder. Its
      // driver steps every 20 ms here (900 ms for a person) so the plan reaches the root soon.
      const env = {
        ...checkEnv(),
        HOME: home,
        TMPDIR: home,
        KBZ_CACHE_DIR: path.join(home, "cache"),
        KBZ_DEMO_STEP_MS: "20",
      };
      const p = open(home, env, w, h, [BIN, "demo"]);
      const banner = (x: string) => x.split("\n")[2]!;
      let s = await p.waitFor((x) => x.includes("your turn"), 30_000);
      expect(banner(s)).toContain(
        w >= 80
          ? "▶ your turn: approve the root checks: press 4 (Approvals), then a"
          : "▶ your turn: 4, then a approves",
      );
      keep(`5-demo-${w}x${h}`, s);
      p.send("4");
      s = await p.waitFor((x) => /▶ (your turn: )?a /.test(banner(x)));
      expect(banner(s)).toMatch(/GATES:I1/);
      await approveHere(p, "GATES:I1");
      await p.waitFor((x) => /▶ (your turn: )?a .*GATES:I2/.test(banner(x)));
      await approveHere(p, "GATES:I2");
      // Once every leaf is verified, the root's turn: run the approved checks (r).
      const run = (qid: string) =>
        w >= 80
          ? `▶ your turn: run the approved checks: press 3 (Gates), select ${qid}, r`
          : `▶ 3, select ${qid}, r runs it`;
      s = await p.waitFor((x) => banner(x).includes(run("GATES:I1")), 60_000);
      p.send("3");
      await p.waitFor((x) => /› \S+\s+GATES:I1/.test(x));
      p.send("r");
      await p.waitFor((x) => banner(x).includes(run("GATES:I2")), 15_000);
      p.send("j");
      await p.waitFor((x) => /› \S+\s+GATES:I2/.test(x));
      p.send("r");
      // Then sign the manual gate (s), with the evidence typed in the dashboard.
      s = await p.waitFor(
        (x) =>
          banner(x).includes(
            w >= 80
              ? "▶ your turn: sign the manual gate GATES:I3: press 3 (Gates), select it, s"
              : "▶ 3, select GATES:I3, s signs",
          ),
        15_000,
      );
      keep(`5-demo-sign-${w}x${h}`, s);
      p.send("j");
      await p.waitFor((x) => /› \S+\s+GATES:I3/.test(x));
      p.send("s");
      await p.waitFor((x) => footer(x).startsWith("evidence for GATES:"));
      p.send("-l", "tried the flow");
      p.send("Enter");
      s = await p.waitFor((x) => banner(x).includes("✓ ALL MET: the demo is done (q quits)"), 15_000);
      expect(s.split("\n")[0]).toContain("ALL MET");
      await quit(p);
    }, 120_000);
  }
});

describe.skipIf(!haveTmux())("issue 31: a person's acts inside the dashboard", () => {
  test("a person approves, signs and confirms a removed gate entirely inside the dashboard, then kbz status says ALL MET", async () => {
    const root = tempDir();
    const gates = {
      g1: "- [ ] G1: the build prints its token\n  CHECK: echo BUILD_OK\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n",
      g2: "- [ ] G2: the copy was read by a person\n  EVIDENCE: pending\n",
      g3: "- [ ] G3: the legacy importer still works\n  CHECK: echo IMPORT_OK\n  EXPECT: IMPORT_OK\n  EVIDENCE: pending\n",
    };
    writeTree(root, { "GATES.md": `# Gates\n\n${gates.g1}\n${gates.g2}\n${gates.g3}` });
    // The person's terminal: tmux, and no agent host's marker (TmuxPane.start drops them).
    const env = checkEnv();
    const p = open(root, env, 120, 35);
    await p.waitFor((s) => s.includes("UNMET: 3 (met: 0)"));
    // Approve: the whole oracle, y, nothing runs; then r runs it.
    p.send("4");
    await p.waitFor((s) => /APPROVE\?\s+GATES:G1/.test(s) && /APPROVE\?\s+GATES:G3/.test(s));
    await approveHere(p, "GATES:G1");
    await p.waitFor((s) => /› APPROVE\?\s+GATES:G3/.test(s));
    await approveHere(p, "GATES:G3");
    p.send("3");
    await p.waitFor((s) => /› \S+\s+GATES:G1/.test(s));
    p.send("r");
    await p.waitFor((s) => s.includes("UNMET: 2 (met: 1)"), 15_000);
    // Sign the manual gate with typed evidence.
    p.send("j");
    await p.waitFor((s) => /› \S+\s+GATES:G2/.test(s) && footer(s).includes("s sign"));
    p.send("s");
    await p.waitFor((s) => s.includes("evidence for GATES:G2:"));
    p.send("-l", "read the copy on the staging site");
    p.send("Enter");
    await p.waitFor((s) => s.includes("UNMET: 1 (met: 2)"));
    // The agent's shell deletes the approved gate it could not pass: it is REMOVED, never quietly gone.
    const ledger = path.join(root, "GATES.md");
    writeAtomic(ledger, fs.readFileSync(ledger, "utf8").replace(`\n${gates.g3}`, ""));
    await p.waitFor((s) => s.includes("UNMET: 1 (met: 2)") && /Approvals 1/.test(s));
    expect(kbz(["status"], { cwd: root, env }).stdout).toContain("REMOVED     GATES:G3 (deleted from GATES.md;");
    // The person confirms the removal in the Approvals panel: a shows what it means, y confirms.
    p.send("4");
    const listed = await p.waitFor((s) => /› REMOVED\?\s+GATES:G3/.test(s));
    expect(footer(listed)).toContain("a confirm removal");
    p.send("a");
    const asked = await p.waitFor((s) => s.includes("Confirm GATES:G3 was removed on purpose?"));
    expect(footer(asked)).toMatch(/confirm removed GATES:G3\? (\(\d+ mor.*?)?y yes · n no/);
    expect(asked).toContain("deleted from GATES.md");
    keep("6-confirm-removed-120x35", asked);
    await Bun.sleep(READ_MS);
    p.send("G", "y"); // the whole view on screen first (issue 44 item 6)
    const done = await p.waitFor((s) => s.includes("ALL MET (2 met)"));
    expect(done).toContain("confirmed removed GATES:G3");
    keep("6-person-acts-120x35", done);
    await quit(p);
    const status = kbz(["status"], { cwd: root, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("ALL MET (2 met)");
    expect(fs.readFileSync(ledger, "utf8")).toContain(
      "- [x] G2: the copy was read by a person\n  EVIDENCE: read the copy on the staging site\n",
    );
    // Each act is logged in the approval store as given via the dashboard.
    const acts = fs.readFileSync(path.join(env.UNLAZY_APPROVAL_DIR!, "kbz", "acts.log"), "utf8");
    expect(acts).toMatch(/prune.*dashboard.*confirmed removed GATES:G3/);
  }, 90_000);
});
