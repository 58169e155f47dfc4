import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { gatesPanel } from "../../src/tui/panels/Gates.tsx";
import { logPanel } from "../../src/tui/panels/Log.tsx";
import type { DashData } from "../../src/ops/dashboard.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { loadData, panelElement } from "../helpers/panel.tsx";
import { tempDir, writeTree } from "../helpers/kbz.ts";

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

function dataFor(files: Record<string, string>, scope: string | null = null): DashData {
  const root = tempDir();
  writeTree(root, files);
  return loadData(root, scope);
}

function gatesFrame(
  data: DashData,
  selected = 0,
  height = 20,
  running: { qid: string; startedAt: number; output?: string }[] = [],
  now = 0,
  width = 80,
) {
  const state = { running: running.map((r) => ({ output: "", ...r })) };
  return render(panelElement(gatesPanel, data, { selected, height, width, state, now })).lastFrame() ?? "";
}

const LEDGER = `# Gates

- [x] G1: parser accepts the sample
  CHECK: bun test parser
  EXPECT: 0 fail
  EVIDENCE: automatic-evidence=v1; definition-sha256=00; exit=0; EXPECT=matched

- [x] G2: copy reviewed
  EVIDENCE: reviewed by Dana

- [ ] G3: docs updated
  EVIDENCE: pending

- [ ] G4: legacy import
  EVIDENCE: pending

ABANDON: G4 dropped upstream
`;

describe("Gates panel", () => {
  test("every gate shows its state: stale, met, unmet, abandoned", () => {
    const f = gatesFrame(dataFor({ "GATES.md": LEDGER }));
    expect(f).toMatch(/STALE\s+GATES:G1\s+parser accepts the sample/);
    expect(f).toMatch(/MET\s+GATES:G2\s+copy reviewed/);
    expect(f).toMatch(/UNMET\s+GATES:G3/);
    expect(f).toMatch(/ABANDONED\s+GATES:G4/);
  });

  test("the selected gate's detail shows CHECK, EXPECT, last evidence and why it is unmet", () => {
    const f = gatesFrame(dataFor({ "GATES.md": LEDGER }), 0);
    expect(f).toContain("GATES.md:3  runnable");
    expect(f).toContain("CHECK    bun test parser");
    expect(f).toContain("EXPECT   0 fail");
    expect(f).toContain("EVIDENCE automatic-evidence=v1; definition-sha256=00");
    expect(f).toContain("checked but automatic evidence is stale or unbound");
  });

  test("a running check shows on its own row (spinner, elapsed) and its output streams into the detail", () => {
    const f = gatesFrame(
      dataFor({ "GATES.md": LEDGER }),
      0,
      20,
      [{ qid: "GATES:G1", startedAt: 1000, output: "compiling step 3\n" }],
      3500,
    );
    expect(f).toMatch(/› \S RUN 2\.5s\s+GATES:G1\s+parser accepts the sample/);
    // The list does not shift: the running gate keeps its row, the others theirs.
    expect(f.split("\n")[1]).toMatch(/MET\s+GATES:G2/);
    expect(f).toMatch(/output\s+compiling step 3/);
  });

  test("failed is a state: FAILED (exit 3) in the list and the detail, a glyph below 80 columns", () => {
    const data = dataFor({ "GATES.md": LEDGER });
    const g3 = data.snapshot.gates.find((g) => g.qid === "GATES:G3")!;
    // What the reader makes of an unchecked gate whose last run failed (io/check/failures.ts).
    Object.assign(g3, { state: "failed", reason: "exit 3" });
    const wide = gatesFrame(data, 2, 20, [], 0, 120);
    expect(wide).toMatch(/› FAILED \(exit 3\)\s+GATES:G3/);
    expect(wide).toMatch(/state\s+FAILED \(exit 3\)/);
    expect(gatesFrame(data, 2, 20, [], 0, 60)).toMatch(/› ✗ GATES:G3 +docs updated/);
  });

  test("an invalid ledger is listed with file, line and message", () => {
    const f = gatesFrame(dataFor({ "GATES.md": "- [ ] G1: x\n  CHECK: true\n" }));
    expect(f).toMatch(/INVALID\s+GATES\.md:1: gate G1: runnable gates require/);
    expect(f.replace(/\s*\n\s*/g, " ")).toContain("require both non-blank CHECK and EXPECT");
  });

  test("repository text is sanitized: escape sequences and bidi controls never reach the terminal", () => {
    const evil =
      "# Gates\n\n- [ ] G1: title \u001b[2J\u001b]0;pwned\u0007 with \u202eevil\u2066 text\n  EVIDENCE: pending \u001b[31mred\n";
    const f = gatesFrame(dataFor({ "GATES.md": evil }));
    expect(f).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(f).toContain("title  [2J ]0;pwned  with \\u202ee…"); // cut to the row's width
  });

  test("10,000 gates render only the visible rows", () => {
    let text = "# Gates\n\n";
    for (let i = 0; i < 10_000; i++) text += `- [ ] G${i}: gate number ${i}\n  EVIDENCE: pending\n\n`;
    const data = dataFor({ "GATES.md": text });
    const f = gatesFrame(data, 5000, 20);
    const rows = f.split("\n").filter((l) => /GATES:G\d+ /.test(l) && /UNMET/.test(l));
    expect(rows.length).toBeLessThan(20);
    expect(f).toMatch(/› UNMET\s+GATES:G5000 /);
    expect(f).toContain("of 10000");
    expect(f).not.toContain("GATES:G4980 ");
  });
});

function logBox(
  log: { file: string | null; lines: string[]; problem: string | null },
  selected: number,
  width: number,
  height: number,
) {
  const data = { ...dataFor({ "GATES.md": "# G\n\n- [ ] G1: x\n  EVIDENCE: pending\n" }), log };
  return panelElement(logPanel, data, { selected, width, height });
}

describe("Gates panel counts", () => {
  test("an open dispatch wave is a row, so the header's unmet count matches the rows that are not met", async () => {
    const { App } = await import("../../src/tui/App.tsx");
    const { renderAt, frame } = await import("../helpers/ink.ts");
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md":
        "# Gates\n\n- [ ] A1: one\n  EVIDENCE: pending\n\n- [x] A2: two\n  EVIDENCE: read by Dana\n",
      ".unlazy/api/dispatch.json": JSON.stringify({
        schema: 1,
        waves: {
          w1: { leaves: ["leaf-1"], state: "open", openedAt: "2026-12-02T10:00:00.000Z", started: {}, returned: {} },
        },
      }),
    });
    const r = await renderAt(<App root={root} scope={null} theme={plain} watch={false} />);
    const f = frame(r);
    const unmet = Number(/UNMET: (\d+)/.exec(f)![1]);
    const rows = f.split("\n").filter((l) => /^[›\s] (UNMET|WAVE|STALE|NO-EVIDENCE)\s/.test(l));
    expect(unmet).toBe(2);
    expect(rows.length).toBe(unmet);
    expect(f).toMatch(/WAVE\s+dispatch:w1 open \(0\/1 started\)/);
    r.unmount();
  });

  test("the header says INVALID (1 problem), in the singular", async () => {
    const { App } = await import("../../src/tui/App.tsx");
    const { renderAt, frame } = await import("../helpers/ink.ts");
    const root = tempDir();
    writeTree(root, { "GATES.md": "- [ ] G1: x\n  CHECK: true\n" });
    const r = await renderAt(<App root={root} scope={null} theme={plain} watch={false} />);
    expect(frame(r)).toContain("INVALID (1 problem)");
    expect(frame(r)).not.toContain("problems");
    r.unmount();
  });
});

describe("Log panel", () => {
  const log = (lines: string[], problem: string | null = null) => ({ file: "/r/.unlazy/s/status.log", lines, problem });

  test("shows the tail, newest last, and scrolls to the selected line", () => {
    const lines = Array.from(
      { length: 300 },
      (_, i) => `2026-12-02T10:00:${String(i % 60).padStart(2, "0")}.000Z event ${i}`,
    );
    const f = render(logBox(log(lines), 299, 80, 10)).lastFrame() ?? "";
    expect(f).toContain("event 299");
    expect(f).not.toContain("event 280 ");
    expect(f).toContain("of 300");
    // Times of day, HH:MM:SS, at every width (issue 31).
    expect(f).toMatch(/› \d\d:\d\d:\d\d event 299/);
    expect(f).not.toContain("2026-12-02T");
  });

  test("outside a scope it says there is no status log", () => {
    const f = render(logBox({ file: null, lines: [], problem: null }, 0, 80, 5)).lastFrame();
    expect(f).toContain("no status log");
  });

  test("an unreadable log is reported, lines are sanitized", () => {
    const f =
      render(
        logBox(log(["bad \u001b[2Jline"], "status log must be one unchanged regular single-link file: x"), 0, 80, 5),
      ).lastFrame() ?? "";
    expect(f).toContain("status log must be one unchanged regular single-link file");
    expect(f).toContain("bad  [2Jline");
    expect(f).not.toContain("\u001b");
  });
});
