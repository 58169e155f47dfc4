// The approval flow on the dashboard: `a` records consent for exactly the selected oracle and
// runs it; `d` declines and nothing runs.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { Approvals, approvalSpec } from "../../src/tui/panels/Approvals.tsx";
import { loadApprovals, type ApprovalsView } from "../../src/tui/approvals.ts";
import { listed } from "../../src/tui/model.ts";
import { loadDash } from "../../src/tui/load.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, inBox, press, renderAt, waitForFrame } from "../helpers/ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

// Each CHECK leaves a marker file when it runs, so "nothing ran" is observable.
const LEDGER = `# Gates

- [ ] G1: the build prints its banner
  CHECK: touch ran-g1 && echo BUILD_OK
  EXPECT: BUILD_OK
  EVIDENCE: pending

- [ ] G2: the linter is clean
  CHECK: touch ran-g2 && echo LINT_OK
  EXPECT: LINT_OK
  EVIDENCE: pending

- [ ] G3: copy reviewed
  EVIDENCE: pending
`;

function approvalsBox(view: ApprovalsView, selected: number, width: number, height: number) {
  const list = listed(view.items, approvalSpec([]), "", false);
  return inBox(<Approvals view={view} list={list} declined={[]} selected={selected} />, width, height, plain);
}

function workspace() {
  const root = tempDir();
  writeTree(root, { "GATES.md": LEDGER });
  const env = agentEnv();
  return { root, env, store: env.UNLAZY_APPROVAL_DIR! };
}

describe("Approvals panel", () => {
  test("lists every runnable gate without an approval, with CHECK, EXPECT, CWD, shell and PATH in full", () => {
    const { root, env } = workspace();
    const v = loadDash({ root, scope: null, slots: 4, env });
    if (v.kind !== "ready") throw new Error(v.kind);
    expect(v.data.approvals.items.map((t) => t.qid)).toEqual(["GATES:G1", "GATES:G2"]);
    const f = render(approvalsBox(v.data.approvals, 0, 80, 20)).lastFrame() ?? "";
    expect(f).toMatch(/APPROVE\?\s+GATES:G1\s+touch ran-g1/);
    expect(f).toContain("CHECK  touch ran-g1 && echo BUILD_OK");
    expect(f).toContain("EXPECT BUILD_OK");
    expect(f).toContain(`CWD    ${root}`);
    expect(f).toContain("shell  /bin/sh");
    expect(f).toContain("PATH   /usr/bin:/bin");
  });

  test("a very long PATH is shown in full over several rows", () => {
    const { root, env } = workspace();
    const long = Array.from({ length: 12 }, (_, i) => `/opt/tool-${i}/bin`).join(":");
    const view = loadApprovals(loadOk(root, { ...env, PATH: long }), { ...env, PATH: long });
    const f = render(approvalsBox(view, 0, 80, 22)).lastFrame() ?? "";
    expect(f.replace(/\n\s*/g, "")).toContain(long);
  });

  test("an approval store inside the repository is refused and shown, nothing is listed", () => {
    const { root, env } = workspace();
    const view = loadApprovals(loadOk(root, env), { ...env, UNLAZY_APPROVAL_DIR: path.join(root, "store") });
    expect(view.items).toEqual([]);
    expect(view.problem).toContain("must be outside the repository root");
  });
});

function loadOk(root: string, env: Record<string, string | undefined>) {
  const v = loadDash({ root, scope: null, slots: 4, env });
  if (v.kind !== "ready") throw new Error(v.kind);
  return v.data.snapshot;
}

describe("approval detail on a small terminal", () => {
  test("enter gives an approval's detail the whole panel, so a long PATH is shown in full on 80x24", async () => {
    const { root, env } = workspace();
    const long = Array.from({ length: 35 }, (_, i) => `/opt/toolchain-${i}/bin`).join(":");
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={{ ...env, PATH: long }} watch={false} initialPanel="approvals" />);
    expect(frame(r)).toContain("more rows; enter shows all");
    await press(r, KEY.enter);
    expect(frame(r)).not.toContain("more rows");
    expect(frame(r).replace(/\n\s*/g, "")).toContain(long);
    expect(frame(r).split("\n").length).toBeLessThan(24);
  });
});

describe("approval flow", () => {
  test("a approves the selected check, runs it, and the gate turns met; the other stays unapproved and unrun", async () => {
    const { root, env, store } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    expect(frame(r)).toContain("UNMET: 3 (met: 0)");
    await press(r, "a");
    const f = await waitForFrame(r, (f) => f.includes("UNMET: 2 (met: 1)"));
    expect(f).toContain("GATES:G1 passed");
    expect(f).not.toMatch(/APPROVE\?\s+GATES:G1/);
    expect(f).toMatch(/APPROVE\?\s+GATES:G2/);
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(true);
    expect(fs.existsSync(path.join(root, "ran-g2"))).toBe(false);
    expect(fs.readdirSync(store).filter((n) => n.endsWith(".json")).length).toBe(1);
    const text = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    expect(text).toMatch(/- \[x\] G1: the build prints its banner\n  CHECK: .*\n  EXPECT: BUILD_OK\n  EVIDENCE: automatic-evidence=v1; /);
    expect(text).toContain("- [ ] G2: the linter is clean");
  });

  test("d declines: the gate stays unmet, no approval is recorded and the check never runs", async () => {
    const { root, env, store } = workspace();
    const before = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(r, "d");
    const f = frame(r);
    expect(f).toMatch(/DECLINED\s+GATES:G1/);
    expect(f).toContain("declined GATES:G1: it does not run and stays unmet");
    expect(f).toContain("UNMET: 3 (met: 0)");
    await Bun.sleep(300);
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(false);
    expect(fs.readdirSync(store).filter((n) => n.endsWith(".json"))).toEqual([]);
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toBe(before);
  });

  test("a failing check is approved and run but the gate stays unmet, with the failure in the footer", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": "- [ ] G1: prints OK\n  CHECK: echo NOPE\n  EXPECT: OK_TOKEN\n  EVIDENCE: pending\n" });
    const env = agentEnv();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(r, "a");
    const f = await waitForFrame(r, (f) => f.includes("GATES:G1 failed"));
    expect(f).toContain("UNMET: 1 (met: 0)");
  });
});

describe("running from the Gates panel", () => {
  test("L runs the approved checks of the selected ledger; an unapproved one is not run", async () => {
    const { root, env } = workspace();
    const first = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(first, "a");
    await waitForFrame(first, (f) => f.includes("UNMET: 2 (met: 1)"));
    first.unmount();
    // Un-tick G1 by hand: approved, so r runs it again; G2 is not approved, so it does not run.
    const text = fs.readFileSync(path.join(root, "GATES.md"), "utf8").replace("- [x] G1", "- [ ] G1");
    fs.writeFileSync(path.join(root, "GATES.md"), text);
    fs.rmSync(path.join(root, "ran-g1"));
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="gates" />);
    expect(frame(r)).toContain("UNMET: 3 (met: 0)");
    await press(r, "L");
    const f = await waitForFrame(r, (f) => f.includes("UNMET: 2 (met: 1)"));
    expect(f).toContain("1 not run (approval required: see Approvals)");
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(true);
    expect(fs.existsSync(path.join(root, "ran-g2"))).toBe(false);
  });

  test("r runs just the selected gate: the other approved gate of its ledger does not run", async () => {
    const { root, env } = workspace();
    const first = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(first, "j", "a");
    await waitForFrame(first, (f) => f.includes("UNMET: 2 (met: 1)") && !/APPROVE\?\s+GATES:G2/.test(f));
    await press(first, "a");
    await waitForFrame(first, (f) => f.includes("UNMET: 1 (met: 2)"));
    first.unmount();
    const text = fs.readFileSync(path.join(root, "GATES.md"), "utf8").replace("- [x] G1", "- [ ] G1").replace("- [x] G2", "- [ ] G2");
    fs.writeFileSync(path.join(root, "GATES.md"), text);
    fs.rmSync(path.join(root, "ran-g1"));
    fs.rmSync(path.join(root, "ran-g2"));
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="gates" />);
    await press(r, "j", "r");
    await waitForFrame(r, (f) => f.includes("GATES:G2 passed") && f.includes("UNMET: 2 (met: 1)"));
    expect(fs.existsSync(path.join(root, "ran-g2"))).toBe(true);
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(false);
  });

  test("R re-verifies: a met gate runs again", async () => {
    const { root, env } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(r, "a");
    await waitForFrame(r, (f) => f.includes("UNMET: 2 (met: 1)"));
    fs.rmSync(path.join(root, "ran-g1"));
    await press(r, "3", "R");
    await waitForFrame(r, (f) => f.includes("GATES:G1 passed") && !f.includes("running"));
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(true);
  });
});
