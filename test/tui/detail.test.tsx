// The dashboard's full views and list tools: the gate detail with its last run's output, signing
// a manual gate, the `/` filter, unmet-only, and the scope picker with verdicts.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt, waitForFrame } from "../helpers/ink.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

const LEDGER = `# Gates

- [ ] G1: the widget builds
  CHECK: printf 'step %s\\n' one two three; echo "broken at line" $((3+4)) >&2; exit 3
  EXPECT: BUILD_OK
  EVIDENCE: pending

- [ ] G2: copy reviewed
  EVIDENCE: pending

- [x] G3: logo approved
  EVIDENCE: approved by Ana
`;

function workspace() {
  const root = tempDir();
  writeTree(root, { "GATES.md": LEDGER });
  return { root, env: agentEnv() };
}

describe("gate detail view", () => {
  test("enter shows CHECK, EXPECT, CWD, the approval's bindings, the evidence and the last run's output", async () => {
    const { root, env } = workspace();
    const r = await renderAt(
      <App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />,
      100,
      40,
    );
    await press(r, "a");
    await Bun.sleep(READ_MS);
    await press(r, "G", "y"); // the whole view on screen first (issue 44 item 6)
    await waitForFrame(r, (f) => f.includes("approved GATES:G1"));
    await press(r, "3", "r");
    await waitForFrame(r, (f) => f.includes("GATES:G1 failed"));
    await press(r, KEY.enter);
    const f = await waitForFrame(r, (s) => s.includes("broken at line 7"));
    expect(f).toMatch(/Gate GATES:G1\ngate\s+GATES:G1  the widget builds/);
    expect(f).toMatch(/CHECK\s+printf 'step %s\\n' one two three/);
    expect(f).toMatch(/EXPECT\s+BUILD_OK/);
    expect(f).toMatch(new RegExp(`CWD\\s+${root.replace(/[/.]/g, "\\$&")}`));
    expect(f).toMatch(/approval\s+approved for exactly these bindings/);
    expect(f).toMatch(/PATH\s+\/usr\/bin:\/bin/);
    expect(f).toMatch(/state\s+FAILED \(exit 3\)/);
    expect(f).toMatch(/last run\s+failed: exit 3/);
    // stdout, then stderr (the canonical output joins them with a newline).
    expect(f).toMatch(/output\s+step one\n\s+step two\n\s+step three\n\s*\n\s+broken at line 7/);
    // Back to the list, same gate selected.
    await press(r, KEY.escape);
    expect(frame(r)).toMatch(/› FAILED \(exit 3\)\s+GATES:G1/);
  });

  test("a manual gate is signed with typed evidence; a runnable one is not offered s", async () => {
    const { root, env } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} watch={false} />, 100, 24);
    expect(frame(r)).not.toContain("s sign");
    await press(r, "s");
    expect(frame(r)).toContain("s sign is not for this item");
    expect(frame(r)).not.toContain("evidence for");
    await press(r, "j", "s");
    expect(frame(r)).toContain("evidence for GATES:G2:");
    // Letters are text here: q, j and a do not quit, move or approve.
    await press(r, "read the copy, q and j included");
    await press(r, KEY.enter);
    await waitForFrame(
      r,
      (f) => f.includes("signed GATES:G2 (given via dashboard)") && f.includes("UNMET: 1 (met: 2)"),
    );
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toContain(
      "- [x] G2: copy reviewed\n  EVIDENCE: read the copy, q and j included\n",
    );
    // esc cancels without writing.
    await press(r, "k", "j", "j", "s", "x", KEY.escape);
    expect(frame(r)).not.toContain("evidence for");
  });
});

describe("list tools", () => {
  test("/ filters the list as you type, enter keeps it, esc clears it; u hides what is done", async () => {
    const { root, env } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} watch={false} />, 100, 24);
    await press(r, "/", "c", "o", "p", "y");
    let f = frame(r);
    expect(f).toContain("/copy▏");
    expect(f).toMatch(/› UNMET\s+GATES:G2/);
    expect(f).not.toContain("GATES:G1 ");
    expect(f).toContain("2 hidden");
    await press(r, KEY.enter);
    expect(frame(r)).toMatch(/\/copy  enter detail .*esc back/);
    // esc clears a kept filter (and says so where the list is empty).
    await press(r, KEY.escape);
    expect(frame(r)).toContain("GATES:G1 ");
    await press(r, "/", "z", "z", "z", KEY.enter);
    expect(frame(r)).toContain("3 hidden: esc clears the filter /zzz");
    await press(r, KEY.escape);
    expect(frame(r)).toContain("GATES:G1 ");
    await press(r, "u");
    f = frame(r);
    expect(f).not.toContain("GATES:G3");
    expect(f).toContain("showing only what is not done");
    await press(r, "j");
    expect(frame(r)).toContain("[unmet]");
    await press(r, "u");
    expect(frame(r)).toContain("GATES:G3");
  });

  test("the scope picker shows each scope's verdict and counts, and S opens it again", async () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md": "# Gates\n\n- [ ] A1: api works\n  EVIDENCE: pending\n",
      ".unlazy/docs/GATES.md": "# Gates\n\n- [x] D1: docs read\n  EVIDENCE: read by Dana\n",
      ".unlazy/web/GATES.md": "- [ ] W1: broken\n  CHECK: true\n",
    });
    const r = await renderAt(<App root={root} scope={null} theme={plain} watch={false} />, 100, 20);
    let f = frame(r);
    expect(f).toContain("3 scopes here; choose one");
    expect(f).toMatch(/› api\s+UNMET: 1 \(met: 0\)\s+0\/1 gates met/);
    expect(f).toMatch(/docs\s+ALL MET \(1 met\)\s+1\/1 gates met/);
    expect(f).toMatch(/web\s+INVALID \(1 problem\)/);
    await press(r, "j", KEY.enter);
    expect(frame(r)).toContain("scope docs");
    await press(r, "S");
    f = frame(r);
    expect(f).toContain("esc keeps docs");
    await press(r, KEY.escape);
    expect(frame(r)).toContain("scope docs");
    await press(r, "S", "k", KEY.enter);
    expect(frame(r)).toContain("scope api");
  });
});
