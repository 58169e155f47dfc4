// Issue 20.8: an approval that stops matching says which input differs.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../../helpers/approvals.ts";
import { kbz, tempDir, writeTree } from "../../helpers/kbz.ts";
import { oracleDifferences, pathChanges } from "../../../src/core/run/differ.ts";
import { runtimeOracle } from "../../../src/core/run/oracle.ts";

setDefaultTimeout(60_000);
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const GATE = "- [ ] G1: prints\n  CHECK: printf X_OK\n  EXPECT: X_OK\n  EVIDENCE: pending\n";

function repo(files: Record<string, string>) {
  const dir = tempDir("kbz-explain-");
  const env = agentEnv();
  made.push(dir, env.UNLAZY_APPROVAL_DIR!);
  writeTree(dir, files);
  return {
    dir,
    env,
    run: (args: string[], more: Record<string, string> = {}) => kbz(args, { cwd: dir, env: { ...env, ...more } }),
  };
}

describe("issue 20.8: approvals that stop matching say why", () => {
  test("PATH entries added, removed and moved are named", () => {
    expect(pathChanges("/a:/b:/c", "/c:/a:/d", ":")).toEqual({ added: ["/d"], removed: ["/b"], moved: ["/c", "/a"] });
    const o = (p: string, cwd = "/r") =>
      runtimeOracle({ check: "c", expect: "e", cwd, shell: "/bin/sh", timeoutMs: 1000, path: p });
    expect(oracleDifferences(o("/usr/local/bin:/usr/bin:/bin"), o("/usr/bin:/bin"))).toEqual([
      "PATH: removed /usr/local/bin (since the approval)",
    ]);
    expect(oracleDifferences(o("/bin", "/r/sub"), o("/bin"))).toEqual(["CWD: approved for /r/sub"]);
  });

  test("a shorter PATH: the APPROVAL REQUIRED block and kbz approvals explain name the removed entry", () => {
    const { run } = repo({ "GATES.md": GATE });
    expect(run(["check", "--approve"], { PATH: "/usr/local/bin:/usr/bin:/bin" }).code).toBe(0);
    const r = run(["check", "--reverify"]);
    expect(r.stdout).toMatch(/APPROVAL REQUIRED GATES:G1 \[[0-9a-f]{12}\]\n/);
    expect(r.stdout).toMatch(
      /    APPROVED \d{4}-\d\d-\d\d for other inputs; differs in:\n      PATH: removed \/usr\/local\/bin \(since the approval\)\n/,
    );
    const e = run(["approvals", "explain", "GATES.md", "G1"]);
    expect([e.code, e.stdout]).toEqual([1, expect.stringContaining("GATES:G1: APPROVED")]);
    expect(e.stdout).toContain("  PATH: removed /usr/local/bin (since the approval)\n");
    expect(JSON.parse(run(["approvals", "explain", "GATES.md", "G1", "--json"]).stdout)).toMatchObject({
      schema: 1,
      exit: 1,
      verdict: "approved-for-other-inputs",
      differs: ["PATH: removed /usr/local/bin (since the approval)"],
    });
    expect(
      run(["approvals", "explain", "GATES.md", "G1"], { PATH: "/usr/local/bin:/usr/bin:/bin" }).stdout,
    ).toStartWith("GATES:G1: approved for its current oracle");
  });

  test("an approval bound to the old CHECK directory (the ledger's own folder) is reported as such", () => {
    const { dir, env, run } = repo({ ".unlazy/S/gates/leaf-1.md": "# l\nOWNS: src/**\n\n" + GATE });
    // What older kbz ran: the scope ledger from its own folder, recorded as that CWD.
    expect(run(["check", "--approve", "--cwd", ".unlazy/S/gates", ".unlazy/S/gates/leaf-1.md"]).code).toBe(0);
    const r = run(["check", "--reverify", ".unlazy/S/gates/leaf-1.md"]);
    expect(r.stdout).toContain(`      CWD: approved for ${path.join(dir, ".unlazy/S/gates")}\n`);
    expect(r.stdout).toContain(
      "that approval predates the CHECK directory rule: scope ledgers now run from the repository root",
    );
    void env;
  });

  test("approvals list shows what each record is bound to", () => {
    const { dir, run } = repo({ "GATES.md": GATE });
    run(["check", "--approve"]);
    const l = run(["approvals", "list"]);
    expect(l.stdout).toMatch(
      new RegExp(`\\n      cwd=${dir} shell=/bin/sh PATH=2 entries \\(sha256 [0-9a-f]{12}\\) timeout=120s\\n`),
    );
    const j = JSON.parse(run(["approvals", "list", "--json"]).stdout);
    expect(j.records[0]).toMatchObject({ cwd: dir, shell: "/bin/sh", path: "/usr/bin:/bin", timeoutMs: 120000 });
  });
});
