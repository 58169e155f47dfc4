// runChecks in-process: the same engine the CLI prints and receipts call.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runChecks, type CheckRequest } from "../../src/ops/checkRun.ts";
import { UsageError } from "../../src/core/errors.ts";
import { definitionDigest } from "../../src/core/ledger/digest.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { agentApprovalDir } from "../helpers/approvals.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const gate = (id: string, check: string, expectText: string) =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ${expectText}\n  EVIDENCE: pending\n`;

function workspace(files: Record<string, string>) {
  const root = tempDir();
  writeTree(root, files);
  const env = { PATH: "/usr/bin:/bin", UNLAZY_APPROVAL_DIR: agentApprovalDir() };
  const check = (over: Partial<CheckRequest> = {}) =>
    runChecks({ root, files: [], reverify: false, approve: false, jobs: 1, timeoutS: 10, env, ...over });
  return { root, env, check };
}

describe("runChecks", () => {
  test("returns structured results: approvals, per-run outcomes, reduction and exit", async () => {
    const { check } = workspace({ "GATES.md": [gate("G1", "printf ok", "ok"), gate("G2", "exit 4", "ok")].join("\n") });
    const first = await check();
    expect(first.approvals.map((a) => a.status)).toEqual(["required", "required"]);
    expect(first.runs).toEqual([]);
    expect(first.exit).toBe(1);
    const res = await check({ approve: true });
    expect(res.approvals.map((a) => a.status)).toEqual(["recorded", "recorded"]);
    expect(res.runs.map((r) => [r.task.qid, r.outcome.ok, r.outcome.exitCode, r.writeback])).toEqual([
      ["GATES:G1", true, 0, "written"],
      ["GATES:G2", false, 4, "unchanged"],
    ]);
    expect(res.reduction).toMatchObject({ met: 1, unmet: 1, verdict: "unmet", unmetIds: ["GATES:G2"] });
    expect(res.snapshot.gates.map((g) => g.state)).toEqual(["met", "failed"]);
    expect(res.exit).toBe(1);
  });

  test("observer events arrive in order: loaded, approvals, willRun, started/finished per task", async () => {
    const { check } = workspace({ "GATES.md": [gate("G1", "printf a", "a"), gate("G2", "printf b", "b")].join("\n") });
    const events: string[] = [];
    await check({
      approve: true,
      observer: {
        loaded: () => events.push("loaded"),
        approval: (a) => events.push(`approval ${a.task.gate.id}`),
        willRun: (ts) => events.push(`willRun ${ts.length}`),
        started: (t) => events.push(`start ${t.gate.id}`),
        finished: (t) => events.push(`finish ${t.gate.id}`),
      },
    });
    expect(events).toEqual([
      "loaded",
      "approval G1",
      "approval G2",
      "willRun 2",
      "start G1",
      "finish G1",
      "start G2",
      "finish G2",
    ]);
  });

  test("reverify: a previously met gate that could not run counts against met as (reverify not run)", async () => {
    const { check } = workspace({ "GATES.md": gate("G1", "printf ok", "ok") });
    await check({ approve: true });
    const res = await check({ reverify: true, timeoutS: 11 });
    expect(res.runs).toEqual([]);
    expect(res.extras).toEqual(["GATES:G1 (reverify not run)"]);
    expect(res.reduction).toMatchObject({ met: 0, unmet: 1, verdict: "unmet" });
    expect(res.note).toBe(", reran: 0, previously met reverified: 0");
  });

  test("a stale result whose gate still reads met is discarded and counted unmet", async () => {
    const { root, check } = workspace({ "GATES.md": gate("G1", "printf ok", "ok") });
    await check({ approve: true });
    const file = path.join(root, "GATES.md");
    const met = fs.readFileSync(file, "utf8");
    const res = await check({
      reverify: true,
      // Mid-run, edit EXPECT and re-key the evidence to the new digest: the gate still
      // reads met, but the result that ran is stale.
      observer: {
        started: () => {
          const digestOld = /definition-sha256=([0-9a-f]{64})/.exec(met)![1]!;
          const digestNew = definitionDigest("printf ok", "o", null);
          fs.writeFileSync(file, met.replace("EXPECT: ok", "EXPECT: o").replace(digestOld, digestNew));
        },
      },
    });
    expect(res.runs.map((r) => r.writeback)).toEqual(["stale"]);
    expect(res.extras).toEqual(["GATES:G1 (stale result discarded)"]);
    expect(res.reduction.verdict).toBe("unmet");
    expect(res.note).toBe(", reran: 1, previously met reverified: 0");
  });

  test("usage problems throw before anything runs", async () => {
    const { root, check } = workspace({ "GATES.md": gate("G1", "touch ran", "x") });
    await expect(check({ shell: "definitely-missing-shell", approve: true })).rejects.toThrow(UsageError);
    await expect(check({ cwd: "missing", approve: true })).rejects.toThrow("--cwd is not an existing directory");
    expect(fs.existsSync(path.join(root, "ran"))).toBe(false);
  });
});
