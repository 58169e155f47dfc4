// Claims, releases, structure operations and check results reach the scope's status log with a
// time, written by the commands that do them, and the dashboard's Log shows them.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import { checkEvents, logEvent, stamped } from "../../../src/io/coordination/events.ts";
import { filesCoordination } from "../../../src/io/coordination/files.ts";
import { App } from "../../../src/tui/App.tsx";
import { makeTheme } from "../../../src/tui/theme.ts";
import { agentEnv } from "../../helpers/approvals.ts";
import { kbz, tempDir, writeTree } from "../../helpers/kbz.ts";
import { frame, press, renderAt, waitForFrame } from "../../helpers/ink.ts";

afterEach(() => cleanup());
const T = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

describe("status log events", () => {
  test("a line gets the time in front unless it starts with one", () => {
    const now = new Date("2026-12-03T10:00:00.000Z");
    expect(stamped("claim leaf-1: a/**", now)).toBe("2026-12-03T10:00:00.000Z claim leaf-1: a/**");
    expect(stamped("2026-12-02T09:00:00.000Z dispatch w1 sealed", now)).toBe(
      "2026-12-02T09:00:00.000Z dispatch w1 sealed",
    );
    expect(
      checkEvents([
        { task: { qid: "A:G1" }, outcome: { ok: true, error: null, exitCode: 0 } },
        { task: { qid: "A:G2" }, outcome: { ok: false, error: null, exitCode: 3 } },
        { task: { qid: "A:G3" }, outcome: { ok: false, error: "timed out after 5s", exitCode: null } },
        { task: { qid: "A:G4" }, outcome: { ok: false, error: null, exitCode: 0 } },
      ]),
    ).toEqual([
      "check A:G1 passed",
      "check A:G2 failed: exit 3",
      "check A:G3 failed: timed out after 5s",
      "check A:G4 failed: EXPECT did not match",
    ]);
  });

  test("a failed append is a warning, never an exception", async () => {
    const root = tempDir();
    const warning = await logEvent(filesCoordination(root), "gone", "claim leaf-1: a/**");
    expect(warning).toMatch(/^kbz: warning: claim done; status log append skipped: /);
  });

  test("kbz check in a scope logs each result; the dashboard's Log shows claims and checks with their times", async () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md":
        "# Gates\n\n- [ ] G1: passes\n  CHECK: echo OK\n  EXPECT: OK\n  EVIDENCE: pending\n\n- [ ] G2: fails\n  CHECK: exit 4\n  EXPECT: OK\n  EVIDENCE: pending\n",
      ".unlazy/api/gates/leaf-1.md": "OWNS: src/**\n\n# Gates\n\n- [ ] L1: reviewed\n  EVIDENCE: pending\n",
    });
    const env = agentEnv();
    expect(kbz(["scope", "claim", "--scope", "api", "--leaf", "leaf-1"], { cwd: root, env }).code).toBe(0);
    const r = kbz(["check", "--scope", "api", "--approve"], { cwd: root, env });
    expect(r.code).toBe(1);
    const lines = fs.readFileSync(path.join(root, ".unlazy/api/status.log"), "utf8").trimEnd().split("\n");
    for (const l of lines) expect(l).toMatch(T);
    expect(lines.map((l) => l.replace(T, ""))).toEqual([
      "claim leaf-1: src/**",
      "check GATES:G1 passed",
      "check GATES:G2 failed: exit 4",
    ]);
    const app = await renderAt(
      <App root={root} scope="api" theme={makeTheme({ NO_COLOR: "1" })} watch={false} env={env} initialPanel="log" />,
      100,
      20,
    );
    const f = await waitForFrame(app, (s) => s.includes("check GATES:G2 failed: exit 4"));
    // Times of day, HH:MM:SS (issue 31); the full time is in the line's full view.
    expect(f).toMatch(/\d\d:\d\d:\d\d claim leaf-1: src\/\*\*/);
    // Unmet-only keeps the lines that need attention.
    await press(app, "u");
    expect(frame(app)).toContain("check GATES:G2 failed");
    expect(frame(app)).not.toContain("check GATES:G1 passed");
    app.unmount();
  });
});
