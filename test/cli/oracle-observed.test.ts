// The oracle the person approved, exactly (issue 39 part A), on the binary: an agent's shell
// (CLAUDECODE=1, no terminal) rewrites what the approved CHECK reads or runs; kbz must not say met.
// And the other side: editing the work (declared, or the application a test imports) needs no new
// approval; an unrelated PATH folder is not an oracle change. Each test fails on 571b8e3
// (KBZ_TEST_BIN=/work/tools/kbz-571b8e3).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(120_000);

const BUN_DIR = path.dirname(Bun.which("bun") ?? process.execPath);
const PATH_A = `${BUN_DIR}:/usr/local/bin:/usr/bin:/bin`;
const hasStrace = needs("strace");
const hasNode = spawnSync("node", ["--version"], { env: { PATH: PATH_A } }).status === 0;
const hasPython = spawnSync("python3", ["--version"], { env: { PATH: PATH_A } }).status === 0;
// Node and Python run the checkers of most cases; without them those cases skip, and say so.
if (!hasNode) console.log("skip: node is not on PATH: the JS, npm and tracer-shape cases of issue 39 are skipped");
if (!hasPython) console.log("skip: python3 is not on PATH: the Python import case of issue 39 is skipped");

function gate(id: string, check: string, expectText: string, extra = ""): string {
  return `- [ ] ${id}: ${id} holds\n  CHECK: ${check}\n  EXPECT: ${expectText}\n${extra}  EVIDENCE: pending\n`;
}

/** A repository with `files`, an agent-policy store (approving from a child process models the person here), PATH A. */
function repo(files: Record<string, string>, opts: { git?: boolean; env?: Record<string, string> } = {}) {
  const dir = tempDir();
  writeTree(dir, files);
  if (opts.git) {
    const g = (...a: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: dir, encoding: "utf8" });
    g("init", "-q", ".");
    g("add", "-A");
    g("commit", "-qm", "init");
  }
  // Tracing is opt-in (io/oracle/observe.ts): these tests are about what the tracer sees.
  const env = agentEnv({ PATH: PATH_A, KBZ_TRACER: "strace", ...opts.env });
  const run = (args: string[], more: Record<string, string> = {}) =>
    kbz(args, { cwd: dir, env: { ...env, CLAUDECODE: "1", ...more } });
  const write = (f: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  };
  return { dir, env, run, write };
}

/**
 * Approve and pass, then the agent's act: it breaks the work and rewrites the oracle so that the
 * broken work would pass it. The gate must not be met after it (APPROVAL REQUIRED, or judged against
 * the approved oracle by enforce's view: FAIL).
 */
function rewriteIsCaught(
  files: Record<string, string>,
  act: (r: ReturnType<typeof repo>) => void,
  opts: { git?: boolean } = {},
) {
  const r = repo(files, opts);
  const first = r.run(["check", "--approve"]);
  expect(first.stdout + first.stderr).toContain("ALL MET");
  act(r);
  const ch = r.run(["check"]);
  expect(ch.code).toBe(1);
  expect(ch.stdout).not.toContain("ALL MET");
  // Not MET on the rewritten oracle: needs a person (APPROVAL REQUIRED), or judged against the approved one (ORACLE EDITED).
  expect(ch.stdout).toMatch(/APPROVAL REQUIRED|ORACLE CHANGED|ORACLE EDITED|STALE/);
  const st = r.run(["status"]);
  expect(st.code).toBe(1);
  return { r, ch, st };
}

const RUN_MJS =
  "import cases from './cases.mjs';\nimport { add } from '../app.mjs';\nconst ok = cases.filter((c) => c(add)).length;\nconsole.log(`TESTS ${ok}/${cases.length} OK`);\nprocess.exit(ok === cases.length ? 0 : 1);\n";
const CASES = "export default [(add) => add(1, 1) === 2, (add) => add(2, 2) === 4];\n";
const APP = "export const add = (a, b) => a + b;\n";

describe("an agent rewrites a file the approved runner imports: the gate is not MET on the rewritten oracle", () => {
  test.skipIf(!hasNode)(
    "JS import: npm test -> test/run.mjs imports ./cases.mjs; cases rewritten to () => true",
    () => {
      const { ch } = rewriteIsCaught(
        {
          "GATES.md": `# Gates\n\n${gate("T1", "npm test --silent", "TESTS 2/2 OK")}`,
          "package.json": JSON.stringify({ scripts: { test: "node test/run.mjs" } }),
          "test/run.mjs": RUN_MJS,
          "test/cases.mjs": CASES,
          "app.mjs": APP,
        },
        (r) => {
          r.write("app.mjs", "export const add = (a, b) => a - b;\n");
          r.write("test/cases.mjs", "export default [() => true, () => true];\n");
        },
      );
      expect(ch.stdout).toMatch(/oracle file changed: test\/cases\.mjs|ORACLE EDITED test\/cases\.mjs/);
    },
  );

  test.skipIf(!hasPython)(
    "Python import: python3 tests/run.py imports helpers from tests/helpers.py; the helper rewritten",
    () => {
      rewriteIsCaught(
        {
          "GATES.md": `# Gates\n\n${gate("P1", "python3 tests/run.py", "PY_OK")}`,
          "tests/run.py":
            "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\nfrom helpers import check\nimport calc\nprint('PY_OK' if check(calc.add(2, 2), 4) else 'PY_BAD')\n",
          "tests/helpers.py": "def check(got, want):\n    return got == want\n",
          "calc.py": "def add(a, b):\n    return a + b\n",
        },
        (r) => {
          r.write(
            "calc.py",
            "def add(a, b):\n    return a - b - 0  # another size: python trusts a same-second, same-size .pyc\n",
          );
          r.write("tests/helpers.py", "def check(got, want):\n    return True\n");
        },
      );
    },
  );

  test("shell source: sh checks/check.sh sources checks/lib.sh; the helper rewritten to always pass", () => {
    rewriteIsCaught(
      {
        "GATES.md": `# Gates\n\n${gate("S1", "sh checks/check.sh", "SH_OK")}`,
        "checks/check.sh": '. "$(dirname "$0")/lib.sh"\nassert_eq "$(cat out.txt)" "42" && echo SH_OK\n',
        "checks/lib.sh": 'assert_eq() { [ "$1" = "$2" ]; }\n',
        "out.txt": "42\n",
      },
      (r) => {
        r.write("out.txt", "41\n");
        r.write("checks/lib.sh", "assert_eq() { true; }\n");
      },
    );
  });

  test.skipIf(!hasNode)("runner config: the runner's vitest.config.mjs (its expected values) rewritten", () => {
    rewriteIsCaught(
      {
        "GATES.md": `# Gates\n\n${gate("C1", "npm test --silent", "CFG_OK")}`,
        "package.json": JSON.stringify({ scripts: { test: "node test/runner.mjs" } }),
        "test/runner.mjs":
          "import cfg from '../vitest.config.mjs';\nimport { add } from '../app.mjs';\nif (add(2, 2) === cfg.want) console.log('CFG_OK'); else process.exit(1);\n",
        "vitest.config.mjs": "export default { want: 4 };\n",
        "app.mjs": APP,
      },
      (r) => {
        r.write("app.mjs", "export const add = (a, b) => a - b;\n");
        r.write("vitest.config.mjs", "export default { want: 0 };\n");
      },
    );
  });

  test.skipIf(!hasNode)(".npmrc: script-shell pointed at a fake shell that prints the marker", () => {
    const { ch } = rewriteIsCaught(
      {
        "GATES.md": `# Gates\n\n${gate("N1", "npm test --silent", "TESTS 2/2 OK")}`,
        "package.json": JSON.stringify({ scripts: { test: "node test/run.mjs" } }),
        "test/run.mjs": RUN_MJS,
        "test/cases.mjs": CASES,
        "app.mjs": APP,
        ".npmrc": "fund=false\n",
      },
      (r) => {
        r.write("app.mjs", "export const add = (a, b) => a - b;\n");
        r.write("fake.sh", "#!/bin/sh\necho 'TESTS 2/2 OK'\n");
        fs.chmodSync(path.join(r.dir, "fake.sh"), 0o755);
        r.write(".npmrc", `fund=false\nscript-shell=${path.join(r.dir, "fake.sh")}\n`);
      },
    );
    expect(ch.stdout).toContain(".npmrc");
  });

  test("bunfig.toml preload: the preloaded setup rewritten to fake the expected value", () => {
    rewriteIsCaught(
      {
        "GATES.md": `# Gates\n\n${gate("B1", "bun test ./unit/sum.test.ts", "1 pass")}`,
        "bunfig.toml": '[test]\npreload = ["./setup.ts"]\n',
        "setup.ts": "(globalThis as any).WANT = 4;\n",
        "unit/sum.test.ts":
          "import { test, expect } from 'bun:test';\nimport { sum } from '../sum.ts';\ntest('sum', () => expect(sum(2, 2)).toBe((globalThis as any).WANT));\n",
        "sum.ts": "export const sum = (a: number, b: number) => a + b;\n",
      },
      (r) => {
        r.write("sum.ts", "export const sum = (a: number, b: number) => a + b + 1;\n");
        r.write("setup.ts", "(globalThis as any).WANT = 5;\n");
      },
    );
  });

  test.skipIf(!hasNode || !hasStrace)(
    "a checker's fixture read with readFileSync (only the tracer sees it): fixtures/expected.txt rewritten",
    () => {
      rewriteIsCaught(
        {
          "GATES.md": `# Gates\n\n${gate("F1", "node check.mjs", "FIX_OK")}`,
          "check.mjs":
            "import * as fs from 'node:fs';\nconst want = fs.readFileSync('fixtures/expected.txt', 'utf8').trim();\nconst got = fs.readFileSync('out.txt', 'utf8').trim();\nif (got === want) console.log('FIX_OK'); else process.exit(1);\n",
          "fixtures/expected.txt": "42\n",
          "out.txt": "42\n",
        },
        (r) => {
          r.write("out.txt", "41\n");
          r.write("fixtures/expected.txt", "41\n");
        },
      );
    },
  );

  test("the interpreter in a PATH folder inside the root (.venv/bin/tester) rewritten", () => {
    const dir = tempDir();
    const venv = path.join(dir, ".venv", "bin");
    writeTree(dir, {
      "GATES.md": `# Gates\n\n${gate("V1", "tester", "VENV_OK")}`,
      ".venv/bin/tester": '#!/bin/sh\n[ "$(cat out.txt)" = 42 ] && echo VENV_OK\n',
      "out.txt": "42\n",
    });
    fs.chmodSync(path.join(venv, "tester"), 0o755);
    const env = { ...agentEnv({ PATH: `${venv}:${PATH_A}`, KBZ_TRACER: "strace" }), CLAUDECODE: "1" };
    expect(kbz(["check", "--approve"], { cwd: dir, env }).stdout).toContain("ALL MET");
    fs.writeFileSync(path.join(venv, "tester"), "#!/bin/sh\necho VENV_OK\n");
    fs.writeFileSync(path.join(dir, "out.txt"), "41\n");
    const ch = kbz(["check"], { cwd: dir, env });
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("APPROVAL REQUIRED");
    expect(kbz(["status"], { cwd: dir, env }).code).toBe(1);
  });
});

describe("the CHECK shapes static reading cannot follow: the tracer sees what they run", () => {
  const shapes: [string, string][] = [
    ['cd "$(git rev-parse --show-toplevel)/tests" && node run.js', "cd $(git top)/tests"],
    ["D=tests; cd $D && node run.js", "D=tests; cd $D"],
    ["env -C tests node run.js", "env -C tests"],
    ["node -e 'require(\"./tests/run.js\")'", "node -e require"],
    ["find tests -name run.js -exec node {} \\;", "find -exec node"],
    ["for f in tests/*.js; do node $f; done", "for f in tests/*.js"],
  ];
  for (const [check, name] of shapes) {
    test.skipIf(!hasNode || !hasStrace)(`${name}: tests/cases.js rewritten to () => true is not MET`, () => {
      rewriteIsCaught(
        {
          "GATES.md": `# Gates\n\n${gate("K1", check, "CASES 2/2")}`,
          "tests/run.js":
            "const path = require('path');\nconst cases = require(path.join(__dirname, 'cases.js'));\nconst lib = require(path.join(__dirname, '..', 'lib.js'));\nconst ok = cases.filter((c) => c(lib)).length;\nconsole.log(`CASES ${ok}/${cases.length}`);\nprocess.exit(ok === cases.length ? 0 : 1);\n",
          "tests/cases.js": "module.exports = [(l) => l.add(1, 1) === 2, (l) => l.add(2, 2) === 4];\n",
          "lib.js": "exports.add = (a, b) => a + b;\n",
        },
        (r) => {
          r.write("lib.js", "exports.add = (a, b) => a - b;\n");
          r.write("tests/cases.js", "module.exports = [() => true, () => true];\n");
        },
        { git: true },
      );
    });
  }
});

describe("the work is never the oracle", () => {
  test.skipIf(!hasNode)(
    "an agent edits the declared WORK: bin/csvstat.js the CHECK runs: no new approval, the verdict is the work's",
    () => {
      const r = repo({
        "GATES.md": `# Gates\n\n${gate("W1", "node bin/csvstat.js fixtures/a.csv", "rows=2", "  WORK: bin/**\n  INPUTS: bin/**\n")}`,
        "bin/csvstat.js":
          "const fs = require('fs');\nconst n = fs.readFileSync(process.argv[2], 'utf8').trim().split('\\n').length - 1;\nconsole.log(`rows=${n}`);\n",
        "fixtures/a.csv": "a,b\n1,2\n3,4\n",
      });
      expect(r.run(["check", "--approve"]).stdout).toContain("ALL MET");
      r.write("bin/csvstat.js", "console.log('rows=0');\n"); // wrong work
      const bad = r.run(["check"]);
      expect(bad.stdout).not.toContain("APPROVAL REQUIRED");
      expect(bad.stdout).toContain("FAIL");
      r.write(
        "bin/csvstat.js",
        "const fs = require('fs');\nconst lines = fs.readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);\nconsole.log(`rows=${lines.length - 1}`);\n",
      );
      const good = r.run(["check"]);
      expect(good.stdout).not.toContain("APPROVAL REQUIRED");
      expect(good.stdout).toContain("ALL MET");
    },
  );

  test.skipIf(!hasNode)(
    "with nothing declared, the application file a test imports (app.mjs under test/run.mjs) is the work: no new approval",
    () => {
      const r = repo({
        "GATES.md": `# Gates\n\n${gate("T1", "npm test --silent", "TESTS 2/2 OK")}`,
        "package.json": JSON.stringify({ scripts: { test: "node test/run.mjs" } }),
        "test/run.mjs": RUN_MJS,
        "test/cases.mjs": CASES,
        "app.mjs": "export const add = (a, b) => a - b;\n",
      });
      const first = r.run(["check", "--approve"]);
      expect(first.stdout).toContain("FAIL");
      r.write("app.mjs", APP);
      const ch = r.run(["check"]);
      expect(ch.stdout).not.toContain("APPROVAL REQUIRED");
      expect(ch.stdout).toContain("ALL MET");
    },
  );
});

describe("the split is shown: lint asks for what no convention decides", () => {
  test("a file the CHECK runs outside the test folders, undeclared: lint asks 'the work or the oracle?'; WORK: answers it", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("W1", "node bin/csvstat.js fixtures/a.csv", "rows=2")}${gate("W2", "node bin/csvstat.js fixtures/a.csv", "rows=2", "  WORK: bin/**\n")}`,
      "bin/csvstat.js": "console.log('rows=2')\n",
      "fixtures/a.csv": "a\n1\n2\n",
    });
    const lint = r.run(["lint"]);
    expect(lint.stdout).toContain("W1: bin/csvstat.js is run by the CHECK and not declared: the work or the oracle?");
    expect(lint.stdout).toContain("[work-or-oracle]");
    expect(lint.stdout).not.toContain("W2: bin/csvstat.js");
  });
});

describe("executables, not PATH strings", () => {
  test.skipIf(!hasNode)(
    "approved with PATH A, the agent's PATH is A plus an unrelated folder: the CHECK runs without approval",
    () => {
      const r = repo({
        "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}`,
        "check.mjs": "console.log(1 + 1 === 2 ? 'ADD_OK' : 'NO')\n",
      });
      expect(r.run(["check", "--approve"]).stdout).toContain("ALL MET");
      const extra = tempDir();
      fs.symlinkSync("/bin/true", path.join(extra, "kbz"));
      const ch = r.run(["check", "--reverify"], { PATH: `${extra}:${PATH_A}` });
      expect(ch.stdout).not.toContain("APPROVAL REQUIRED");
      expect(ch.stdout).toContain("ALL MET");
    },
  );

  test.skipIf(!hasNode)("a folder in the root put first on PATH with its own node is an oracle change", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("G1", "node check.mjs", "ADD_OK")}`,
      "check.mjs": "console.log(1 + 1 === 3 ? 'ADD_OK' : 'NO')\n",
    });
    r.run(["check", "--approve"]);
    r.write("tools/node", "#!/bin/sh\necho ADD_OK\n");
    fs.chmodSync(path.join(r.dir, "tools", "node"), 0o755);
    const ch = r.run(["check"], { PATH: `${path.join(r.dir, "tools")}:${PATH_A}` });
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("APPROVAL REQUIRED");
    expect(ch.stdout).toContain("program node");
    expect(ch.stdout).not.toContain("ALL MET");
  });
});

describe("INPUTS that cover nothing", () => {
  test("an INPUTS entry matching nothing: unmet with the reason, and a lint error", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("I1", "cat src/real.txt", "REAL", "  INPUTS: src/missing/*.txt\n")}`,
      "src/real.txt": "REAL\n",
    });
    const lint = r.run(["lint"]);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain("INPUTS src/missing/*.txt matches no regular file");
    expect(lint.stdout).toContain("[inputs-unmatched]");
    const ch = r.run(["check", "--approve"]);
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("matches no regular file");
  });

  test("an INPUTS entry that is only a link: the link inside the root is followed, so breaking its target un-meets the gate", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("I2", "cat impl.txt", "IMPL_OK", "  INPUTS: impl.txt\n")}`,
      "src/real.txt": "IMPL_OK\n",
    });
    fs.symlinkSync("src/real.txt", path.join(r.dir, "impl.txt"));
    expect(r.run(["lint"]).stdout).not.toContain("[inputs-unmatched]");
    expect(r.run(["check", "--approve"]).stdout).toContain("ALL MET");
    r.write("src/real.txt", "BROKEN\n");
    const st = r.run(["status"]);
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("STALE");
  });

  test("an INPUTS entry that is only a link out of the root: unmet with the reason, and a lint error", () => {
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, "x.txt"), "X\n");
    const r = repo({ "GATES.md": `# Gates\n\n${gate("I3", "echo LINKED_OK", "LINKED_OK", "  INPUTS: impl.txt\n")}` });
    fs.symlinkSync(path.join(outside, "x.txt"), path.join(r.dir, "impl.txt"));
    expect(r.run(["lint"]).stdout).toContain("[inputs-unmatched]");
    const ch = r.run(["check", "--approve"]);
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("matches no regular file");
  });
});

describe("bad input: one located error, exit 2, nothing written", () => {
  test("a WORK: path outside the root", () => {
    const r = repo({ "GATES.md": `# Gates\n\n${gate("W1", "echo WORK_OK", "WORK_OK", "  WORK: ../elsewhere/**\n")}` });
    const before = hashTree(r.dir);
    const ch = r.run(["check", "--approve"]);
    expect(ch.code).toBe(2);
    expect(ch.stderr).toMatch(/GATES\.md:6: .*WORK path must stay inside the root: \.\.\/elsewhere\/\*\*/);
    expect(hashTree(r.dir)).toBe(before);
  });

  test("a WORK: entry overlapping ORACLE:", () => {
    const r = repo({
      "GATES.md": `# Gates\n\n${gate("W2", "node test/run.js", "OK_RUN", "  ORACLE: test/**\n  WORK: test/run.js\n")}`,
      "test/run.js": "console.log('OK_RUN')\n",
    });
    const before = hashTree(r.dir);
    const ch = r.run(["check", "--approve"]);
    expect(ch.code).toBe(2);
    expect(ch.stderr).toMatch(/GATES\.md:7: .*WORK test\/run\.js overlaps ORACLE test\/\*\*/);
    expect(hashTree(r.dir)).toBe(before);
  });

  test("a tracer that fails to start: the static closure stands in, said once", () => {
    const fake = path.join(tempDir(), "strace");
    fs.writeFileSync(fake, "#!/bin/sh\necho 'strace: ptrace(PTRACE_TRACEME): Operation not permitted' >&2\nexit 1\n");
    fs.chmodSync(fake, 0o755);
    const r = repo(
      {
        "GATES.md": `# Gates\n\n${gate("A1", "cat a.txt", "A_OK")}${gate("A2", "cat b.txt", "B_OK")}`,
        "a.txt": "A_OK\n",
        "b.txt": "B_OK\n",
      },
      { env: { KBZ_TRACER: fake } },
    );
    const ch = r.run(["check", "--approve"]);
    expect(ch.stdout).toContain("ALL MET");
    expect(ch.stderr.split("the static closure stands in").length - 1).toBe(1);
  });
});
