// Issue 20.1: one CHECK directory rule for `check`, `verify run` and the dashboard.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../../helpers/approvals.ts";
import { kbz, tempDir, writeTree } from "../../helpers/kbz.ts";
import { loadApprovals } from "../../../src/ops/dashboardActs.ts";
import { loadSnapshot } from "../../../src/ops/snapshot.ts";
import { resolveTarget } from "../../../src/io/discover.ts";

setDefaultTimeout(60_000);
const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const AT_ROOT =
  "- [ ] G1: runs at the repository root\n  CHECK: test -f package.json && printf ROOT_OK\n  EXPECT: ROOT_OK\n  EVIDENCE: pending\n";

function repo(files: Record<string, string>) {
  const dir = tempDir("kbz-cwd-");
  const env = agentEnv();
  made.push(dir, path.dirname(env.HOME!));
  writeTree(dir, { "package.json": "{}\n", ...files });
  const run = (args: string[], cwd = dir) => kbz(args, { cwd, env });
  return { dir, env, run };
}

describe("issue 20.1: the CHECK directory does not depend on how the ledger is named", () => {
  test("a ledger inside .unlazy/<scope>/ runs from the repository root, named relatively, absolutely or with ..", () => {
    const { dir, run } = repo({ ".unlazy/S/gates/leaf-1.md": "# leaf\nOWNS: src/**\n\n" + AT_ROOT });
    for (const name of [
      ".unlazy/S/gates/leaf-1.md",
      path.join(dir, ".unlazy/S/gates/leaf-1.md"),
      "./.unlazy/S/../S/gates/leaf-1.md",
    ]) {
      const r = run(["check", "--verbose", "--reverify", "--approve", name]);
      expect(r.stdout).toContain(`cwd=${dir} `);
      expect([r.code, r.stdout.trimEnd().split("\n").pop()]).toEqual([
        0,
        expect.stringMatching(/^ALL MET \(1 met, reran: 1/),
      ]);
    }
    // From a subfolder with --root: still the root, not the caller's folder.
    fs.mkdirSync(path.join(dir, "src"));
    expect(run(["check", "--reverify", "--root", dir, ".unlazy/S/gates/leaf-1.md"], path.join(dir, "src")).code).toBe(
      0,
    );
  });

  test("check --scope, check on the file and verify run share one directory, so one approval serves all three", () => {
    const { run } = repo({
      ".unlazy/S/gates/leaf-1.md": "# leaf\nOWNS: src/**\n\n" + AT_ROOT,
      ".unlazy/S/PLAN.md": "# P\nContract revision: 1.\n",
    });
    expect(run(["check", "--approve", ".unlazy/S/gates/leaf-1.md"]).code).toBe(0);
    const scoped = run(["check", "--reverify", "--scope", "S"]);
    expect(scoped.stdout).not.toContain("APPROVAL REQUIRED");
    const verified = run(["verify", "run", "--inputs", "package.json", "--closed", ".unlazy/S/gates/leaf-1.md"]);
    expect([verified.code, verified.stdout]).toEqual([
      0,
      "ACCEPTED .unlazy/S/gates/leaf-1.md: checked once; receipt reusable while its inputs stay unchanged\n",
    ]);
  });

  test("the dashboard's pending list resolves the same directory", () => {
    const { dir, env } = repo({ ".unlazy/S/gates/leaf-1.md": "# leaf\nOWNS: src/**\n\n" + AT_ROOT });
    const snap = loadSnapshot(resolveTarget({ root: dir, files: [".unlazy/S/gates/leaf-1.md"] }));
    expect(loadApprovals(snap, env).items.map((t) => t.cwd)).toEqual([dir]);
  });

  test("other explicit ledgers keep unlazy's rule (their own folder); CWD: resolves against that base; --cwd overrides", () => {
    const gate = (cwd: string) => `- [ ] G1: where\n  CHECK: pwd\n  EXPECT: /./\n${cwd}  EVIDENCE: pending\n`;
    const { dir, run } = repo({
      "sub/GATES.md": gate(""),
      "sub/deep/x": "",
      "other/CWD.md": gate("  CWD: ../sub/deep\n"),
    });
    expect(run(["check", "--verbose", "--approve", "sub/GATES.md"]).stdout).toContain(`cwd=${path.join(dir, "sub")} `);
    expect(run(["check", "--verbose", "--approve", "other/CWD.md"]).stdout).toContain(
      `cwd=${path.join(dir, "sub/deep")} `,
    );
    expect(run(["check", "--verbose", "--reverify", "--approve", "--cwd", "sub", "sub/GATES.md"]).stdout).toContain(
      `cwd=${path.join(dir, "sub")} `,
    );
    expect(run(["check", "--verbose", "--reverify", "--approve", "--cwd", ".", "sub/GATES.md"]).stdout).toContain(
      `cwd=${dir} `,
    );
  });
});

describe("issue 20.1: the root gate kbz init --scope writes", () => {
  test("can pass, and running it never resets an already verified leaf", async () => {
    const { flowRepo } = await import("../../helpers/flow.ts");
    const r = flowRepo();
    made.push(r.dir, r.env.UNLAZY_APPROVAL_DIR!);
    r.run(["init", "--scope", "S"]);
    r.run(["plan", "add", "1", "--owns", "src/**"]);
    r.write(".unlazy/S/gates/leaf-1.md", "# leaf\nOWNS: src/**\n\n" + AT_ROOT);
    r.write("package.json", "{}\n");
    expect(r.run(["check", "--approve", ".unlazy/S/gates/leaf-1.md"]).code).toBe(0);
    const leaf = r.read(".unlazy/S/gates/leaf-1.md");
    // The root ledger alone, named explicitly: N1 runs from the root and only reads the leaves.
    const root = r.run(["check", "--approve", "--reverify", "--verbose", ".unlazy/S/GATES.md"]);
    expect(root.stdout).toContain("  PASS GATES:N1: every leaf ledger of the scope is met\n");
    expect(r.read(".unlazy/S/gates/leaf-1.md")).toBe(leaf);
    // The whole scope, twice: the verified leaf stays [x] with its evidence.
    for (let i = 0; i < 2; i++)
      expect(r.run(["check", "--scope", "S", "--reverify", "--verbose"]).stdout).toContain("  PASS GATES:N1");
    expect(r.read(".unlazy/S/gates/leaf-1.md")).toContain("- [x] G1: runs at the repository root");
  });
});
