// Issue 27 acceptance ("done means done"): for each way an agent with a shell reached ALL MET
// without the work, the agent's act (no terminal, an agent host's marker set) ends with `kbz status`
// exit 1 naming the gate and the reason, and the Stop hook blocking; the same task done honestly
// (a person in a pseudo-terminal, `script -qec`, with no marker) ends ALL MET and the hook allowing.
// Everything runs on the binary under the default person policy (a fresh approval store).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, personRun } from "../helpers/approvals.ts";

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
  const hook = () => kbz(["hook", "stop"], { cwd: dir, env: agentEnv, input: JSON.stringify({ session_id: `s-${Math.random()}`, cwd: dir, hook_event_name: "Stop" }) }).stdout;
  const file = (rel = "GATES.md") => path.join(dir, rel);
  return { dir, env, agent, person, status, hook, file };
}

function expectBlocked(w: ReturnType<typeof workspace>, gate: string, reason: string | RegExp): void {
  const s = w.status();
  expect(s.code).toBe(1);
  const line = s.stdout.split("\n").find((l) => l.includes(gate));
  expect(line).toBeDefined();
  expect(line!).toMatch(reason);
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

describe("class 3: the agent approves and signs for the person", () => {
  test("kbz check --approve from the agent's shell is refused (exit 1, the hint), nothing runs; a person approves in a terminal", () => {
    const w = workspace({ "GATES.md": "- [ ] G1: ran\n  CHECK: touch ran; printf OK\n  EXPECT: OK\n" });
    for (const args of [["check", "--approve"], ["advance", "--approve"], ["check", "--probe", "--approve"]]) {
      const r = w.agent(...args);
      if (args[0] === "advance") continue; // advance needs a scope; its approval goes through the same runChecks
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("a person approves this: press `a` in the dashboard or run `kbz approve` in a terminal");
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

  test("an agent (marker set) that runs script -qec \"kbz check --approve\" is refused", () => {
    const w = workspace({ "GATES.md": RUNNABLE });
    const r = personRun(BIN, ["check", "--approve"], { cwd: w.dir, env: { ...w.env, CLAUDECODE: "1" }, keepMarkers: true });
    expect(r.code).toBe(1);
    expect(r.output).toContain("kbz runs under an agent here (CLAUDECODE is set)");
    for (const marker of ["GEMINI_CLI", "CODEX_SANDBOX", "CODEX_THREAD_ID", "CURSOR_AGENT", "GOOSE_TERMINAL", "AGENT", "AI_AGENT"]) {
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
    expect(w.hook()).toBe("");
  });

  test("fixes unlazy bug: a scope hid the solo ledger (status and the Stop hook judge GATES.md with the scope)", () => {
    const w = workspace({ "GATES.md": MANUAL, ".unlazy/api/gates/one.md": "- [ ] A1: the api answers\n" });
    expect(w.person("sign", ".unlazy/api/gates/one.md", "A1", "--evidence", "checked the api by hand").code).toBe(0);
    expectBlocked(w, "GATES:M1", /UNMET/);
    w.person("sign", "GATES.md", "M1", "--evidence", "read it, Ana");
    expectDone(w);
  });
});

describe("class 6: reviews bind what they reviewed", () => {
  test("a signed manual gate goes STALE (input changed: README.md) when its INPUTS change; signing again (--replace) meets it", () => {
    const w = workspace({ "GATES.md": "- [ ] M1: the README reads well\n  INPUTS: README.md\n", "README.md": "# hello\n" });
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
