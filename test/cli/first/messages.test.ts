// Issue 44 item 7, messages in the wrong order or without a way on, on the binary (each fails on
// 571b8e3). `kbz status --verbos` (did-you-mean and the verb's help line) is engineer tokens'
// parser work (issue 43) and tested there.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../../helpers/approvals.ts";
import { BIN, kbz, REPO, tempDir, writeTree } from "../../helpers/kbz.ts";
import { TmuxPane, haveTmux } from "../../helpers/tmux.ts";

const dirs: string[] = [];
const dir = (files: Record<string, string>) => {
  const d = tempDir("kbz-first-msg-");
  dirs.push(d);
  writeTree(d, files);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const MANUAL = "# Gates: copy\n\n- [ ] G1: the copy was reviewed\n  EVIDENCE: pending\n";

describe("issue 44 item 7: messages in the wrong order or without a way on", () => {
  test("kbz sign GATES.md G9 (no such gate) names the gate and the nearest one first, not --evidence or the terminal", () => {
    const d = dir({ "GATES.md": MANUAL });
    for (const args of [
      ["sign", "GATES.md", "G9"],
      ["sign", "GATES.md", "G9", "--evidence", "read it"],
    ]) {
      const r = kbz(args, { cwd: d });
      expect([args.length, r.code]).toEqual([args.length, 2]);
      expect(r.stderr).toStartWith("kbz: no gate GATES:G9 here; did you mean GATES:G1? (manual gates: GATES:G1;");
      const first = r.stderr.split("\n")[0]!; // the usage line below it is tokens' (issue 43)
      expect(first).not.toContain("--evidence");
      expect(first).not.toContain("terminal");
    }
    // The gate exists: now the evidence is what is missing.
    expect(kbz(["sign", "GATES.md", "G1"], { cwd: d }).stderr).toStartWith("kbz: --evidence: expected");
  });

  test("a STALE gate says STALE once: STALE GATES:G1 (oracle changed: …), not (STALE (oracle changed: …))", () => {
    const d = dir({
      "GATES.md":
        "# Gates: add\n\n- [ ] G1: add works\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  EVIDENCE: pending\n",
      "check.mjs": "console.log(1 + 1 === 2 ? 'ADD_OK' : 'ADD_WRONG');\n",
    });
    const env = agentEnv();
    expect(kbz(["check", "--approve"], { cwd: d, env }).code).toBe(0);
    fs.writeFileSync(path.join(d, "check.mjs"), "console.log('ADD_OK');\n");
    const st = kbz(["status"], { cwd: d, env });
    expect(st.code).toBe(1);
    expect(st.stdout).toMatch(
      /^ {2}STALE +GATES:G1 \(oracle changed: check\.mjs; needs a person's approval again\): add works$/m,
    );
    expect(st.stdout.match(/STALE/g)).toHaveLength(1);
  });

  test("CHECK: npm test running node test.js: lint does not say an edited test keeps its approval while check binds test.js", () => {
    const d = dir({
      "GATES.md": "# Gates: t\n\n- [ ] G1: the tests pass\n  CHECK: npm test\n  EXPECT: T_OK\n  EVIDENCE: pending\n",
      "package.json": '{"scripts":{"test":"node test.js"}}\n',
      "test.js": "console.log('T_OK');\n",
    });
    const check = kbz(["check", "--verbose"], { cwd: d, env: agentEnv() });
    expect(check.stdout).toMatch(/ORACLE FILES: .*package\.json#scripts\.test, test\.js/);
    const lint = kbz(["lint", "GATES.md"], { cwd: d });
    expect([lint.code, lint.stdout]).toEqual([0, "LINT OK\n"]);
    // A real runner behind the script: the warning lists exactly what the approval binds.
    fs.writeFileSync(path.join(d, "package.json"), '{"scripts":{"test":"vitest run"}}\n');
    const runner = kbz(["lint", "GATES.md"], { cwd: d });
    expect(runner.stdout).toContain(
      "CHECK runs a test runner (vitest); its approval binds package.json#scripts.posttest, package.json#scripts.pretest, package.json#scripts.test, but a test or config file the runner finds by itself is bound only when ORACLE: names it",
    );
    expect(runner.stdout).not.toContain("keeps its approval");
  });

  test("the npm launcher without its platform package names both causes and the fix, blaming no --omit=optional it cannot know", () => {
    const pkg = path.join(dir({}), "kbz");
    fs.mkdirSync(path.join(pkg, "bin"), { recursive: true });
    fs.copyFileSync(path.join(REPO, "npm", "kbz.cjs"), path.join(pkg, "bin", "kbz.cjs"));
    const target = `${process.platform}-${process.arch}`;
    const optional = Object.fromEntries([`kbz-${target}`, `kbz-${target}-musl`].map((n) => [n, "0.1.0"]));
    fs.writeFileSync(
      path.join(pkg, "package.json"),
      JSON.stringify({ name: "kbz", version: "0.1.0", optionalDependencies: optional }),
    );
    const node = Bun.which("node");
    expect(node).not.toBeNull();
    const env = { ...process.env, KBZ_BINARY: "" };
    const r = spawnSync(node!, [path.join(pkg, "bin", "kbz.cjs"), "--version"], { cwd: pkg, env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /is not installed: the package kbz-linux-x64(-musl)?@0\.1\.0 that holds it is not beside kbz\./,
    );
    expect(r.stderr).toContain(
      "npm leaves it out under --omit=optional (or omit=optional in .npmrc), and when it could not fetch it.",
    );
    expect(r.stderr).toMatch(/Install it: npm install -g kbz-linux-x64(-musl)?@0\.1\.0 /);
    expect(r.stderr).not.toContain("npm skipped the optional package");
  });

  test.skipIf(!haveTmux())(
    "the dashboard's title names the ledgers there are: GATES.md, not a gates/ folder that does not exist",
    async () => {
      const d = dir({ "GATES.md": MANUAL });
      const p = new TmuxPane(100, 20);
      try {
        p.start([BIN], d, agentEnv());
        const screen = await p.waitFor((s) => s.includes("UNMET: 1 (met: 0)"));
        const title = screen.split("\n")[0]!;
        expect(title).toContain("kbz · GATES.md");
        expect(title).not.toContain("gates/");
        p.send("q");
        await p.waitFor((s) => s.includes("EXIT="));
      } finally {
        p.kill();
      }
    },
  );
});
