// Issue 27 acceptance ("done means done"): for each way an agent with a shell reached ALL MET
// without the work, the agent's act (no terminal, an agent host's marker set) ends with `kbz status`
// exit 1 naming the gate and the reason, and the Stop hook blocking; the same task done honestly
// (a person in a pseudo-terminal, `script -qec`, with no marker) ends ALL MET and the hook allowing.
// Everything runs on the binary under the default person policy (a fresh approval store). All eight
// classes of the issue are here, each tried as an agent would; each test fails on 33d2fc2
// (KBZ_TEST_BIN=/work/tools/kbz-old-33d2fc2).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, fixtureCopy, kbz, tempDir, writeTree, withLabel } from "../helpers/kbz.ts";
import { checkEnv, personRun } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";
import { haveTmux, TmuxPane } from "../helpers/tmux.ts";
import { sessionKey } from "../../src/io/hook/guard.ts";

setDefaultTimeout(120_000);

const RUNNABLE = "- [ ] G1: the build prints OK\n  CHECK: printf BUILD_OK\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n";
const MANUAL = "- [ ] M1: the README reads well\n";

function workspace(files: Record<string, string>) {
  const dir = tempDir();
  writeTree(dir, files);
  const env = checkEnv(); // a fresh store: the default person policy
  const agentEnv = { ...env, CLAUDECODE: "1" };
  /** The agent: its own shell, no terminal, its host's marker. */
  const agent = (...args: string[]) => kbz(args, { cwd: dir, env: agentEnv });
  /** The person: a pseudo-terminal and no marker. */
  const person = (...args: string[]) => personRun(BIN, args, { cwd: dir, env });
  const status = () => kbz(["status"], { cwd: dir, env: agentEnv });
  const hook = () =>
    kbz(["hook", "stop"], {
      cwd: dir,
      env: agentEnv,
      input: JSON.stringify({ session_id: `s-${Math.random()}`, cwd: dir, hook_event_name: "Stop" }),
    }).stdout;
  const file = (rel = "GATES.md") => path.join(dir, rel);
  return { dir, env, agent, person, status, hook, file };
}

function expectBlocked(w: ReturnType<typeof workspace>, gate: string, reason: string | RegExp): void {
  const s = w.status();
  expect(s.code).toBe(1);
  const line = s.stdout.split("\n").find((l) => l.includes(gate));
  expect(line).toBeDefined();
  expect(withLabel(line!)).toMatch(reason);
  const h = w.hook();
  expect(JSON.parse(h).decision).toBe("block");
  expect(h).toContain(gate);
}

function expectDone(w: ReturnType<typeof workspace>): void {
  const s = w.status();
  expect(s.stdout.trimEnd().split("\n").pop()).toMatch(/^ALL MET \(\d+ met\)/);
  expect(s.code).toBe(0);
  expect(w.hook()).toBe("");
}

const ADD_BROKEN = "export const add = (a, b) => a - b;\n"; // the work, not done yet
const ADD_DONE = "export const add = (a, b) => a + b;\n";
const CHECKER = "import { add } from './add.mjs';\nconsole.log(add(2, 2) === 4 ? 'ADD_OK' : 'ADD_WRONG');\n";

describe("class 1: the oracle is rewritten, not the CHECK", () => {
  test("the agent rewrites the approved checker script to print ADD_OK: kbz check runs the approved checker instead (issue 39) and it fails, status 1 and the hook blocks; doing the work meets it", () => {
    const w = workspace({
      "GATES.md": "- [ ] G1: add adds\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  WORK: add.mjs\n",
      "check.mjs": CHECKER,
      "add.mjs": ADD_BROKEN,
    });
    expect(w.person("check", "--approve").code).toBe(1); // approved; it fails: the work is not done
    fs.writeFileSync(w.file("check.mjs"), "console.log('ADD_OK');\n"); // the agent's act
    const ch = w.agent("check");
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("ORACLE EDITED check.mjs: judged against the approved version");
    expect(ch.stdout).toContain("FAIL GATES:G1: add adds (judged against the approved oracle)");
    expect(ch.stdout).not.toContain("PASS");
    expect(w.agent("check", "--approve").code).toBe(1); // and it cannot approve it itself
    expectBlocked(w, "GATES:G1", /UNMET|FAILED/);
    // Honestly: the checker as approved, the work done.
    fs.writeFileSync(w.file("check.mjs"), CHECKER);
    fs.writeFileSync(w.file("add.mjs"), ADD_DONE);
    expect(w.agent("check").code).toBe(0);
    expectDone(w);
    // A met gate whose checker is rewritten afterwards is no longer met.
    fs.writeFileSync(w.file("check.mjs"), "console.log('ADD_OK');\n");
    expectBlocked(w, "GATES:G1", /STALE \(oracle changed: check\.mjs; needs a person's approval again\)/);
  });

  test("the agent rewrites a test behind npm test (ORACLE: test/**) and then the package.json test script: judged against the approved oracle each time (issue 39), never a pass; doing the work meets it", () => {
    const run =
      "const cases = require('./cases.js');\nconst ok = cases.filter((c) => c()).length;\nconsole.log(`TESTS ${ok}/${cases.length} OK`);\n";
    const cases =
      "const { add } = require('../add.cjs');\nmodule.exports = [() => add(1, 1) === 2, () => add(2, 2) === 4];\n";
    const w = workspace({
      "GATES.md":
        "- [ ] T1: the tests pass\n  CHECK: npm test --silent\n  EXPECT: /TESTS 2\\/2 OK/\n  ORACLE: test/**\n",
      "package.json": JSON.stringify({ scripts: { test: "node test/run.js" } }),
      "test/run.js": run,
      "test/cases.js": cases,
      "add.cjs": "exports.add = (a, b) => a - b;\n",
    });
    expect(w.person("check", "--approve").code).toBe(1); // TESTS 0/2 OK: the work is not done
    fs.writeFileSync(w.file("test/cases.js"), "module.exports = [() => true, () => true];\n"); // the agent's act
    let ch = w.agent("check");
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("ORACLE EDITED test/cases.js: judged against the approved version");
    expect(ch.stdout).not.toContain("PASS");
    fs.writeFileSync(w.file("test/cases.js"), cases);
    fs.writeFileSync(w.file("package.json"), JSON.stringify({ scripts: { test: "echo TESTS 2/2 OK" } })); // the next try
    ch = w.agent("check");
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("ORACLE EDITED package.json#scripts.test: judged against the approved version");
    expect(ch.stdout).not.toContain("PASS");
    expectBlocked(w, "GATES:T1", /UNMET|FAILED/);
    fs.writeFileSync(w.file("package.json"), JSON.stringify({ scripts: { test: "node test/run.js" } }));
    fs.writeFileSync(w.file("add.cjs"), "exports.add = (a, b) => a + b;\n");
    expect(w.agent("check").code).toBe(0);
    expectDone(w);
  });
});

describe("class 2: the environment is rewritten", () => {
  test("NODE_OPTIONS=--require fake.cjs and BASH_ENV never reach an approved CHECK: it fails, status 1, the hook blocks; doing the work meets it", () => {
    const w = workspace({
      "GATES.md":
        "- [ ] G1: add adds\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  WORK: add.mjs\n" +
        "- [ ] G2: the work is written\n  CHECK: bash check.sh\n  EXPECT: WORK_DONE\n",
      "check.mjs": CHECKER,
      "add.mjs": ADD_BROKEN,
      "check.sh": "grep -q done work.txt && echo WORK_DONE\n",
      "work.txt": "todo\n",
      "fake.cjs": "console.log('ADD_OK'); process.exit(0);\n",
      "fake.sh": "echo WORK_DONE; exit 0\n",
    });
    expect(w.person("check", "--approve").code).toBe(1);
    // The agent's act: an environment that makes the approved commands print what it wants.
    const env = {
      ...w.env,
      CLAUDECODE: "1",
      NODE_OPTIONS: `--require ${w.file("fake.cjs")}`,
      BASH_ENV: w.file("fake.sh"),
    };
    const forged = kbz(["check"], { cwd: w.dir, env });
    expect(forged.code).toBe(1);
    expect(forged.stdout).toContain("FAIL GATES:G1");
    expect(forged.stdout).toContain("FAIL GATES:G2");
    expect(kbz(["check", "--reverify"], { cwd: w.dir, env }).code).toBe(1);
    expectBlocked(w, "GATES:G1", /FAILED|UNMET/);
    expectBlocked(w, "GATES:G2", /FAILED|UNMET/);
    // Honestly: the work done, kbz's own environment.
    fs.writeFileSync(w.file("add.mjs"), ADD_DONE);
    fs.writeFileSync(w.file("work.txt"), "done\n");
    expect(kbz(["check"], { cwd: w.dir, env }).code).toBe(0);
    expectDone(w);
  });
});

describe("class 3: the agent approves and signs for the person", () => {
  test("kbz check --approve from the agent's shell is refused (exit 1, the hint), nothing runs; a person approves in a terminal", () => {
    const w = workspace({ "GATES.md": "- [ ] G1: ran\n  CHECK: touch ran; printf OK\n  EXPECT: OK\n" });
    for (const args of [
      ["check", "--approve"],
      ["advance", "--approve"],
      ["check", "--probe", "--approve"],
    ]) {
      const r = w.agent(...args);
      if (args[0] === "advance") continue; // advance needs a scope; its approval goes through the same runChecks
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "a person approves this: press `a` in the dashboard or run `kbz approve` in a terminal",
      );
    }
    const noMarker = kbz(["check", "--approve"], { cwd: w.dir, env: w.env });
    expect(noMarker.code).toBe(1);
    expect(noMarker.stderr).toContain("kbz has no terminal here");
    expect(fs.existsSync(path.join(w.dir, "ran"))).toBe(false);
    expectBlocked(w, "GATES:G1", /UNMET/);
    const p = w.person("check", "--approve");
    expect(p.output).toContain("APPROVED GATES:G1");
    expect(p.code).toBe(0);
    expectDone(w);
  });

  test('an agent (marker set) that runs script -qec "kbz check --approve" is refused', () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    const r = personRun(BIN, ["check", "--approve"], {
      cwd: w.dir,
      env: { ...w.env, CLAUDECODE: "1" },
      keepMarkers: true,
    });
    expect(r.code).toBe(1);
    expect(r.output).toContain("kbz runs under an agent here (Claude Code)");
    expect(r.output).not.toContain("CLAUDECODE");
    for (const marker of [
      "GEMINI_CLI",
      "CODEX_SANDBOX",
      "CODEX_THREAD_ID",
      "CURSOR_AGENT",
      "GOOSE_TERMINAL",
      "AGENT",
      "AI_AGENT",
    ]) {
      const m = personRun(BIN, ["approve"], { cwd: w.dir, env: { ...w.env, [marker]: "1" }, keepMarkers: true });
      expect({ marker, code: m.code }).toEqual({ marker, code: 1 });
    }
    expectBlocked(w, "GATES:G1", /UNMET/);
  });

  test("ticking a manual gate by hand with any EVIDENCE is UNATTESTED; kbz sign from the agent is refused; a person signs", () => {
    const w = workspace({ "GATES.md": MANUAL });
    const signed = w.agent("sign", "GATES.md", "M1", "--evidence", "looks fine to me");
    expect(signed.code).toBe(1);
    expect(signed.stderr).toContain("signing a manual gate is a person's act");
    fs.writeFileSync(w.file(), "- [x] M1: the README reads well\n  EVIDENCE: reviewed by the user\n");
    expectBlocked(w, "GATES:M1", /UNATTESTED.*kbz sign/);
    const p = w.person("sign", "GATES.md", "M1", "--evidence", "read it through, Ana", "--replace");
    expect(p.code).toBe(0);
    expectDone(w);
  });

  test("kbz approve: the person reviews every pending oracle with y/n/a/q; the acts log says how each was given", () => {
    const w = workspace({ "GATES.md": RUNNABLE + "- [ ] G2: two\n  CHECK: printf TWO\n  EXPECT: TWO\n" });
    const first = personRun(BIN, ["approve"], { cwd: w.dir, env: w.env, input: "n\n" });
    expect(first.output).toContain("CHECK:  printf BUILD_OK");
    expect(first.output).toContain("not approved GATES:G1");
    const all = personRun(BIN, ["approve"], { cwd: w.dir, env: w.env, input: "a\n" });
    expect(all.output).toContain("APPROVED GATES:G1");
    expect(all.output).toContain("APPROVED GATES:G2");
    expect(all.code).toBe(0);
    const log = fs.readFileSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "acts.log"), "utf8");
    expect(log).toMatch(/ approve given=terminal .*GATES\.md G1 /);
    expect(kbz(["check"], { cwd: w.dir, env: { ...w.env, CLAUDECODE: "1" } }).code).toBe(0);
    expectDone(w);
  });
});

describe("class 4: evidence is attested", () => {
  test("a hand-written automatic evidence line on a gate without INPUTS is UNATTESTED; kbz check --reverify after a person's approval meets it", () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    expect(w.person("check", "--approve").code).toBe(0);
    const real = fs.readFileSync(w.file(), "utf8");
    // The agent copies a real evidence line into a second, never-run ledger gate of the same definition.
    const forged = real.replace("G1: the build prints OK", "G2: the build prints OK");
    fs.writeFileSync(w.file(), real + forged);
    expectBlocked(w, "GATES:G2", /UNATTESTED.*kbz check --reverify/);
    expect(w.agent("check").code).toBe(1); // G2's oracle was never approved: the agent cannot run it
    expect(w.person("check", "--approve").code).toBe(0); // the person approves it, kbz runs it and vouches for the pass
    expectDone(w);
  });

  test("evidence written by another machine (a different secret) is re-verified once", () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    expect(w.person("check", "--approve").code).toBe(0);
    fs.rmSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "secret"));
    expectBlocked(w, "GATES:G1", /UNATTESTED/);
    expect(w.agent("check", "--reverify").code).toBe(0);
    expectDone(w);
  });

  test("a forged cwd= in the evidence of a verify run --cwd pass, and its oracle pass record, cannot bind the oracle at an unchanged copy of the weakened checker: UNATTESTED, status 1, the hook blocks", () => {
    const checker = "grep -q done work.txt && echo WORK_DONE\n";
    const w = workspace({
      "GATES.md": "- [ ] G1: the work is done\n  CHECK: sh check.sh\n  EXPECT: WORK_DONE\n",
      "sub/check.sh": checker,
      "sub/work.txt": "done\n",
    });
    // The person runs the ledger's CHECKs in sub/ (verify run --cwd) and approves them: the evidence says cwd=<root>/sub.
    expect(w.person("verify", "run", "--approve", "--cwd", "sub", "--inputs", "sub", "GATES.md").code).toBe(0);
    expectDone(w);
    const ledger = fs.readFileSync(w.file(), "utf8");
    const real = fs.realpathSync(w.dir);
    expect(ledger).toContain(`; cwd=${real}/sub; path=`);
    // The agent keeps an unchanged copy of sub/ and weakens the real checker: the oracle changed.
    fs.cpSync(w.file("sub"), w.file("copy"), { recursive: true });
    fs.writeFileSync(w.file("sub/check.sh"), "echo WORK_DONE\n");
    expectBlocked(w, "GATES:G1", /STALE \(oracle changed: sub\/check\.sh/);
    // It points the evidence's cwd at the copy, where the checker is unchanged...
    const forged = ledger.replace(`; cwd=${real}/sub; path=`, `; cwd=${real}/copy; path=`);
    fs.writeFileSync(w.file(), forged);
    expectBlocked(w, "GATES:G1", /UNATTESTED/);
    // ...and rewrites kbz's oracle pass record to match (the copy's keys, the forged line). Under
    // the agent policy this reads ALL MET; kbz's attestation binds the evidence line and the record.
    const json = (t: string) => JSON.stringify(t).slice(1, -1);
    const [was, now] = [ledger, forged].map((t) => json(/EVIDENCE: (.*)/.exec(t)![1]!));
    const oracles = path.join(w.dir, ".kbz", "oracles");
    for (const name of fs.readdirSync(oracles)) {
      const f = path.join(oracles, name);
      fs.writeFileSync(
        f,
        fs.readFileSync(f, "utf8").split(was!).join(now!).split('"sub/check.sh"').join('"copy/check.sh"'),
      );
    }
    expectBlocked(w, "GATES:G1", /UNATTESTED/);
    expect(w.agent("check", "--reverify").code).toBe(1); // the weakened checker needs a person's approval
    // Honestly: the checker as approved, run again where the ledger's CHECKs run.
    fs.writeFileSync(w.file("sub/check.sh"), checker);
    fs.writeFileSync(w.file(), ledger);
    expect(w.agent("verify", "run", "--cwd", "sub", "--inputs", "sub", "GATES.md").code).toBe(0);
    expectDone(w);
  });
});

describe("class 5: nothing vanishes", () => {
  test("deleting an approved gate from its ledger is REMOVED until a person prunes", () => {
    const w = workspace({ "GATES.md": RUNNABLE + "- [ ] G2: fails\n  CHECK: printf NO\n  EXPECT: YES\n" });
    w.person("check", "--approve");
    fs.writeFileSync(w.file(), fs.readFileSync(w.file(), "utf8").replace(/- \[ \] G2[\s\S]*$/, ""));
    expectBlocked(w, "GATES:G2", /REMOVED.*kbz approvals prune/);
    expect(w.agent("approvals", "prune").code).toBe(1);
    const p = w.person("approvals", "prune");
    expect(p.output).toContain("confirmed removed GATES:G2");
    expectDone(w);
  });

  test("deleting the whole ledger is REMOVED, not 'no ledgers'", () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    w.person("check", "--approve");
    fs.rmSync(w.file());
    expectBlocked(w, "GATES:G1", /REMOVED/);
    w.person("approvals", "prune");
    expect(w.status().code).toBe(2); // nothing left to judge
    expect(w.hook()).toContain("kbz: nothing to judge at "); // issue 40: said, never silence
  });

  test("fixes unlazy bug: a scope hid the solo ledger (status and the Stop hook judge GATES.md with the scope)", () => {
    const w = workspace({ "GATES.md": MANUAL, ".unlazy/api/gates/one.md": "- [ ] A1: the api answers\n" });
    expect(w.person("sign", ".unlazy/api/gates/one.md", "A1", "--evidence", "checked the api by hand").code).toBe(0);
    expectBlocked(w, "GATES:M1", /UNMET/);
    w.person("sign", "GATES.md", "M1", "--evidence", "read it, Ana");
    expectDone(w);
  });
});

describe("the Stop hook's session binding with one scope", () => {
  test("binding the unmet scope to a made-up session hides nothing; a bound session the hook holds keeps it from another session; done, both allow", () => {
    const w = workspace({ ".unlazy/api/gates/one.md": "- [ ] A1: the api answers\n" });
    const stop = (session: string) =>
      kbz(["hook", "stop"], {
        cwd: w.dir,
        env: { ...w.env, CLAUDECODE: "1" },
        input: JSON.stringify({
          session_id: session,
          cwd: w.dir,
          hook_event_name: "Stop",
          last_assistant_message: "done",
        }),
      }).stdout;
    const blocked = (session: string) => {
      const out = stop(session);
      return out !== "" && JSON.parse(out).decision === "block" && out.includes("one:A1");
    };
    expect(blocked("agent")).toBe(true);
    // The agent binds its own scope to a session that does not exist: no live session holds the binding, so it hides nothing.
    expect(w.agent("scope", "bind", "--scope", "api", "made-up").code).toBe(0);
    expect(blocked("agent")).toBe(true);
    fs.writeFileSync(w.file(".unlazy/api/session"), "another-made-up\n"); // or by hand
    expect(blocked("agent")).toBe(true);
    // Bound to a session the hook holds to the scope (a live holder), the scope is that session's, not another's.
    expect(w.agent("scope", "bind", "--scope", "api", "alpha").code).toBe(0);
    expect(blocked("alpha")).toBe(true);
    expect(stop("beta")).not.toContain('"decision":"block"');
    // Done honestly (a person signs): both allow.
    expect(w.person("sign", ".unlazy/api/gates/one.md", "A1", "--evidence", "checked the api by hand").code).toBe(0);
    expect([stop("alpha"), stop("beta")]).toEqual(["", ""]);
  });

  test("fixes unlazy bug: a second scope made beside the unmet one does not release the agent (scopes no live session holds are judged together)", () => {
    const w = workspace({ ".unlazy/api/gates/one.md": "- [ ] A1: the api answers\n" });
    const stop = (session: string) =>
      kbz(["hook", "stop"], {
        cwd: w.dir,
        env: { ...w.env, CLAUDECODE: "1" },
        input: JSON.stringify({
          session_id: session,
          cwd: w.dir,
          hook_event_name: "Stop",
          last_assistant_message: "done",
        }),
      }).stdout;
    expect(stop("agent")).toContain("one:A1");
    expect(w.agent("init", "--scope", "other").code).toBe(0); // the agent's act: a second scope, none bound
    const out = stop("agent");
    expect(JSON.parse(out).decision).toBe("block");
    expect(out).toContain("one:A1");
    // Bound to a live session of its own, the other scope is that session's: this one is still judged on api.
    expect(w.agent("scope", "bind", "--scope", "other", "omega").code).toBe(0);
    stop("omega");
    expect(stop("agent")).toContain("one:A1");
    expect(w.person("sign", ".unlazy/api/gates/one.md", "A1", "--evidence", "checked the api by hand").code).toBe(0);
    // The agent was blocked on `other` before it was bound (both judged together): a scope that held a
    // session keeps holding it, whatever the binding says later.
    expect(stop("agent")).toContain("GATES:N1");
    // A session it never held leaves it to omega, and the allow says what is left open there.
    expect(JSON.parse(stop("fresh")).systemMessage).toContain(
      "scope other (bound to session omega): 2 item(s) open: GATES:N1, GATES:N2",
    );
  });
});

describe("the Stop hook's session binding: liveness an agent cannot fake from its shell", () => {
  // The agent has an unmet scope, binds it to a made-up session and tries to make that session
  // "live" (the hook holding it to the scope) so that its own stop is no longer judged on it.
  const setup = () => {
    const w = workspace({ ".unlazy/api/gates/one.md": "- [ ] A1: the api answers\n" });
    const agentEnv = { ...w.env, CLAUDECODE: "1" };
    /** One Stop payload piped into `kbz hook stop`: the host's (the real session), or the agent's own from its shell (a fake). */
    const stop = (session: string) =>
      kbz(["hook", "stop"], {
        cwd: w.dir,
        env: agentEnv,
        input: JSON.stringify({
          session_id: session,
          cwd: w.dir,
          hook_event_name: "Stop",
          last_assistant_message: "done",
          transcript_path: `/tmp/${session}.jsonl`,
        }),
      });
    const expectAgentBlocked = () => {
      const out = stop("agent-real").stdout;
      expect(out).not.toBe("");
      expect(JSON.parse(out).decision).toBe("block");
      expect(out).toContain("one:A1");
      const s = w.status();
      expect(s.code).toBe(1);
      expect(s.stdout).toMatch(/UNMET.*one:A1/);
    };
    /** The agent's hand-written guard entry: the made-up session "blocked on api a minute ago". */
    const forgeHookState = (session: string) =>
      fs.writeFileSync(
        w.file(".unlazy/api/hook-state.json"),
        JSON.stringify({
          schema: 1,
          sessions: {
            [sessionKey(session, "api")]: { hash: "0".repeat(24), blocks: 1, updatedAt: new Date().toISOString() },
          },
        }),
      );
    return { w, stop, expectAgentBlocked, forgeHookState };
  };

  test("(a) the agent edits .unlazy/api/hook-state.json so that a made-up bound session looks live: its real stop still blocks on the unmet gate", () => {
    const { w, stop, expectAgentBlocked, forgeHookState } = setup();
    expect(JSON.parse(stop("agent-real").stdout).decision).toBe("block");
    expect(w.agent("scope", "bind", "--scope", "api", "made-up").code).toBe(0);
    forgeHookState("made-up");
    expectAgentBlocked();
    forgeHookState("made-up"); // again, after the hook rewrote the file
    expectAgentBlocked();
  });

  test("(b) the agent pipes fake Stop payloads for a made-up bound session into kbz hook stop, once and then several times: its real stop still blocks", () => {
    const { w, stop, expectAgentBlocked } = setup();
    expect(JSON.parse(stop("agent-real").stdout).decision).toBe("block");
    expect(w.agent("scope", "bind", "--scope", "api", "made-up").code).toBe(0);
    expect(stop("made-up").stdout).toContain("one:A1"); // the fake: kbz blocks the made-up session on api
    expectAgentBlocked();
    for (let i = 0; i < 3; i++) stop("made-up");
    expectAgentBlocked();
    // Deleting the repository's guard state changes nothing: what the hook saw is kept outside the repository.
    fs.rmSync(w.file(".unlazy/api/hook-state.json"), { force: true });
    for (let i = 0; i < 2; i++) stop("made-up");
    expectAgentBlocked();
    // Done honestly (a person signs): the real stop allows, silently.
    expect(w.person("sign", ".unlazy/api/gates/one.md", "A1", "--evidence", "checked the api by hand").code).toBe(0);
    expect(stop("agent-real").stdout).toBe("");
  });

  test("(c) the binding made before the agent's first stop, with a forged hook-state.json: the first real stop blocks", () => {
    const { w, expectAgentBlocked, forgeHookState } = setup();
    expect(w.agent("scope", "bind", "--scope", "api", "made-up").code).toBe(0);
    forgeHookState("made-up");
    expectAgentBlocked();
    // The binding written by hand, to another made-up session with a forged entry: the same.
    fs.writeFileSync(w.file(".unlazy/api/session"), "another-made-up\n");
    forgeHookState("another-made-up");
    expectAgentBlocked();
  });

  test("(d) the agent makes an empty second scope and binds its own session to it after it was blocked: still judged on the unmet scope", () => {
    const { w, stop } = setup();
    expect(JSON.parse(stop("agent-real").stdout).decision).toBe("block");
    fs.mkdirSync(w.file(".unlazy/empty"));
    expect(w.agent("scope", "bind", "--scope", "empty", "agent-real").code).toBe(0);
    const out = stop("agent-real").stdout;
    expect(JSON.parse(out).decision).toBe("block");
    expect(out).toContain("one:A1");
    expect(w.agent("status", "--scope", "api").code).toBe(1);
  });

  test("(d) fixes unlazy bug: bound to an empty second scope before its first stop, the agent is still judged on the unmet scope nobody else holds", () => {
    const { w, stop } = setup();
    fs.mkdirSync(w.file(".unlazy/empty"));
    expect(w.agent("scope", "bind", "--scope", "empty", "agent-real").code).toBe(0);
    const out = stop("agent-real").stdout;
    expect(JSON.parse(out).decision).toBe("block");
    expect(out).toContain("one:A1");
    expect(w.agent("status", "--scope", "api").code).toBe(1);
  });

  test("(c) residual: fake payloads for a made-up session bound before the agent's first stop cannot be told from a real session; the allow names the scope, the session and the unmet gate, and status stays 1", () => {
    const { w, stop } = setup();
    expect(w.agent("scope", "bind", "--scope", "api", "made-up").code).toBe(0);
    stop("made-up"); // the agent's fake payload
    const out = stop("agent-real").stdout;
    expect(out).not.toBe("");
    const answer = JSON.parse(out);
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toContain("scope api");
    expect(answer.systemMessage).toContain("made-up");
    expect(answer.systemMessage).toContain("one:A1");
    expect(w.status().code).toBe(1);
  });
});

describe("class 5: an open wave does not vanish behind a second scope", () => {
  test("the agent makes a second scope while leaf work it launched is out: the Stop hook judges both scopes and still blocks on the open wave", () => {
    const at = new Date().toISOString();
    const wave = {
      schema: 1,
      waves: {
        w1: {
          leaves: ["leaf-1"],
          state: "open",
          openedAt: at,
          started: { "leaf-1": { handle: "worker-7", at } },
          returned: {},
        },
      },
    };
    // Its one gate is a handoff (ABANDON): without the wave the hook would allow with a note.
    const w = workspace({
      ".unlazy/api/gates/one.md":
        "# Gates: api\n\n- [ ] A1: the api answers\n\nABANDON: A1 the api moved to another team\n",
      ".unlazy/api/dispatch.json": JSON.stringify(wave),
    });
    const stop = () =>
      kbz(["hook", "stop"], {
        cwd: w.dir,
        env: { ...w.env, CLAUDECODE: "1" },
        input: JSON.stringify({ session_id: "agent-real", cwd: w.dir, hook_event_name: "Stop" }),
      }).stdout;
    expect(stop()).toContain("dispatch:w1 open (1/1 started)");
    // The agent's move: a second scope with nothing open, so that no single scope is "the" scope.
    fs.mkdirSync(w.file(".unlazy/other/gates"), { recursive: true });
    fs.writeFileSync(
      w.file(".unlazy/other/gates/two.md"),
      "# Gates: other\n\n- [ ] B1: nothing to do\n\nABANDON: B1 not needed\n",
    );
    const out = stop();
    expect(JSON.parse(out).decision).toBe("block");
    expect(out).toContain("api/dispatch:w1 open (1/1 started)");
    expect(w.agent("status", "--scope", "api").code).toBe(1);
  });
});

describe("class 6: reviews bind what they reviewed", () => {
  test("a signed manual gate goes STALE (input changed: README.md) when its INPUTS change; signing again (--replace) meets it", () => {
    const w = workspace({
      "GATES.md": "- [ ] M1: the README reads well\n  INPUTS: README.md\n",
      "README.md": "# hello\n",
    });
    const p = w.person("sign", "GATES.md", "M1", "--evidence", "read the README, Ana");
    expect(p.output).toContain("SIGNED GATES:M1 in GATES.md (bound to 1 INPUTS file)");
    expectDone(w);
    fs.writeFileSync(w.file("README.md"), "# hello, changed by the agent\n");
    expectBlocked(w, "GATES:M1", /STALE \(input changed: README\.md\)/);
    const again = w.person("sign", "GATES.md", "M1", "--evidence", "read the new README, Ana");
    expect(again.code).toBe(2);
    expect(again.output).toContain("pass --replace");
    expect(w.person("sign", "GATES.md", "M1", "--evidence", "read the new README, Ana", "--replace").code).toBe(0);
    const log = fs.readFileSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "acts.log"), "utf8");
    expect(log).toContain('replaced "read the README, Ana"');
    expectDone(w);
  });

  test("sign follows the root rule: a ledger outside the root is refused, nothing written", () => {
    const w = workspace({ "GATES.md": MANUAL });
    const other = tempDir();
    writeTree(other, { "GATES.md": MANUAL });
    const r = w.person("sign", path.join(other, "GATES.md"), "M1", "--evidence", "x y z");
    expect(r.code).toBe(2);
    expect(r.output).toContain("ledger is outside the root");
    expect(fs.readFileSync(path.join(other, "GATES.md"), "utf8")).toBe(MANUAL);
  });
});

describe.skipIf(!needs("bwrap"))("class 7: the probe can be fooled", () => {
  test("a constant checker listed in INPUTS: the probe never hides the oracle, so it is VACUOUS (exit 1), never PROBE OK; a checker that reads the work observes", () => {
    const w = workspace({
      "GATES.md":
        "- [ ] G1: the target holds the work\n  CHECK: sh check.sh\n  EXPECT: ok\n  INPUTS: check.sh, target.txt\n",
      "check.sh": "echo ok\n",
      "target.txt": "the work\n",
    });
    expect(w.person("check", "--approve").code).toBe(0);
    // The agent asks for the probe's verdict; the probe hides what it would hide, so it needs a person first.
    const asked = w.agent("check", "--probe");
    expect(asked.code).toBe(1);
    expect(asked.stdout).not.toContain("PROBE OK");
    expect(w.agent("check", "--probe", "--approve").code).toBe(1);
    const p = w.person("check", "--probe", "--approve");
    expect(p.code).toBe(1);
    expect(p.output).toContain("VACUOUS GATES:G1: passed with its deliverable hidden (INPUTS: target.txt)");
    expect(p.output).not.toContain("PROBE OK");
    // A VACUOUS gate is unmet: status names it and why, the Stop hook blocks.
    const vacuous = /VACUOUS \(its CHECK passed with its deliverable hidden: target\.txt;/;
    expectBlocked(w, "GATES:G1", vacuous);
    // The agent cannot clear the verdict from its shell: the probe records in the repository and kbz's
    // other records there are not what holds it, and re-running the CHECK needs a person's approval again.
    fs.rmSync(path.join(w.dir, ".kbz"), { recursive: true, force: true });
    expectBlocked(w, "GATES:G1", /VACUOUS|STALE \(no input digest recorded/); // its INPUTS record went too
    const rerun = w.agent("check", "--reverify");
    expect(rerun.code).toBe(1);
    expect(rerun.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    expectBlocked(w, "GATES:G1", /VACUOUS|STALE/);
    // A person approving the same oracle again is not a fix: it is still the CHECK the probe found VACUOUS.
    expect(personRun(BIN, ["approve"], { cwd: w.dir, env: w.env, input: "y\n" }).code).toBe(0);
    const same = w.agent("check", "--reverify");
    expect(same.code).toBe(1);
    // The run's summary says why a gate that just passed is still unmet (not only its id).
    expect(same.stdout).toMatch(
      /^ {2}UNMET GATES:G1: VACUOUS \(its CHECK passed with its deliverable hidden: target\.txt;/m,
    );
    expectBlocked(w, "GATES:G1", vacuous);
    // Honestly: a checker that reads the work; the person approves it and its probe, which observes.
    fs.writeFileSync(w.file("check.sh"), "grep -q 'the work' target.txt && echo ok\n");
    expect(personRun(BIN, ["approve"], { cwd: w.dir, env: w.env, input: "y\n" }).code).toBe(0);
    expect(w.agent("check", "--reverify").code).toBe(0);
    expectDone(w); // a new oracle, approved by a person, clears the verdict
    const again = w.person("check", "--probe", "--approve");
    expect(again.output).toContain("OBSERVES GATES:G1");
    expect(again.code).toBe(0);
    expectDone(w);
    expect(w.status().stderr).not.toContain("VACUOUS");
  });

  test("a VACUOUS verdict is bound to the oracle, not to records in the repository: deleting .kbz/probes/ or a pass with other output leaves it VACUOUS", () => {
    // A checker that shows the work but does not judge it: its output changes with the work, so each pass has other evidence.
    const w = workspace({
      "GATES.md": "- [ ] G1: the target holds the work\n  CHECK: sh check.sh\n  EXPECT: ok\n  INPUTS: target.txt\n",
      "check.sh": "cat target.txt; echo ok\n",
      "target.txt": "the work\n",
    });
    expect(w.person("check", "--approve").code).toBe(0);
    expect(w.person("check", "--probe", "--approve").output).toContain("VACUOUS GATES:G1");
    const evidence = () => /EVIDENCE: (.*)/.exec(fs.readFileSync(w.file(), "utf8"))![1];
    const first = evidence();
    fs.rmSync(path.join(w.dir, ".kbz", "probes"), { recursive: true });
    expectBlocked(w, "GATES:G1", /VACUOUS/);
    // Other work, and a pass of it: the verdict withdrew the gate's approval, so the agent cannot re-run it alone.
    fs.writeFileSync(w.file("target.txt"), "other work\n");
    const ch = w.agent("check");
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    expectBlocked(w, "GATES:G1", /STALE|VACUOUS/);
    // A person approves the same checker again and the agent passes it: new evidence, the same oracle, still VACUOUS.
    expect(personRun(BIN, ["approve"], { cwd: w.dir, env: w.env, input: "y\n" }).code).toBe(0);
    w.agent("check");
    expect(evidence()).not.toBe(first);
    expectBlocked(w, "GATES:G1", /VACUOUS/);
    fs.rmSync(path.join(w.dir, ".kbz", "probes"), { recursive: true, force: true });
    expectBlocked(w, "GATES:G1", /VACUOUS/);
  });

  test("deleting the approval store's attestations after a VACUOUS verdict: the pass is UNATTESTED and cannot be re-run without a person", () => {
    const w = workspace({
      "GATES.md": "- [ ] G1: the target holds the work\n  CHECK: sh check.sh\n  EXPECT: ok\n  INPUTS: target.txt\n",
      "check.sh": "echo ok\n",
      "target.txt": "the work\n",
    });
    expect(w.person("check", "--approve").code).toBe(0);
    expect(w.person("check", "--probe", "--approve").output).toContain("VACUOUS GATES:G1");
    fs.rmSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "attest"), { recursive: true });
    expectBlocked(w, "GATES:G1", /UNATTESTED|VACUOUS/);
    const r = w.agent("check", "--reverify");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    expectBlocked(w, "GATES:G1", /UNATTESTED|VACUOUS/);
  });

  test("a gate with nothing to hide is NOT PROBED and the run exits 1, never PROBE OK", () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    expect(w.person("check", "--approve").code).toBe(0);
    const r = w.agent("check", "--probe");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("NOT PROBED GATES:G1");
    expect(r.stdout).not.toContain("PROBE OK");
  });
});

describe("class 8: two views of the truth", () => {
  test("outside git, from a subfolder of a folder whose GATES.md has an unmet gate: status says UNMET and the Stop hook blocks; signed, both agree it is done", () => {
    const w = workspace({ "GATES.md": MANUAL, "src/app/main.txt": "x\n" });
    const sub = w.file("src/app");
    const agentEnvSub = { ...w.env, CLAUDECODE: "1" };
    const st = kbz(["status"], { cwd: sub, env: agentEnvSub });
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("GATES:M1");
    const stop = () =>
      kbz(["hook", "stop"], {
        cwd: sub,
        env: agentEnvSub,
        input: JSON.stringify({ session_id: `s-${Math.random()}`, cwd: sub, hook_event_name: "Stop" }),
      }).stdout;
    const h = stop();
    expect(JSON.parse(h).decision).toBe("block");
    expect(h).toContain("GATES:M1");
    expect(w.person("sign", "GATES.md", "M1", "--evidence", "read it through, Ana").code).toBe(0);
    expect(kbz(["status"], { cwd: sub, env: agentEnvSub }).code).toBe(0);
    expect(stop()).toBe("");
  });

  test.skipIf(!haveTmux())(
    "an INPUTS file of a VERIFIED leaf changes: kbz next, the dashboard's queue and the Stop hook all say the leaf needs review",
    async () => {
      const dir = fs.realpathSync(fixtureCopy("next-golden"));
      const leaf1 = ".unlazy/api/gates/leaf-1.md";
      writeTree(dir, {
        [leaf1]:
          "OWNS: src/1/**\n\n- [ ] G1: leaf 1 deliverable\n  CHECK: cat src/1/a.txt\n  EXPECT: ok\n  INPUTS: src/1/a.txt\n  EVIDENCE: pending\n",
        "src/1/a.txt": "ok\n",
      });
      const env = checkEnv();
      const agent = { ...env, CLAUDECODE: "1" };
      expect(personRun(BIN, ["check", "--approve", leaf1], { cwd: dir, env }).code).toBe(0);
      const plan = path.join(dir, ".unlazy/api/PLAN.md");
      fs.writeFileSync(
        plan,
        fs
          .readFileSync(plan, "utf8")
          .replace("| 1 | src/1/** | - | mechanical | 1 | READY |", "| 1 | src/1/** | - | mechanical | 1 | VERIFIED |"),
      );
      fs.writeFileSync(path.join(dir, "src/1/a.txt"), "ok, but not the reviewed work\n"); // the agent's act
      const next = kbz(["next", "--scope", "api", "--json"], { cwd: dir, env: agent });
      expect(next.code).toBe(1);
      const j = JSON.parse(next.stdout);
      expect([j.action, j.attention.map((a: { leaf: string; reason: string }) => `${a.leaf} ${a.reason}`)]).toEqual([
        "review",
        ["1 verified-ledger-not-met"],
      ]);
      // The dashboard (the binary, in a real terminal, as the person): its Queue says the same.
      const pane = new TmuxPane(120, 30);
      try {
        pane.start([BIN], dir, env);
        await pane.waitFor((x) => x.includes("scope api"), 15_000);
        pane.send("2");
        const q = await pane
          .waitFor((x) => x.includes("[2 Queue"), 30_000)
          .then(() => pane.waitFor((x) => /REVIEW|DISPATCH|VERIFY/.test(x), 30_000));
        expect(q).toContain("REVIEW: resolve the items below before launching");
        expect(q).toMatch(/REVIEW\s+1\s+verified-ledger-not-met 1/);
      } finally {
        pane.kill();
      }
      const h = kbz(["hook", "stop", "--scope", "api"], {
        cwd: dir,
        env: agent,
        input: JSON.stringify({ session_id: "dmd-8", cwd: dir, hook_event_name: "Stop" }),
      }).stdout;
      expect(JSON.parse(h).decision).toBe("block");
      expect(h).toContain("leaf-1:G1 STALE (input changed: src/1/a.txt)");
    },
  );
});
