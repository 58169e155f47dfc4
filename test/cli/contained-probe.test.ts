// Issue 28 item 12 (the probe cannot touch the live tree) and issue 27's probe item (the probe
// never hides the oracle; NOT PROBED is never OK), on the binary. Each fails on 33d2fc2
// (KBZ_TEST_BIN=/work/tools/kbz-old-33d2fc2).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";
import { pidsWith } from "../helpers/procs.ts";

setDefaultTimeout(120_000);

const usable = { ok: needs("bwrap") };

const gate = (id: string, check: string, inputs: string | null) =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ok\n${inputs ? `  INPUTS: ${inputs}\n` : ""}  EVIDENCE: pending\n`;

function repo(gates: string, files: Record<string, string> = {}) {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": `# Gates: probe\n\n${gates}`, ...files });
  const env = agentEnv();
  const run = (args: string[]) => kbz(args, { cwd: dir, env });
  return { dir, env, run };
}

describe.skipIf(!usable.ok)("the probe", () => {
  test("item 12: the probe can lose deliverables → a CHECK that moves and deletes its deliverable's folder leaves the live tree as it was", () => {
    // Passes plainly without harm; with its deliverable hidden (empty) it moves and deletes the folder.
    const check =
      "if [ -s pkg/a.txt ]; then echo ok; else umount pkg/a.txt 2>/dev/null; mv pkg pkg.moved && rm -rf pkg.moved; echo ok; fi";
    const { dir, run } = repo(gate("PKG", check, "pkg/a.txt"), {
      "pkg/a.txt": "the deliverable\n",
      "pkg/b.txt": "its neighbour\n",
    });
    expect(run(["check", "--approve"]).code).toBe(0);
    expect(run(["check", "--probe", "--approve"]).stdout).toContain("VACUOUS GATES:PKG"); // it did its damage, in the view
    expect(fs.existsSync(path.join(dir, "pkg.moved"))).toBe(false);
    expect(fs.readFileSync(path.join(dir, "pkg", "b.txt"), "utf8")).toBe("its neighbour\n");
    expect(fs.readFileSync(path.join(dir, "pkg", "a.txt"), "utf8")).toBe("the deliverable\n");
  });

  test("item 12: a hidden path that changed while the probe ran is reported loudly", async () => {
    // A sleep of a unique length: the test writes once the probe's CHECK is running (found by it), whatever the load.
    const nap = `sleep 1.5${process.pid % 1000}${Date.now() % 1000}`;
    const { dir, env, run } = repo(gate("SLOW", `${nap}; echo ok`, "out.txt"), { "out.txt": "v1\n" });
    expect(run(["check", "--approve"]).code).toBe(0);
    const probe = Bun.spawn([BIN, "check", "--probe", "--approve"], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    for (const end = Date.now() + 60_000; pidsWith(nap).length === 0; ) {
      if (Date.now() > end) throw new Error(`the probe's CHECK (${nap}) never started`);
      await Bun.sleep(20);
    }
    fs.writeFileSync(path.join(dir, "out.txt"), "v2, changed by someone else\n");
    const code = await probe.exited;
    const out = (await new Response(probe.stdout).text()) + (await new Response(probe.stderr).text());
    expect(code).toBe(2);
    expect(out).toContain("changed while the probe ran: out.txt");
  });

  test("issue 27 item 7: the probe never hides the oracle → a checker script listed in INPUTS stays visible, so a constant checker is VACUOUS", () => {
    const { run } = repo(gate("ORACLE", "sh check.sh", "check.sh, target.txt"), {
      "check.sh": "echo ok\n",
      "target.txt": "the work\n",
    });
    expect(run(["check", "--approve"]).code).toBe(0);
    const r = run(["check", "--probe", "--approve"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("VACUOUS GATES:ORACLE: passed with its deliverable hidden (INPUTS: target.txt)");
  });

  test("issue 27 item 7: the probe hides no part of the approval's oracle → the script behind npm test and an ORACLE: file stay visible, so a constant test runner is VACUOUS", () => {
    const g =
      "- [ ] T1: the tests pass\n  CHECK: npm test --silent\n  EXPECT: TESTS OK\n  INPUTS: test/**, src/add.js\n  ORACLE: test/expected.txt\n  EVIDENCE: pending\n";
    const { run } = repo(g, {
      "package.json": JSON.stringify({ scripts: { test: "node test/run.js" } }),
      // The runner prints a constant; the expected file is read, so hiding it would fail the CHECK.
      "test/run.js": "require('fs').readFileSync(__dirname + '/expected.txt');\nconsole.log('TESTS OK');\n",
      "test/expected.txt": "4\n",
      "src/add.js": "exports.add = (a, b) => a + b;\n",
    });
    expect(run(["check", "--approve"]).code).toBe(0);
    const r = run(["check", "--probe", "--approve"]);
    expect(r.stdout).toContain("VACUOUS GATES:T1: passed with its deliverable hidden (INPUTS: src/add.js)");
    expect(r.code).toBe(1);
  });

  test("issue 27 item 7: NOT PROBED is never OK → a gate with nothing to hide is a warning and --probe exits 1", () => {
    const { run } = repo(gate("NOTHING", "echo ok", null));
    expect(run(["check", "--approve"]).code).toBe(0);
    const r = run(["check", "--probe", "--approve"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("PROBE OK");
    expect(r.stdout).toContain("NOT PROBED GATES:NOTHING");
    const j = JSON.parse(run(["check", "--probe", "--approve", "--json"]).stdout);
    expect(j.exit).toBe(1);
  });
});
