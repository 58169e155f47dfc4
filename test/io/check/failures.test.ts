// Failed is a state (issue 31), kept as a verdict record (core/trace.ts failureRecord) in
// .kbz/failures/: a CHECK whose last run of this definition failed reads FAILED with how it ended,
// in `kbz status` text and JSON, in the dashboard's reader and in `kbz next`'s facts, all through
// readTrace and gateVerdicts. Like a pass's records it goes stale: an edited CHECK, another
// evidence line or a changed INPUTS file, and the gate reads as plain unmet. A pass clears it.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixtureCopy, tempDir, writeTree } from "../../helpers/kbz.ts";
import { runCli } from "../../helpers/cli.ts";
import { agentEnv } from "../../helpers/approvals.ts";
import { failureRecordsPath } from "../../../src/io/check/failures.ts";
import { readRecordFile } from "../../../src/io/recordFiles.ts";
import { DashboardReader } from "../../../src/ops/dashboard.ts";
import { loadPlanView } from "../../../src/ops/dashboardPlan.ts";

const ledger = (check: string, expect = "OK", extra = "") =>
  `# Gates\n\n- [ ] G1: the widget builds\n  CHECK: ${check}\n  EXPECT: ${expect}\n${extra}  EVIDENCE: pending\n\n- [ ] G2: never run (a manual gate)\n  EVIDENCE: pending\n`;

const stateOf = async (root: string, env: Record<string, string>, qid = "GATES:G1") =>
  (
    JSON.parse((await runCli(["status", "--json", "--all"], { cwd: root, env })).stdout).gates as {
      qid: string;
      state: string;
      reason: string;
    }[]
  ).find((g) => g.qid === qid);

describe("failed is a state, kept as a trace record", () => {
  test("exit 3 reads FAILED (exit 3) in status text and JSON, distinct from never-run; an edited CHECK reads unmet; a pass clears the record", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": ledger("echo nope; exit 3") });
    const env = agentEnv();
    const run = await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    expect(run.code).toBe(1);
    const text = await runCli(["status"], { cwd: root, env });
    expect(text.stdout).toContain("  FAILED      GATES:G1 (exit 3): the widget builds");
    expect(text.stdout).toContain("  UNMET       GATES:G2 (unchecked): never run (a manual gate)");
    const json = JSON.parse((await runCli(["status", "--json"], { cwd: root, env })).stdout);
    expect(
      json.gates.map((g: { qid: string; state: string; reason: string }) => `${g.qid}=${g.state}:${g.reason}`),
    ).toEqual(["GATES:G1=failed:exit 3", "GATES:G2=unmet:unchecked"]);
    expect(json.counts.unmet).toBe(2);
    expect(json.verdict).toBe("unmet");
    // The record: for this definition and this evidence line.
    const file = failureRecordsPath(root, path.join(root, "GATES.md"));
    expect(readRecordFile(file)!.gates.G1).toMatchObject({ evidence: "pending", failure: "exit 3" });

    // A run that ends without the EXPECT says so.
    writeTree(root, { "GATES.md": ledger("echo nope", "OK") });
    await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    expect((await runCli(["status"], { cwd: root, env })).stdout).toContain(
      "FAILED      GATES:G1 (EXPECT not matched)",
    );

    // An edited CHECK has not failed yet: the record speaks for the definition that ran.
    writeTree(root, { "GATES.md": ledger("echo fixed") });
    expect((await runCli(["status"], { cwd: root, env })).stdout).toContain("UNMET       GATES:G1 (unchecked)");

    writeTree(root, { "GATES.md": ledger("echo OK") });
    await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    expect(readRecordFile(file)!.gates).toEqual({});
    expect((await runCli(["status", "--all"], { cwd: root, env })).stdout).toContain(
      "MET         GATES:G1: the widget builds",
    );
  });

  test("with INPUTS the failure goes stale when an input file changes (plain unmet), and holds again when its bytes come back", async () => {
    const root = tempDir();
    writeTree(root, {
      "GATES.md": ledger("grep -q ready src/a.txt && echo OK", "OK", "  INPUTS: src/*.txt\n"),
      "src/a.txt": "not yet\n",
    });
    const env = agentEnv();
    expect((await runCli(["check", "--approve", "GATES.md"], { cwd: root, env })).code).toBe(1);
    expect(await stateOf(root, env)).toMatchObject({ state: "failed", reason: "exit 1" });
    // The agent changes the input: the failure no longer speaks for these files.
    fs.writeFileSync(path.join(root, "src/a.txt"), "maybe\n");
    expect((await stateOf(root, env))!.state).toBe("unmet");
    // A new input file under the glob is a change too.
    fs.writeFileSync(path.join(root, "src/a.txt"), "not yet\n");
    expect((await stateOf(root, env))!.state).toBe("failed");
    fs.writeFileSync(path.join(root, "src/b.txt"), "new\n");
    expect((await stateOf(root, env))!.state).toBe("unmet");
  });

  test("status, the dashboard's reader and kbz next's facts read the same failure; an evidence line edited by hand ends it for all three", async () => {
    const dir = fs.realpathSync(fixtureCopy("next-golden"));
    const leaf = ".unlazy/api/gates/leaf-1.md";
    const text =
      "OWNS: src/1/**\n\n- [ ] G1: leaf 1 deliverable\n  CHECK: cat src/1/a.txt\n  EXPECT: ok\n  EVIDENCE: pending\n";
    writeTree(dir, { [leaf]: text, "src/1/a.txt": "not ready\n" });
    const env = agentEnv();
    expect((await runCli(["check", "--approve", leaf], { cwd: dir, env })).code).toBe(1);
    const three = async () => {
      const status = await stateOf(dir, env, "leaf-1:G1");
      const saved = process.env.UNLAZY_APPROVAL_DIR;
      process.env.UNLAZY_APPROVAL_DIR = env.UNLAZY_APPROVAL_DIR;
      try {
        const view = new DashboardReader({ root: dir, scope: "api", slots: 4, env }).read();
        if (view.kind !== "ready") throw new Error(view.kind);
        const dash = view.data.snapshot.gates.find((g) => g.qid === "leaf-1:G1")!;
        const next = loadPlanView(dir, "api", 4, [])!.next!.tasks.get("1")!.gates[0];
        return [status!.state, dash.state, next];
      } finally {
        process.env.UNLAZY_APPROVAL_DIR = saved;
      }
    };
    expect(await three()).toEqual(["failed", "failed", "failed"]);
    writeTree(dir, { [leaf]: text.replace("EVIDENCE: pending", "EVIDENCE: pending (looked at it)") });
    expect(await three()).toEqual(["unmet", "unmet", "unmet"]);
  });
});
