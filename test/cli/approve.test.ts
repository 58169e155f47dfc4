// kbz approve (issue 27): the person's review in a terminal shows the whole oracle (ops/approvalView.ts):
// CHECK, EXPECT, CWD, shell, PATH, the oracle files the CHECK runs and how, the ENV names it binds,
// and what changed since the last approval with a short diff from git. On the binary, as a person
// (script -qec, no agent marker) under the default person policy.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, fixtureCopy, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, gitRepo, personRun, withoutMarkers } from "../helpers/approvals.ts";

setDefaultTimeout(60_000);

const GATES =
  "- [ ] G1: two and two make four\n  CHECK: sh check.sh\n  EXPECT: ADD_OK\n  ENV: APP_MODE, NEVER_SET\n  ORACLE: t/*.txt\n";
const CHECKER = "test $((2+2)) = 4 && echo ADD_OK\n";

describe("kbz approve shows the whole oracle", () => {
  test("oracle files with how the CHECK reaches them, ENV names (unset marked), never approved before", () => {
    const dir = gitRepo({ "GATES.md": GATES, "check.sh": CHECKER, "t/a.txt": "a\n" });
    const env = checkEnv(undefined, { APP_MODE: "fast" });
    const r = personRun(BIN, ["approve"], { cwd: dir, env, input: "y\n" });
    expect(r.output).toContain("GATES:G1: two and two make four");
    expect(r.output).toContain("    CHECK:  sh check.sh");
    expect(r.output).toContain("    EXPECT: ADD_OK");
    expect(r.output).toMatch(new RegExp(`    CWD:    ${fs.realpathSync(dir)}\n`));
    expect(r.output).toContain("    SHELL:  ");
    expect(r.output).toMatch(/    PATH:   2 entries \(sha256 [0-9a-f]{12}; --verbose prints it\)/);
    expect(r.output).toContain("    ORACLE FILES: check.sh (sh), t/a.txt (ORACLE)");
    expect(r.output).toContain("    ENV:    APP_MODE, NEVER_SET (unset)");
    expect(r.output).toContain("    CHANGED: never approved before");
    expect(r.output).toContain("APPROVED GATES:G1");
    expect(r.code).toBe(0);
    const v = personRun(BIN, ["approve", "--verbose"], { cwd: dir, env: { ...env, APP_MODE: "slow" }, input: "q\n" });
    expect(v.output).toContain("    PATH:   /usr/bin:/bin");
  });

  test("after the checker is rewritten: what changed since the approval, with a unified diff of each file against its approved bytes (issue 39); the approved oracle then runs", () => {
    const dir = gitRepo({ "GATES.md": GATES, "check.sh": CHECKER, "t/a.txt": "a\n" });
    const env = checkEnv(undefined, { APP_MODE: "fast" });
    expect(personRun(BIN, ["approve"], { cwd: dir, env, input: "y\n" }).code).toBe(0);
    fs.writeFileSync(path.join(dir, "check.sh"), "echo ADD_OK\n"); // the agent's act
    fs.writeFileSync(path.join(dir, "t/b.txt"), "b\n");
    const agent = { ...env, CLAUDECODE: "1" };
    const ch = kbz(["check"], { cwd: dir, env: agent });
    // The agent's edit is judged against the approved checker, which passes.
    expect(ch.stdout).toContain("ORACLE EDITED check.sh, t/b.txt: judged against the approved version");
    expect(ch.code).toBe(0);
    const r = personRun(BIN, ["approve"], { cwd: dir, env: { ...env, APP_MODE: "slow" }, input: "n\n" });
    const changed = r.output.slice(r.output.indexOf("    CHANGED since the approval of "));
    expect(changed.split("\n").slice(0, 13)).toEqual([
      expect.stringMatching(/^    CHANGED since the approval of \d{4}-\d\d-\d\d:$/),
      "      oracle file changed: check.sh",
      "      oracle file added: t/b.txt",
      "      ENV value changed: APP_MODE",
      "      --- check.sh (approved)",
      "      +++ check.sh (now)",
      "      @@ -1,1 +1,1 @@",
      "      -test $((2+2)) = 4 && echo ADD_OK",
      "      +echo ADD_OK",
      "      --- /dev/null",
      "      +++ t/b.txt (now)",
      "      @@ -0,0 +1,1 @@",
      "      +b",
    ]);
    expect(r.output).toContain("not approved GATES:G1");
    expect(r.code).toBe(1);
    // The person approves the new oracle as shown; the agent's kbz check then runs it.
    expect(personRun(BIN, ["approve"], { cwd: dir, env, input: "y\n" }).code).toBe(0);
    expect(kbz(["check"], { cwd: dir, env: agent }).code).toBe(0);
    expect(kbz(["status"], { cwd: dir, env: agent }).stdout).toContain("ALL MET (1 met)");
  });
});

describe("kbz approve --scope S: one review for every CHECK of a scope", () => {
  const leaf = (n: number, extra = "") =>
    `OWNS: src/${n}/**\n\n- [ ] G1: leaf ${n} deliverable\n  CHECK: cat src/${n}/a.txt\n  EXPECT: ok\n  EVIDENCE: pending\n${extra}`;
  function scope(): { dir: string; env: Record<string, string> } {
    const dir = fixtureCopy("next-golden");
    writeTree(dir, {
      ".unlazy/api/gates/leaf-1.md": leaf(1),
      ".unlazy/api/gates/leaf-2.md": leaf(2),
      ".unlazy/api/gates/leaf-3.md": leaf(3, "- [ ] G2: leaf 3 also builds\n  CHECK: sh build.sh\n  EXPECT: BUILT\n"),
      "build.sh": "echo BUILT\n",
      "src/1/a.txt": "ok\n",
      "src/2/a.txt": "ok\n",
      "src/3/a.txt": "ok\n",
    });
    return { dir, env: checkEnv() };
  }
  const agent = (env: Record<string, string>) => ({ ...env, CLAUDECODE: "1" });

  test("every pending oracle of the scope in view, then one y approves them all; the agent's check --scope then runs them", () => {
    const { dir, env } = scope();
    const r = personRun(BIN, ["approve", "--scope", "api"], { cwd: dir, env, input: "y\n" });
    for (const q of ["leaf-1:G1", "leaf-2:G1", "leaf-3:G1", "leaf-3:G2"]) expect(r.output).toContain(`APPROVED ${q}`);
    const question = r.output.indexOf(
      "approve all 4 pending oracles of scope api shown above? [y]es [n]o [o]ne at a time [q]uit",
    );
    expect(question).toBeGreaterThan(0);
    // Every oracle is shown before the one question, whole.
    for (const shown of [
      "leaf-1:G1: leaf 1 deliverable",
      "leaf-3:G2: leaf 3 also builds",
      "    ORACLE FILES: build.sh (sh)",
    ]) {
      expect(r.output.indexOf(shown)).toBeGreaterThan(-1);
      expect(r.output.indexOf(shown)).toBeLessThan(question);
    }
    expect(r.output.match(/approve this oracle/g)).toBeNull(); // one question, not four
    expect(r.output).toContain("approved 4 of 4 pending oracle(s)");
    expect(r.code).toBe(0);
    const log = fs.readFileSync(path.join(env.UNLAZY_APPROVAL_DIR!, "kbz", "acts.log"), "utf8");
    expect(log.match(/ approve given=terminal .*\(kbz approve --scope api\)/g)?.length).toBe(4);
    const ch = kbz(["check", "--scope", "api"], { cwd: dir, env: agent(env) });
    expect(ch.stdout).not.toContain("APPROVAL REQUIRED");
    expect(ch.code).toBe(0);
  });

  test("n approves none (exit 1); o goes one at a time; the agent is refused", () => {
    const { dir, env } = scope();
    const no = personRun(BIN, ["approve", "--scope", "api"], { cwd: dir, env, input: "n\n" });
    expect(no.output).toContain("not approved: leaf-1:G1, leaf-2:G1, leaf-3:G1, leaf-3:G2");
    expect(no.output).toContain("approved 0 of 4 pending oracle(s)");
    expect(no.code).toBe(1);
    const one = personRun(BIN, ["approve", "--scope", "api"], { cwd: dir, env, input: "o\ny\nn\nq\n" });
    expect(one.output).toContain("approve this oracle (1/4)?");
    expect(one.output).toContain("APPROVED leaf-1:G1");
    expect(one.output).toContain("not approved leaf-2:G1");
    expect(one.output).toContain("approved 1 of 4 pending oracle(s)");
    expect(one.code).toBe(1);
    const refused = kbz(["approve", "--scope", "api"], { cwd: dir, env: agent(env) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("a person approves this");
    const ch = kbz(["check", "--scope", "api"], { cwd: dir, env: agent(env) });
    expect(ch.stdout).toContain("APPROVAL REQUIRED leaf-2:G1");
    expect(ch.code).toBe(1);
  });
});

describe("kbz approve --json", () => {
  test("stdout is one envelope carrying each oracle's view; the review goes to the terminal on stderr", () => {
    const dir = gitRepo({ "GATES.md": GATES, "check.sh": CHECKER, "t/a.txt": "a\n" });
    const env = withoutMarkers({ ...process.env, ...checkEnv(undefined, { APP_MODE: "fast" }) });
    // The person's terminal (stdin and stderr, where the review goes); stdout to a file.
    const outFile = path.join(tempDir(), "approve.json");
    const r = spawnSync("script", ["-qec", `'${BIN}' approve --json > '${outFile}'`, "/dev/null"], {
      cwd: dir,
      env,
      input: "y\n",
      encoding: "utf8",
    });
    expect(r.stdout).toContain("    ORACLE FILES: check.sh (sh), t/a.txt (ORACLE)");
    const j = JSON.parse(fs.readFileSync(outFile, "utf8"));
    expect([j.verdict, j.exit, j.approved]).toEqual(["approved", 0, ["GATES:G1"]]);
    expect(j.oracles[0].files).toEqual([
      { key: "check.sh", via: "sh", problem: null },
      { key: "t/a.txt", via: "ORACLE", problem: null },
    ]);
    expect(j.oracles[0].env).toEqual([
      { name: "APP_MODE", set: true },
      { name: "NEVER_SET", set: false },
    ]);
    expect(r.status).toBe(0);
  });
});
