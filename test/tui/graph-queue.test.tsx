import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { graphPanel, graphRows as rowsWith } from "../../src/tui/panels/Graph.tsx";
import { queuePanel, queueItems as itemsWith } from "../../src/tui/panels/Queue.tsx";
import { leafStates } from "../../src/tui/model.ts";
import type { PlanView } from "../../src/ops/dashboardPlan.ts";
import type { DashData } from "../../src/ops/dashboard.ts";
import { loadData, panelElement } from "../helpers/panel.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { writeDemoFolder } from "../../src/demo/scope.ts";
import { driveOnce, newDriverState } from "../../src/demo/driver.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt, waitForFrame } from "../helpers/ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

function load(root: string, scope: string | null = null, slots = 3): DashData {
  return loadData(root, scope, slots, agentEnv());
}

// The panels as the App derives them: leaf states from the one model.
const graphRows = (plan: PlanView | null) => rowsWith(plan, leafStates(plan));
const queueItems = (plan: PlanView | null) => itemsWith(plan, leafStates(plan));

function graphFrame(data: DashData, selected = 0, height = 20) {
  return render(panelElement(graphPanel, data, { selected, height })).lastFrame() ?? "";
}

function queueFrame(data: DashData, selected = 0) {
  return render(panelElement(queuePanel, data, { selected, height: 20, slots: 3 })).lastFrame() ?? "";
}

/** Drive the demo until `ok` holds for its PLAN (a real scope mid-flight, made by core modules). */
async function demoUntil(ok: (plan: string) => boolean) {
  const f = writeDemoFolder(tempDir());
  const s = newDriverState();
  const planFile = path.join(f.root, ".unlazy/checkout/PLAN.md");
  for (let i = 0; i < 300 && !ok(fs.readFileSync(planFile, "utf8")); i++) await driveOnce(f, s);
  return f;
}

describe("Graph panel", () => {
  test("lays the leaves out in dependency layers with their needs", () => {
    const f = writeDemoFolder(tempDir());
    const g = graphFrame(load(f.root));
    const lines = g.split("\n");
    const at = (id: string) => lines.findIndex((l) => new RegExp(`[○·●◐✓✗] ${id.replace(".", "\\.")} `).test(l));
    expect(lines[at("1.1")]).toMatch(/L1\s+○ 1\.1\s+ready/);
    expect(lines[at("2.1")]).toMatch(/L2\s+· 2\.1\s+waiting\s+← 1\.1, 1\.2/);
    expect(lines[at("3.1")]).toMatch(/L3\s+· 3\.1\s+waiting\s+← 2\.1, 2\.2/);
    expect(at("1.1")).toBeLessThan(at("2.1"));
    expect(at("2.2")).toBeLessThan(at("3.1"));
  });

  test("the selected leaf shows gates, owns, reads, needs and why it is blocked", () => {
    const f = writeDemoFolder(tempDir());
    const data = load(f.root);
    const rows = graphRows(data.plan);
    const g = graphFrame(
      data,
      rows.findIndex((r) => r.row.id === "2.1"),
    );
    expect(g).toMatch(/leaf\s+2\.1  WAITING  layer 2  tier mechanical  planned wave 2/);
    expect(g).toMatch(/gates\s+0\/2 met: G1 UNMET · G2 UNMET/);
    expect(g).toMatch(/owns\s+web\/pay\/\*\*/);
    expect(g).toMatch(/reads\s+web\/cart\/\*\*, web\/api\/\*\*  resources db:test \(write\)/);
    expect(g).toMatch(/needs\s+1\.1 ready, 1\.2 ready/);
    expect(g).toMatch(/dependents\s+3\.1 waiting, 3\.2 waiting/);
    expect(g).toMatch(/blocked\s+dependencies-or-unreleased-leases: needs 1\.1 \(READY\)/);
  });

  test("in-flight leaves show their wave and agent, verified ones their check mark, and the lease holder", async () => {
    const f = await demoUntil((p) => /\| 1\.1 \|.*VERIFIED/.test(p) && /\| 1\.2 \|.*IN-FLIGHT/.test(p));
    const data = load(f.root);
    const rows = graphRows(data.plan);
    const g = graphFrame(
      data,
      rows.findIndex((r) => r.row.id === "1.2"),
    );
    expect(g).toMatch(/✓ 1\.1\s+verified\s+w1 agent-1\.1/);
    expect(g).toMatch(/[●◐] 1\.2\s+(in-flight|returned)\s+w1 agent-1\.2/);
    expect(g).toMatch(/lease\s+held by checkout\/leaf-1\.2: web\/api\/\*\*/);
  });

  test("a returned leaf is shown as returned until it is verified", async () => {
    const f = writeDemoFolder(tempDir());
    const s = newDriverState();
    let g = "";
    for (let i = 0; i < 300; i++) {
      await driveOnce(f, s);
      const d = fs.existsSync(path.join(f.root, ".unlazy/checkout/dispatch.json"))
        ? fs.readFileSync(path.join(f.root, ".unlazy/checkout/dispatch.json"), "utf8")
        : "";
      if (d.includes('"returned": {\n        "leaf-')) {
        g = graphFrame(load(f.root));
        if (g.includes("◐")) break;
      }
    }
    expect(g).toMatch(/◐ \d\.\d\s+returned\s+w\d agent-/);
    // Queue and Graph read one model: a returned leaf is never "in flight" on the Queue.
    const data = load(f.root);
    const states = leafStates(data.plan);
    const returned = [...states].filter(([, st]) => st === "returned").map(([id]) => id);
    expect(returned.length).toBeGreaterThan(0);
    const items = queueItems(data.plan);
    for (const id of returned) {
      expect(items.some((i) => i.leaf === id && i.kind === "active")).toBe(false);
      expect(items.some((i) => i.leaf === id && i.kind === "verify")).toBe(true);
    }
  });

  test("without PLAN.md it says so; an invalid PLAN shows the located error", () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/api/GATES.md": "- [ ] A1: x\n  EVIDENCE: pending\n" });
    expect(graphFrame(load(root))).toContain("no PLAN.md in this scope");
    writeTree(root, {
      ".unlazy/api/PLAN.md":
        "Contract revision: 1.\n\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n| 1 | a/** | 9 | judgment | 1 | READY |\n",
    });
    expect(graphFrame(load(root))).toMatch(/\.unlazy\/api\/PLAN\.md.*9/);
  });

  test("1,000 leaves render only the visible rows", () => {
    const root = tempDir();
    const rows: string[] = [];
    const access: Record<string, unknown> = {};
    const files: Record<string, string> = {};
    for (let i = 1; i <= 1000; i++) {
      rows.push(`| ${i} | src/p${i}/** | ${i > 1 ? i - 1 : "-"} | mechanical | ${i} | WAITING |`);
      access[String(i)] = { complete: true, reads: [], resourceReads: [], resourceWrites: [] };
      files[`.unlazy/big/gates/leaf-${i}.md`] = `OWNS: src/p${i}/**\n\n- [ ] G1: x\n  EVIDENCE: pending\n`;
    }
    files[".unlazy/big/PLAN.md"] =
      `Contract revision: 1.\n\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n`;
    files[".unlazy/big/ACCESS.json"] = JSON.stringify({ schema: 1, contractRevision: 1, leaves: access });
    writeTree(root, files);
    const g = graphFrame(load(root), 500, 20);
    expect(g.split("\n").filter((l) => /[○·●◐✓✗] \d+ /.test(l)).length).toBeLessThanOrEqual(12);
    expect(g).toMatch(/› L501\s+· 501 /);
    expect(g).toContain("of 1000");
  });
});

describe("Queue panel", () => {
  test("shows kbz next's advice: launch with claims, and what waits with the reason", () => {
    const f = writeDemoFolder(tempDir());
    const q = queueFrame(load(f.root));
    expect(q).toContain("DISPATCH: launch the tasks below");
    expect(q).toContain("6 tasks · 3 slots · 0 active · mode orchestrated");
    expect(q).toMatch(/LAUNCH\s+1\.1\s+claim its lease/);
    expect(q).toMatch(/LAUNCH\s+1\.2\s+claim its lease/);
    // Queue reasons in words (issue 31), the scheduler's name kept in the full view.
    expect(q).toMatch(/WAIT\s+2\.1\s+waits for what it needs: needs 1\.1, still ready/);
    expect(q).not.toContain("dependencies-or-unreleased-leases");
    expect(q).toContain("claim  kbz scope claim --scope checkout --leaf leaf-1.1");
  });

  test("an open wave asks for review, naming the wave and its tasks", async () => {
    const f = writeDemoFolder(tempDir());
    writeTree(f.root, {
      ".unlazy/checkout/dispatch.json": JSON.stringify({
        schema: 1,
        waves: {
          w1: { leaves: ["leaf-1.1"], state: "open", openedAt: "2026-12-02T10:00:00.000Z", started: {}, returned: {} },
        },
      }),
    });
    const data = load(f.root);
    const q = queueFrame(
      data,
      queueItems(data.plan).findIndex((i) => i.kind === "review"),
    );
    expect(q).toContain("REVIEW: resolve the items below before launching");
    expect(q).toMatch(/REVIEW\s+resume-open-wave wave w1: concerns 1\.1/);
  });

  test("a scheduler error cut on the panel opens in full with enter", async () => {
    const f = writeDemoFolder(tempDir());
    fs.rmSync(path.join(f.root, ".unlazy/checkout/ACCESS.json"));
    const r = await renderAt(
      <App root={f.root} scope={null} theme={plain} env={agentEnv()} watch={false} slots={3} initialPanel="queue" />,
      40,
      12,
    );
    await waitForFrame(r, (s) => s.includes("kbz next cannot"));
    expect(frame(r)).toContain("…");
    await press(r, KEY.enter);
    const full = frame(r);
    expect(full).toContain("Queue: why it cannot show");
    expect(full.split("\n").slice(3).join(" ").replace(/\s+/g, " ")).toContain(".unlazy/checkout/ACCESS.json");
    expect(full.split("\n").every((l) => l.length <= 40)).toBe(true);
  });

  test("scheduler input errors are shown, located", () => {
    const f = writeDemoFolder(tempDir());
    fs.rmSync(path.join(f.root, ".unlazy/checkout/ACCESS.json"));
    expect(queueFrame(load(f.root))).toMatch(/kbz next cannot advise: \.unlazy\/checkout\/ACCESS\.json/);
  });

  test("o on a queued leaf shows it on the graph; o on a leaf opens its gates", async () => {
    const f = writeDemoFolder(tempDir());
    const r = await renderAt(
      <App root={f.root} scope={null} theme={plain} env={agentEnv()} watch={false} slots={3} initialPanel="queue" />,
    );
    await press(r, "j", "j", "o");
    expect(frame(r)).toContain("[1 Graph]");
    expect(frame(r)).toMatch(/› L2\s+· 2\.1/);
    await press(r, "o");
    expect(frame(r)).toContain("[3 Gates]");
    expect(frame(r)).toMatch(/› UNMET\s+leaf-2\.1:G1/);
  });
});
