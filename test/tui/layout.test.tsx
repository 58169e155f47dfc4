// Every panel, a full view and the help at a grid of terminal sizes: no line wider than the
// terminal, the frame exactly one row shorter than it, header, tabs and footer each on their
// own row, the selected row on screen, and at most one detail rule, below the selection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import stringWidth from "string-width";
import { App } from "../../src/tui/App.tsx";
import type { PanelId, Mode } from "../../src/tui/keys.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { writeDemoFolder, type DemoFolder } from "../../src/demo/scope.ts";
import { driveOnce, newDriverState } from "../../src/demo/driver.ts";
import { splitPane, MIN_DETAIL } from "../../src/tui/layout.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt } from "../helpers/ink.ts";

// The grid, and the largest size the layout promises (300x80).
const WIDTHS = [40, 60, 80, 120, 200, 300];
const HEIGHTS = [10, 12, 14, 24, 50, 80];
const plain = makeTheme({ NO_COLOR: "1" });

let demo: DemoFolder;
let env: Record<string, string>;
let picker: string;

beforeAll(async () => {
  demo = writeDemoFolder(tempDir());
  env = agentEnv();
  // Mid-flight: a verified leaf, leaves in flight, a wave, log lines and a long status line.
  const s = newDriverState();
  const plan = path.join(demo.root, ".unlazy/checkout/PLAN.md");
  for (let i = 0; i < 300 && !/\| 1\.1 \|.*VERIFIED/.test(fs.readFileSync(plan, "utf8")); i++) await driveOnce(demo, s);
  fs.appendFileSync(
    path.join(demo.root, ".unlazy/checkout/status.log"),
    `${new Date().toISOString()} check leaf-2.1:G1 failed: ${"a very long reason ".repeat(20)}\n`,
  );
  picker = tempDir();
  for (const scope of ["api", "web", "docs"]) {
    writeTree(picker, {
      [`.unlazy/${scope}/GATES.md`]: `# Gates\n\n- [${scope === "docs" ? "x" : " "}] G1: ${scope} works\n  EVIDENCE: ${scope === "docs" ? "read by Dana" : "pending"}\n`,
    });
  }
});
afterAll(() => cleanup());

interface Case {
  name: string;
  panel: PanelId;
  keys: string[];
  mode: Mode;
  /** The selected row carries the `›` marker. */
  selection: boolean;
  root?: () => string;
}

const CASES: Case[] = [
  { name: "graph", panel: "graph", keys: ["j", "j", "j"], mode: "list", selection: true },
  { name: "queue", panel: "queue", keys: ["j"], mode: "list", selection: true },
  { name: "gates", panel: "gates", keys: ["j", "j", "j", "j", "j", "j", "j", "j", "j"], mode: "list", selection: true },
  { name: "approvals", panel: "approvals", keys: ["j"], mode: "list", selection: true },
  { name: "log", panel: "log", keys: [], mode: "list", selection: true },
  { name: "gate detail", panel: "gates", keys: ["j", KEY.enter], mode: "detail", selection: false },
  { name: "leaf detail", panel: "graph", keys: ["j", KEY.enter], mode: "detail", selection: false },
  { name: "help", panel: "gates", keys: ["?"], mode: "help", selection: false },
  { name: "scope picker", panel: "gates", keys: ["j"], mode: "pick", selection: true, root: () => picker },
];

describe("layout at every size", () => {
  for (const c of CASES) {
    test(`${c.name}: ${WIDTHS.join(", ")} × ${HEIGHTS.join(", ")}`, async () => {
      for (const w of WIDTHS) {
        for (const h of HEIGHTS) {
          const r = await renderAt(
            <App
              root={c.root ? c.root() : demo.root}
              scope={null}
              theme={plain}
              watch={false}
              env={env}
              slots={3}
              initialPanel={c.panel}
            />,
            w,
            h,
          );
          await press(r, ...c.keys);
          const f = frame(r);
          const lines = f.split("\n");
          const where = `${c.name} at ${w}x${h}:\n${f}`;
          expect(lines.length, where).toBe(h - 1);
          for (const l of lines) expect(stringWidth(l), `${where}\nline: ${l}`).toBeLessThanOrEqual(w);
          expect(lines[0]!.startsWith("kbz"), where).toBe(true);
          expect(/\[[^\]]+\]/.test(lines[1]!), where).toBe(true);
          // The footer row is the footer, whole, and `? help · q quit` is always on it (issue 31).
          expect(lines[h - 2], where).toMatch(/\? help · q quit$/);
          const body = lines.slice(2, h - 2);
          const marked = body.map((l, i) => (l.startsWith("›") || l.startsWith("  ›") ? i : -1)).filter((i) => i >= 0);
          if (c.selection) expect(marked.length, where).toBe(1);
          const rules = body.map((l, i) => (/^─+$/.test(l) ? i : -1)).filter((i) => i >= 0);
          expect(rules.length, where).toBeLessThanOrEqual(1);
          if (rules.length && marked.length) expect(rules[0]!, where).toBeGreaterThan(marked[0]!);
          r.unmount();
        }
      }
      // 36 renders with keys: about 15 s alone, past 60 s on a 2-core machine shared by a busy team.
    }, 240_000);
  }
});

describe("pane split", () => {
  test("the detail pane shrinks first, then collapses; the two always add up", () => {
    for (let h = 0; h <= 80; h++) {
      for (const count of [0, 1, 2, 6, 40, 10_000]) {
        for (const want of [0, 3, 8, 30]) {
          const s = splitPane(h, count, want);
          expect(s.list + s.detail).toBe(Math.max(0, h));
          expect(s.detail === 0 || s.detail >= MIN_DETAIL).toBe(true);
          expect(s.detail).toBeLessThanOrEqual(want);
          if (h >= 1) expect(s.list).toBeGreaterThanOrEqual(Math.min(h, Math.min(Math.max(1, count), 4)));
        }
      }
    }
    expect(splitPane(6, 6, 8)).toEqual({ list: 6, detail: 0 });
    expect(splitPane(20, 1000, 8)).toEqual({ list: 12, detail: 8 });
  });
});
