// The approval view op (ops/approvalView.ts): the one description of a pending oracle that
// `kbz approve` prints and the dashboard's Approvals panel shows.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { approvalView, approvalViewLines } from "../../src/ops/approvalView.ts";
import { pendingTasks } from "../../src/io/check/plan.ts";
import { DEFAULT_TIMEOUT_S, runSettings } from "../../src/ops/checkRun.ts";
import { snapshotForRequest } from "../../src/ops/snapshot.ts";
import { ApprovalStore } from "../../src/io/run/approval.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { agentApprovalDir } from "../helpers/approvals.ts";

function setup(files: Record<string, string>, git = false) {
  const root = fs.realpathSync(tempDir());
  writeTree(root, files);
  if (git) {
    const g = (...a: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: root, encoding: "utf8" });
    g("init", "-q", ".");
    g("add", "-A");
    g("commit", "-qm", "init");
  }
  const env = { PATH: "/usr/bin:/bin", HOME: root, APP_MODE: "one" };
  const store = new ApprovalStore(agentApprovalDir(), root);
  const tasks = (e: Record<string, string> = env) => {
    const snap = snapshotForRequest({ root, files: [], scope: null });
    return pendingTasks(snap, runSettings({ env: e, timeoutS: DEFAULT_TIMEOUT_S }, root), true);
  };
  return { root, env, store, tasks };
}

describe("approvalView", () => {
  test("a package-manager script: the script and the files it names, each with how the CHECK reaches it; ENV names bound", () => {
    const w = setup({
      "GATES.md":
        "- [ ] T1: tests pass\n  CHECK: npm test --silent\n  EXPECT: OK\n  ENV: APP_MODE, GONE\n  ORACLE: spec/*.js\n",
      "package.json": JSON.stringify({ scripts: { test: "node run.js" } }),
      "run.js": "console.log('OK')\n",
      "spec/a.js": "1\n",
    });
    const [t] = w.tasks();
    const v = approvalView(t!, { root: w.root, env: w.env, store: w.store });
    expect(v.qid).toBe("GATES:T1");
    expect(v.ledger).toBe("GATES.md");
    expect(v.files).toEqual([
      { key: "package.json#scripts.posttest", via: "npm test", problem: "missing" },
      { key: "package.json#scripts.pretest", via: "npm test", problem: "missing" },
      { key: "package.json#scripts.test", via: "npm test", problem: null },
      { key: "run.js", via: "node", problem: null },
      { key: "spec/a.js", via: "ORACLE", problem: null },
    ]);
    expect(v.env).toEqual([
      { name: "APP_MODE", set: true },
      { name: "GONE", set: false },
    ]);
    expect(v.lastApproval).toBeNull();
    const lines = approvalViewLines(v);
    expect(lines).toContain(
      "    ORACLE FILES: package.json#scripts.posttest (npm test) [missing], package.json#scripts.pretest (npm test) [missing], package.json#scripts.test (npm test), run.js (node), spec/a.js (ORACLE)",
    );
    expect(lines).toContain("    ENV:    APP_MODE, GONE (unset)");
    expect(lines).toContain("    CHANGED: never approved before");
  });

  test("a CHECK that runs no file: says the CHECK text is the whole oracle", () => {
    const w = setup({ "GATES.md": "- [ ] G1: ok\n  CHECK: printf OK\n  EXPECT: OK\n" });
    const v = approvalView(w.tasks()[0]!, { root: w.root, env: w.env, store: null });
    expect(v.files).toEqual([]);
    expect(approvalViewLines(v)).toContain("    ORACLE FILES: none (the CHECK text is the whole oracle)");
    expect(approvalViewLines(v)).toContain("    ENV:    no names bound (kbz's allow-list only)");
  });

  test("since the last approval: what differs, and a unified diff of the changed file against the approved bytes kbz kept (issue 39)", async () => {
    const w = setup(
      {
        "GATES.md": "- [ ] G1: adds\n  CHECK: sh check.sh\n  EXPECT: ADD_OK\n  ENV: APP_MODE\n",
        "check.sh": "test $((2+2)) = 4 && echo ADD_OK\n",
      },
      true,
    );
    const [t] = w.tasks();
    await w.store.record(t!.file, t!.gate.id, t!.oracle);
    fs.writeFileSync(path.join(w.root, "check.sh"), "echo ADD_OK\n");
    const [now] = w.tasks({ ...w.env, APP_MODE: "two" });
    const v = approvalView(now!, { root: w.root, env: { ...w.env, APP_MODE: "two" }, store: w.store });
    expect(v.lastApproval!.differs).toEqual(["oracle file changed: check.sh", "ENV value changed: APP_MODE"]);
    expect(v.diffs).toEqual([
      {
        file: "check.sh",
        from: "kept",
        lines: [
          "--- check.sh (approved)",
          "+++ check.sh (now)",
          "@@ -1,1 +1,1 @@",
          "-test $((2+2)) = 4 && echo ADD_OK",
          "+echo ADD_OK",
        ],
      },
    ]);
    const lines = approvalViewLines(v);
    expect(lines.slice(lines.findIndex((l) => l.startsWith("    CHANGED")))).toEqual([
      expect.stringMatching(/^    CHANGED since the approval of \d{4}-\d\d-\d\d:$/),
      "      oracle file changed: check.sh",
      "      ENV value changed: APP_MODE",
      "      --- check.sh (approved)",
      "      +++ check.sh (now)",
      "      @@ -1,1 +1,1 @@",
      "      -test $((2+2)) = 4 && echo ADD_OK",
      "      +echo ADD_OK",
    ]);
  });
});
