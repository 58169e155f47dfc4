// The approval flow on the dashboard: `a` shows the whole oracle and asks `y`; `y` records consent
// for exactly the oracle shown and runs nothing; `r` runs it; `d` declines and nothing runs.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { approvalsPanel } from "../../src/tui/panels/Approvals.tsx";
import { loadApprovals } from "../../src/ops/dashboardActs.ts";
import type { DashData } from "../../src/ops/dashboard.ts";
import { loadData, panelElement } from "../helpers/panel.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt, waitForFrame } from "../helpers/ink.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

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

function approvalsBox(data: DashData, selected: number, width: number, height: number) {
  return panelElement(approvalsPanel, data, { selected, width, height });
}

/** Approve the selected check as a person does: a shows it whole, y confirms (nothing runs). */
async function approve(r: Awaited<ReturnType<typeof renderAt>>, qid: string) {
  await press(r, "a");
  await waitForFrame(r, (f) => f.includes(`Approve ${qid} exactly as shown?`));
  await Bun.sleep(READ_MS);
  await press(r, "G", "y"); // the whole view on screen first (issue 44 item 6)
  await waitForFrame(r, (f) => f.includes(`approved ${qid} (given via dashboard)`));
}

function workspace() {
  const root = tempDir();
  writeTree(root, { "GATES.md": LEDGER });
  const env = agentEnv();
  return { root, env, store: env.UNLAZY_APPROVAL_DIR! };
}

describe("Approvals panel", () => {
  test("lists every runnable gate without an approval, with CHECK, EXPECT, CWD, shell, PATH, oracle files and ENV names in full", () => {
    const { root, env } = workspace();
    const data = loadData(root, null, 4, env);
    expect(data.approvals.items.map((t) => t.qid)).toEqual(["GATES:G1", "GATES:G2"]);
    const f = render(approvalsBox(data, 0, 80, 20)).lastFrame() ?? "";
    expect(f).toMatch(/APPROVE\?\s+GATES:G1\s+touch ran-g1/);
    expect(f).toContain("CHECK   touch ran-g1 && echo BUILD_OK");
    expect(f).toContain("EXPECT  BUILD_OK");
    expect(f).toContain(`CWD     ${root}`);
    expect(f).toContain("shell   /bin/sh");
    expect(f).toContain("PATH    /usr/bin:/bin");
    expect(f).toContain("files   none (the CHECK text is the whole oracle)");
    expect(f).toContain("ENV     no names bound (kbz's allow-list only)");
    expect(f).toContain("changed never approved before");
  });

  test("a very long PATH is shown in full over several rows", () => {
    const { root, env } = workspace();
    const long = Array.from({ length: 12 }, (_, i) => `/opt/tool-${i}/bin`).join(":");
    const data = loadData(root, null, 4, { ...env, PATH: long });
    const f = render(approvalsBox(data, 0, 80, 22)).lastFrame() ?? "";
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
  return loadData(root, null, 4, env).snapshot;
}

describe("approval detail on a small terminal", () => {
  test("enter gives an approval's detail the whole panel, so a long PATH is shown in full on 80x24", async () => {
    const { root, env } = workspace();
    const long = Array.from({ length: 35 }, (_, i) => `/opt/toolchain-${i}/bin`).join(":");
    const r = await renderAt(
      <App
        root={root}
        scope={null}
        theme={plain}
        env={{ ...env, PATH: long }}
        watch={false}
        initialPanel="approvals"
      />,
    );
    expect(frame(r)).toContain("more rows; enter shows all");
    await press(r, KEY.enter);
    expect(frame(r)).not.toContain("more rows");
    expect(frame(r).replace(/\n\s*/g, "")).toContain(long);
    expect(frame(r).split("\n").length).toBeLessThan(24);
  });
});

describe("approval flow", () => {
  test("a shows the whole oracle and asks y; y records the approval of exactly that oracle and runs nothing; r runs it", async () => {
    const { root, env, store } = workspace();
    const before = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    expect(frame(r)).toContain("UNMET: 3 (met: 0)");
    await press(r, "a");
    let f = await waitForFrame(r, (f) => f.includes("Approve GATES:G1 exactly as shown?"));
    expect(f).toContain("CHECK   touch ran-g1 && echo BUILD_OK");
    expect(f).toMatch(/approve GATES:G1\? y yes · n no/);
    await Bun.sleep(READ_MS);
    await press(r, "G", "y"); // the whole view on screen first (issue 44 item 6)
    f = await waitForFrame(r, (f) => f.includes("approved GATES:G1 (given via dashboard); r runs it"));
    expect(f).not.toMatch(/APPROVE\?\s+GATES:G1/);
    expect(f).toMatch(/APPROVE\?\s+GATES:G2/);
    await Bun.sleep(200);
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toBe(before);
    expect(fs.readdirSync(store).filter((n) => n.endsWith(".json")).length).toBe(1);
    await press(r, "3", "r");
    f = await waitForFrame(r, (f) => f.includes("UNMET: 2 (met: 1)"));
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(true);
    expect(fs.existsSync(path.join(root, "ran-g2"))).toBe(false);
    const text = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    expect(text).toMatch(
      /- \[x\] G1: the build prints its banner\n  CHECK: .*\n  EXPECT: BUILD_OK\n  EVIDENCE: automatic-evidence=v1; /,
    );
    expect(text).toContain("- [ ] G2: the linter is clean");
  });

  test("any key but y cancels the confirmation: nothing is recorded", async () => {
    const { root, env, store } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(r, "a");
    await waitForFrame(r, (f) => f.includes("Approve GATES:G1 exactly as shown?"));
    await press(r, "x");
    const f = await waitForFrame(r, (f) => f.includes("not approved: nothing was recorded"));
    expect(f).toMatch(/APPROVE\?\s+GATES:G1/);
    expect(fs.readdirSync(store).filter((n) => n.endsWith(".json"))).toEqual([]);
  });

  test("r in Approvals never runs an unapproved check: it says a approves first", async () => {
    const { root, env } = workspace();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await press(r, "r");
    await waitForFrame(r, (f) =>
      f.includes("GATES:G1 is not approved yet: a approves it (y confirms), then r runs it"),
    );
    await Bun.sleep(200);
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(false);
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

  test("a failing check, approved then run, reads FAILED with the failure in the footer", async () => {
    const root = tempDir();
    writeTree(root, {
      "GATES.md": "- [ ] G1: prints OK\n  CHECK: echo NOPE\n  EXPECT: OK_TOKEN\n  EVIDENCE: pending\n",
    });
    const env = agentEnv();
    const r = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await approve(r, "GATES:G1");
    await press(r, "3", "r");
    const f = await waitForFrame(r, (f) => f.includes("GATES:G1 failed") && f.includes("FAILED"));
    expect(f).toContain("UNMET: 1 (met: 0)");
    expect(f).toMatch(/FAILED \(EXPECT not matched\)/);
  });
});

describe("running from the Gates panel", () => {
  test("L runs the approved checks of the selected ledger; an unapproved one is not run", async () => {
    const { root, env } = workspace();
    const first = await renderAt(<App root={root} scope={null} theme={plain} env={env} initialPanel="approvals" />);
    await approve(first, "GATES:G1");
    await press(first, "3", "r");
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
    await press(first, "j");
    await approve(first, "GATES:G2");
    await approve(first, "GATES:G1");
    await press(first, "3", "r");
    await waitForFrame(first, (f) => f.includes("UNMET: 2 (met: 1)"));
    await press(first, "j", "r");
    await waitForFrame(first, (f) => f.includes("UNMET: 1 (met: 2)"));
    first.unmount();
    const text = fs
      .readFileSync(path.join(root, "GATES.md"), "utf8")
      .replace("- [x] G1", "- [ ] G1")
      .replace("- [x] G2", "- [ ] G2");
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
    await approve(r, "GATES:G1");
    await press(r, "3", "r");
    await waitForFrame(r, (f) => f.includes("UNMET: 2 (met: 1)"));
    fs.rmSync(path.join(root, "ran-g1"));
    await press(r, "R");
    await waitForFrame(r, (f) => f.includes("GATES:G1 passed") && !f.includes(" RUN "));
    expect(fs.existsSync(path.join(root, "ran-g1"))).toBe(true);
  });
});
