// Failed is a state (issue 31): a CHECK whose last run of this definition failed reads FAILED
// with how it ended, in `kbz status` text and JSON; a pass or an edited CHECK clears it.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir, writeTree } from "../../helpers/kbz.ts";
import { runCli } from "../../helpers/cli.ts";
import { agentEnv } from "../../helpers/approvals.ts";

const ledger = (check: string, expect = "OK") =>
  `# Gates\n\n- [ ] G1: the widget builds\n  CHECK: ${check}\n  EXPECT: ${expect}\n  EVIDENCE: pending\n\n- [ ] G2: never run (a manual gate)\n  EVIDENCE: pending\n`;

describe("failed is a state", () => {
  test("exit 3 reads FAILED (exit 3) in status text and JSON, distinct from never-run; a pass clears it", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": ledger("echo nope; exit 3") });
    const env = agentEnv();
    const run = await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    expect(run.code).toBe(1);
    const text = await runCli(["status"], { cwd: root, env });
    expect(text.stdout).toContain("  FAILED      GATES:G1 (exit 3): the widget builds");
    expect(text.stdout).toContain("  UNMET       GATES:G2 (unchecked): never run (a manual gate)");
    const json = JSON.parse((await runCli(["status", "--json"], { cwd: root, env })).stdout);
    expect(json.gates.map((g: { qid: string; state: string; reason: string }) => `${g.qid}=${g.state}:${g.reason}`)).toEqual(["GATES:G1=failed:exit 3", "GATES:G2=unmet:unchecked"]);
    expect(json.counts.unmet).toBe(2);
    expect(json.verdict).toBe("unmet");

    // A run that ends without the EXPECT says so.
    writeTree(root, { "GATES.md": ledger("echo nope", "OK") });
    await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    expect((await runCli(["status"], { cwd: root, env })).stdout).toContain("FAILED      GATES:G1 (EXPECT not matched)");

    // An edited CHECK has not failed yet: the record speaks for the definition that ran.
    writeTree(root, { "GATES.md": ledger("echo fixed") });
    expect((await runCli(["status"], { cwd: root, env })).stdout).toContain("UNMET       GATES:G1 (unchecked)");

    writeTree(root, { "GATES.md": ledger("echo OK") });
    await runCli(["check", "--approve", "GATES.md"], { cwd: root, env });
    const after = JSON.parse(fs.readFileSync(path.join(root, ".kbz", "failures.json"), "utf8"));
    expect(after.gates).toEqual({});
    expect((await runCli(["status", "--all"], { cwd: root, env })).stdout).toContain("MET         GATES:G1: the widget builds");
  });
});
