// Done means done, the oracle half (issue 27 items 1-2, issue 28 item 5): an agent's shell (no
// terminal, the same user) edits what a CHECK runs or the environment it runs in; kbz must not say
// met. Each case also does the honest task (the person approves the new oracle) and gets ALL MET.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv, approvalRecords } from "../helpers/approvals.ts";
import { decision, reasonOf, stopHook } from "../helpers/hook.ts";
import { oldBuild } from "../helpers/old-build.ts";

setDefaultTimeout(120_000);

// The build before oracle binding, made from this repository's history (issue 44 item 5: the path of
// one machine made this test skip silently everywhere else).
const OLD = oldBuild("33d2fc2");
if ("why" in OLD) console.log(`skip: test/cli/oracle.test.ts's old-approval test needs a build of 33d2fc2: ${OLD.why}`);
const OLD_BIN = "bin" in OLD ? OLD.bin : "";
const NODE_PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;

function gate(id: string, check: string, expect: string, extra = ""): string {
  return `- [ ] ${id}: ${id} holds\n  CHECK: ${check}\n  EXPECT: ${expect}\n${extra}  EVIDENCE: pending\n`;
}

function repo(files: Record<string, string>, git = false) {
  const dir = tempDir();
  writeTree(dir, files);
  if (git) {
    const g = (...a: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: dir, encoding: "utf8" });
    g("init", "-q", ".");
    g("add", "-A");
    g("commit", "-qm", "init");
  }
  const env = agentEnv({ PATH: hasNode() ? NODE_PATH : "/usr/bin:/bin" });
  const run = (args: string[], more: Record<string, string> = {}) => kbz(args, { cwd: dir, env: { ...env, ...more } });
  const hook = () =>
    stopHook({ cwd: dir, session_id: `s-${path.basename(dir)}`, hook_event_name: "Stop" }, { cwd: dir, env });
  const write = (f: string, text: string) => fs.writeFileSync(path.join(dir, f), text);
  const read = (f = "GATES.md") => fs.readFileSync(path.join(dir, f), "utf8");
  return { dir, env, run, hook, write, read };
}

function hasNode(): boolean {
  return spawnSync("node", ["--version"]).status === 0;
}

/** The signature kbz check printed for a pending gate: `APPROVAL REQUIRED <qid> [<sig>]`. */
function sigOf(stdout: string, qid: string): string {
  const m = new RegExp(`APPROVAL REQUIRED ${qid} \\[([0-9a-f]{12})\\]`).exec(stdout);
  if (!m) throw new Error(`no signature for ${qid} in ${stdout}`);
  return m[1]!;
}

const ADD =
  "const add = (a, b) => a + b;\nif (add(2, 2) !== 4) { console.log('ADD_WRONG'); process.exit(1); }\nconsole.log('ADD_OK');\n";

describe("class 1: the oracle is rewritten, not the CHECK", () => {
  test("an edited checker script (node check.mjs -> console.log('ADD_OK')) un-meets the gate: status 1, hook blocks, check judges the work against the approved checker (issue 39)", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}`, "check.mjs": ADD });
    expect(r.run(["check", "--approve"]).code).toBe(0);
    expect(r.run(["status"]).code).toBe(0);
    r.write("check.mjs", "console.log('ADD_OK')\n"); // the agent's act
    const st = r.run(["status"]);
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("GATES:G1 (oracle changed: check.mjs; needs a person's approval again)");
    expect(st.stdout).not.toContain("(STALE ("); // issue 44 item 7: STALE once
    expect(reasonOf(r.hook())).toContain("GATES:G1 STALE (oracle changed: check.mjs");
    const ch = r.run(["check"]);
    // The approved checker (the add holds) passes; the rewrite is a proposal for the person.
    expect(ch.stdout).toContain("ORACLE EDITED check.mjs: judged against the approved version");
    expect(ch.stdout).not.toContain("APPROVAL REQUIRED");
    expect(ch.code).toBe(0);
    expect(r.run(["status"]).stdout).toContain("ALL MET (1 met)");
    expect(decision(r.hook())).toBeNull();
  });

  test("a test file behind npm test, declared in ORACLE:, is rewritten to () => true: status 1 naming it", () => {
    const pkg = JSON.stringify({ scripts: { test: "node test/run.js" } });
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("T1", "npm test --silent", "TESTS 2/2 OK", "  ORACLE: test/**\n")}`,
      "package.json": pkg,
      "test/run.js":
        "const cases = require('./cases.js');\nconst ok = cases.filter((c) => c()).length;\nconsole.log(`TESTS ${ok}/${cases.length} OK`);\nprocess.exit(ok === cases.length ? 0 : 1);\n",
      "test/cases.js": "module.exports = [() => 1 + 1 === 2, () => 2 * 2 === 4];\n",
    });
    expect(r.run(["check", "--approve"]).code).toBe(0);
    r.write("test/cases.js", "module.exports = [() => true, () => true];\n");
    const st = r.run(["status"]);
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("oracle changed: test/cases.js");
    expect(reasonOf(r.hook())).toContain("GATES:T1 STALE (oracle changed: test/cases.js");
    expect(r.run(["check"]).stdout).toContain("ORACLE EDITED test/cases.js: judged against the approved version");
  });

  test("the package.json test script replaced by echo TESTS 2/2 OK: status 1 naming package.json#scripts.test", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("T1", "npm test --silent", "TESTS 2/2 OK")}`,
      "package.json": JSON.stringify({ scripts: { test: "node run.js" } }),
      "run.js": "console.log('TESTS 2/2 OK')\n",
    });
    expect(r.run(["check", "--approve"]).code).toBe(0);
    r.write("package.json", JSON.stringify({ scripts: { test: "echo TESTS 2/2 OK" } }));
    const st = r.run(["status"]);
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("oracle changed: package.json#scripts.test");
    const ch = r.run(["check"]);
    // Judged against the approved script; run.js, which the approved script ran, is named with it when
    // the static closure (the default observer) no longer reaches it from the edited script.
    expect(ch.stdout).toMatch(
      /ORACLE EDITED package\.json#scripts\.test(, run\.js)?: judged against the approved version/,
    );
  });

  test("a new file matching an ORACLE: glob counts as a change", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", "sh t/run.sh", "RAN")}`.replace(
        "  EVIDENCE",
        "  ORACLE: t/*.sh\n  EVIDENCE",
      ),
      "t/run.sh": "echo RAN\n",
    });
    expect(r.run(["check", "--approve"]).code).toBe(0);
    r.write("t/extra.sh", "echo more\n");
    expect(r.run(["status"]).stdout).toContain("oracle changed: t/extra.sh");
  });

  test("kbz approvals explain names the changed file with a short diff from git HEAD", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}`, "check.mjs": ADD }, true);
    expect(r.run(["check", "--approve"]).code).toBe(0);
    r.write("check.mjs", "console.log('ADD_OK')\n");
    const ex = r.run(["approvals", "explain", "GATES.md", "G1"]);
    expect(ex.code).toBe(1);
    expect(ex.stdout).toContain("oracle file changed: check.mjs");
    expect(ex.stdout).toContain("check.mjs since the approval (from git HEAD):");
    expect(ex.stdout).toContain("- const add = (a, b) => a + b;");
    expect(ex.stdout).toContain("+ console.log('ADD_OK')");
    const json = JSON.parse(r.run(["approvals", "explain", "GATES.md", "G1", "--json"]).stdout);
    expect(json.diffs[0].file).toBe("check.mjs");
    expect(json.oracleFiles).toEqual(["check.mjs"]);
  });

  // Needs a build of 33d2fc2 (the binary before oracle binding); skipped, and said so, where there is none.
  test.skipIf(OLD_BIN === "")(
    "an approval of the old binary (CHECK text only) needs approval again when the CHECK runs a file",
    () => {
      const r = repo({
        "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}\n${gate("G2", "echo PLAIN", "PLAIN")}`,
        "check.mjs": ADD,
      });
      expect(spawnSync(OLD_BIN, ["check", "--approve"], { cwd: r.dir, env: { ...process.env, ...r.env } }).status).toBe(
        0,
      );
      expect(r.run(["status"]).code).toBe(0); // evidence of an old pass has no oracle record: read as before
      const ch = r.run(["check", "--reverify"]);
      expect(ch.code).toBe(1);
      expect(ch.stdout).toContain("APPROVAL REQUIRED GATES:G1");
      expect(ch.stdout).toContain("the approval predates oracle binding (it approved the CHECK text only): check.mjs");
      expect(ch.stdout).not.toContain("APPROVAL REQUIRED GATES:G2"); // a CHECK that runs no file keeps unlazy's signature
      expect(ch.stdout).toContain("UNMET: 1 (met: 1,"); // G2 passed (a pass prints no line of its own)
      expect(ch.stdout).not.toContain("FAIL GATES:G2");
    },
  );
});

describe("class 2: the environment is kbz's", () => {
  const FAKE = "console.log('ADD_OK'); process.exit(0);\n";
  const WRONG = "console.log('ADD_WRONG'); process.exit(1);\n";

  test("NODE_OPTIONS=--require ./fake.cjs kbz check does not reach the CHECK: the gate fails", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}`,
      "check.mjs": WRONG,
      "fake.cjs": FAKE,
    });
    const ch = r.run(["check", "--approve"], { NODE_OPTIONS: `--require ${path.join(r.dir, "fake.cjs")}` });
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("FAIL GATES:G1");
    expect(r.run(["status"]).code).toBe(1);
    expect(reasonOf(r.hook())).toContain("GATES:G1");
  });

  test("BASH_ENV, ENV, LD_PRELOAD, PYTHONPATH, PERL5OPT, RUBYOPT are never inherited; the allow-list is", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("G1", "env > seen.env; echo DUMPED", "DUMPED")}` });
    const more = {
      BASH_ENV: "/tmp/x",
      ENV: "/tmp/y",
      LD_PRELOAD: "/tmp/z.so",
      PYTHONPATH: "/tmp",
      PERL5OPT: "-Mx",
      RUBYOPT: "-rx",
      NODE_OPTIONS: "--inspect",
      LANG: "C.UTF-8",
      TZ: "UTC",
      CI: "1",
    };
    expect(r.run(["check", "--approve"], more).code).toBe(0);
    const names = r
      .read("seen.env")
      .split("\n")
      .map((l) => l.split("=")[0]);
    for (const bad of ["BASH_ENV", "ENV", "LD_PRELOAD", "PYTHONPATH", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS"])
      expect(names).not.toContain(bad);
    for (const good of ["PATH", "HOME", "LANG", "TZ", "CI", "KBZ_CHECK_CHAIN"]) expect(names).toContain(good);
  });

  test("an ENV: name reaches the CHECK and its value is bound: another value needs approval again", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", 'echo "mode=$APP_MODE"', "mode=strict", "  ENV: APP_MODE\n")}`,
    });
    expect(r.run(["check", "--approve"], { APP_MODE: "strict" }).code).toBe(0);
    expect(r.run(["check", "--reverify"], { APP_MODE: "strict" }).code).toBe(0);
    const other = r.run(["check", "--reverify"], { APP_MODE: "lenient" });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain("ENV value changed: APP_MODE");
    // The agent's line names why; the whole oracle (its ENV names) is the person's review, or --verbose.
    expect(r.run(["check", "--reverify", "--verbose"], { APP_MODE: "lenient" }).stdout).toContain("    ENV: APP_MODE");
  });
});

describe("consent covers what was shown (issue 28 item 5)", () => {
  test("--approve prints the whole oracle it approves (CHECK, EXPECT, CWD, SHELL, ORACLE FILES, ENV) before the run", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", "sh run.sh", "RAN", "  ENV: APP_MODE\n")}`,
      "run.sh": "echo RAN\n",
    });
    const out = r.run(["check", "--approve"]).stdout;
    const at = (s: string) => out.indexOf(s);
    expect(out).toMatch(/APPROVING GATES:G1 \[[0-9a-f]{12}\]/);
    for (const s of [
      "    CHECK: sh run.sh",
      "    EXPECT: RAN",
      "    CWD: ",
      "    SHELL: ",
      "    ORACLE FILES: run.sh",
      "    ENV: APP_MODE (unset)",
      "  APPROVED GATES:G1",
    ]) {
      expect(at(s)).toBeGreaterThan(-1);
      expect(at(s)).toBeLessThan(at("ALL MET (1 met)"));
    }
  });

  test("the issue's reproduction: shown `echo SAFE`, changed to `echo EVIL > pwned; echo SAFE`; --approve=<sig> refuses and runs nothing", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("G1", "echo SAFE", "SAFE")}` });
    const shown = r.run(["check"]);
    const sig = sigOf(shown.stdout, "GATES:G1");
    r.write("GATES.md", r.read().replace("CHECK: echo SAFE", "CHECK: echo EVIL > pwned; echo SAFE"));
    const before = hashTree(r.dir);
    const refused = r.run(["check", `--approve=${sig}`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--approve=${sig} matches no oracle of this run: it changed since it was shown`);
    expect(fs.existsSync(path.join(r.dir, "pwned"))).toBe(false);
    expect(hashTree(r.dir)).toBe(before);
    // --approve shows what it approves: the EVIL command is on screen before it runs.
    const approved = r.run(["check", "--approve"]);
    expect(approved.stdout).toContain("    CHECK: echo EVIL > pwned; echo SAFE");
  });

  test("--approve=<sig> approves exactly that oracle; the other pending one stays unapproved and unrun", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("A", "echo AAA", "AAA")}\n${gate("B", "touch b-ran; echo BBB", "BBB")}`,
    });
    const shown = r.run(["check"]);
    const res = r.run(["check", `--approve=${sigOf(shown.stdout, "GATES:A")}`]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("UNMET: 1 (met: 1)"); // A ran and passed
    expect(res.stdout).not.toContain("FAIL GATES:A");
    expect(res.stdout).toContain("APPROVAL REQUIRED GATES:B");
    expect(fs.existsSync(path.join(r.dir, "b-ran"))).toBe(false);
    expect(r.run(["check", "--approve=zz"]).code).toBe(2); // not a signature
  });

  test("kbz check --json lists each pending oracle's signature, files and ENV names", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", "sh run.sh", "RAN", "  ENV: APP_MODE\n")}`,
      "run.sh": "echo RAN\n",
    });
    const j = JSON.parse(r.run(["check", "--json"]).stdout);
    expect(j.approvals.required[0].signature).toMatch(/^[0-9a-f]{12}$/);
    expect(j.approvals.required[0].oracleFiles).toEqual(["run.sh"]);
    expect(j.approvals.required[0].env).toEqual(["APP_MODE"]);
  });
});

describe("--approve --reverify (unlazy issue 36)", () => {
  test("a met gate whose oracle changed is approved and re-run, so it never stays un-runnable", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("G1", "sh run.sh", "RAN")}`, "run.sh": "echo RAN\n" });
    expect(r.run(["check", "--approve"]).code).toBe(0);
    r.write("run.sh", "echo RAN; echo again\n");
    expect(r.run(["status"]).code).toBe(1);
    const re = r.run(["check", "--approve", "--reverify"]);
    expect(re.code).toBe(0);
    expect(re.stdout).toContain("ALL MET (1 met, reran: 1");
    expect(r.run(["status"]).code).toBe(0);
    r.write("run.sh", "echo RAN; echo thrice\n");
    const plain = r.run(["check", "--approve"]); // without --reverify: the stale gate is pending, so it runs too
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("ALL MET (1 met)");
  });
});

describe("bad ORACLE: and ENV: lines: <file>:<line>: <message>, exit 2, nothing changed", () => {
  const cases: [string, string, (dir: string) => void, string][] = [
    ["an empty entry", "  ORACLE: a.sh,, b.sh\n", () => {}, "ORACLE has an empty entry"],
    ["no paths", "  ORACLE:\n", () => {}, "ORACLE lists no paths"],
    ["a path outside the root", "  ORACLE: ../secret\n", () => {}, "ORACLE path must stay inside the root: ../secret"],
    ["an absolute path", "  ORACLE: /etc/passwd\n", () => {}, "ORACLE path must stay inside the root: /etc/passwd"],
    [
      "a link out of the root",
      "  ORACLE: out.txt\n",
      (d) => fs.symlinkSync("/etc/hostname", path.join(d, "out.txt")),
      "ORACLE out.txt resolves outside the root",
    ],
    [
      "a directory",
      "  ORACLE: t\n",
      (d) => fs.mkdirSync(path.join(d, "t")),
      "ORACLE t is a directory; name its files (t/**)",
    ],
    [
      "a FIFO",
      "  ORACLE: f\n",
      (d) => spawnSync("mkfifo", [path.join(d, "f")]),
      "ORACLE f is a FIFO, socket or device, not a regular file",
    ],
    [
      "a file over 8 MiB",
      "  ORACLE: big.bin\n",
      (d) => fs.writeFileSync(path.join(d, "big.bin"), Buffer.alloc(8 * 1024 * 1024 + 1)),
      "ORACLE big.bin is over 8 MiB",
    ],
    ["a malformed ENV name", "  ENV: GOOD, 1BAD\n", () => {}, 'ENV name "1BAD" is malformed'],
    ["an empty ENV", "  ENV: \n", () => {}, "ENV lists no names"],
  ];
  for (const [what, line, setup, message] of cases) {
    test(what, () => {
      const r = repo({
        "GATES.md": `# Gates\n\n- [ ] G1: holds\n  CHECK: echo ok\n  EXPECT: ok\n${line}  EVIDENCE: pending\n`,
      });
      setup(r.dir);
      const before = hashTree(r.dir);
      const res = r.run(["check", "--approve"]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`GATES.md:6: ${message}`);
      expect(hashTree(r.dir)).toBe(before);
      expect(approvalRecords(r.env.UNLAZY_APPROVAL_DIR!)).toEqual([]);
    });
  }
});

describe("lint", () => {
  test("a CHECK that runs a test runner without ORACLE: gets runner-without-oracle; with one it does not", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("T1", "npx vitest run", "/Tests +[1-9]\\d* passed/")}\n${gate("T2", "npm test", "/# pass [1-9]/", "  ORACLE: test/**\n")}`,
    });
    const lint = r.run(["lint", "GATES.md"]);
    expect(lint.stdout).toContain("WARN  T1: CHECK runs a test runner (vitest); its approval binds ");
    expect(lint.stdout).toContain("[runner-without-oracle]");
    expect((lint.stdout + lint.stderr).match(/runner-without-oracle/g)?.length).toBe(1);
  });
});
