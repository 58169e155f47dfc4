// Issue 41, the default policy harder to puppet: an agent host among kbz's ancestor processes
// counts as an agent (with or without its marker), a policy.json written by hand leaves `person`
// in force, and a refusal names the host, never the variable to drop. The person's side runs in
// a new PID namespace (`unshare --pid --fork --mount-proc`, helpers/approvals.ts personPrefix):
// a process tree with no agent host in it, whatever runs the tests. Each test fails on 571b8e3
// (KBZ_TEST_BIN=/work/tools/kbz-571b8e3).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, personPrefix, personRun, withoutMarkers } from "../helpers/approvals.ts";
import { AGENT_MARKERS } from "../../src/core/person.ts";

setDefaultTimeout(120_000);

const GATES = "- [ ] G1: prints OK\n  CHECK: printf RUN_OK\n  EXPECT: RUN_OK\n  EVIDENCE: pending\n";
const HAVE_NS = personPrefix().length > 0;
if (!HAVE_NS)
  console.log(
    "skip: the person's side needs a PID namespace of its own: run the tests as root (or with user namespaces)",
  );

function workspace() {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": GATES });
  return { dir, env: checkEnv() };
}

/** `kbz args` in a pseudo-terminal under `wrapper` (a stand-in host), in a fresh PID namespace with no marker. */
function underHost(
  w: ReturnType<typeof workspace>,
  wrapper: string[],
  args: string[],
): { code: number; output: string } {
  const cmd = [...wrapper, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const [cmd0, ...rest] = [...personPrefix(), "script", "-qec", cmd, "/dev/null"];
  const r = spawnSync(cmd0!, rest, {
    cwd: w.dir,
    env: withoutMarkers({ ...process.env, ...w.env }),
    input: "y\n",
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status ?? -1, output: (r.stdout ?? "").replace(/\r\n/g, "\n") };
}

const HOSTS: [string, string][] = [
  ["claude", "Claude Code"],
  ["codex", "Codex"],
  ["gemini", "Gemini CLI"],
  ["cursor-agent", "Cursor's agent"],
  ["copilot", "Copilot CLI"],
  ["opencode", "OpenCode"],
  ["qwen", "Qwen Code"],
  ["goose", "Goose"],
  ["aider", "Aider"],
];

describe.skipIf(!HAVE_NS)("the default policy, harder to puppet (issue 41)", () => {
  test("a stand-in executable named like an agent host, as an ancestor, refuses the person's act; the same act in a tree with no host goes through", () => {
    const w = workspace();
    const bin = tempDir("kbz-hosts-");
    // A script named like the host (the interpreter's argv names it) ...
    for (const [name, host] of HOSTS) {
      const stand = path.join(bin, name);
      fs.writeFileSync(stand, '#!/bin/sh\n"$@"\n', { mode: 0o755 });
      const r = underHost(w, [stand], ["approve"]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect({ name, said: r.output.includes(`kbz runs under an agent here (${host})`) }).toEqual({ name, said: true });
      for (const m of AGENT_MARKERS) expect(r.output).not.toContain(m);
    }
    // ... and an executable of that name (a copy of sh: /proc/<pid>/exe names it).
    const exe = path.join(bin, "sub", "codex");
    fs.mkdirSync(path.dirname(exe));
    fs.copyFileSync("/bin/sh", exe);
    fs.chmodSync(exe, 0o755);
    const viaExe = underHost(w, [exe, "-c", '"$0" "$@"; exit $?'], ["check", "--approve"]);
    expect(viaExe.code).toBe(1);
    expect(viaExe.output).toContain("kbz runs under an agent here (Codex)");
    expect(kbz(["status"], { cwd: w.dir, env: w.env }).stdout).toContain("UNMET");
    // The person: a pseudo-terminal, no marker, a process tree with no agent host in it.
    const p = personRun(BIN, ["check", "--approve"], { cwd: w.dir, env: w.env });
    expect(p.output).toContain("APPROVED GATES:G1");
    expect(p.code).toBe(0);
  });

  test("the agent's puppet terminal under its host (env -u CLAUDECODE script -qec) is refused by the ancestor, naming the host", () => {
    const w = workspace();
    const bin = tempDir("kbz-hosts-");
    const claude = path.join(bin, "claude");
    fs.writeFileSync(claude, '#!/bin/sh\nexport CLAUDECODE=1\n"$@"\n', { mode: 0o755 });
    // Inside the host (marker set), the agent drops the marker and gives itself a terminal.
    const inner = `env -u CLAUDECODE script -qec '${BIN} check --approve' /dev/null`;
    const [cmd0, ...rest] = [...personPrefix(), claude, "sh", "-c", inner];
    const r = spawnSync(cmd0!, rest, {
      cwd: w.dir,
      env: withoutMarkers({ ...process.env, ...w.env }),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.stdout).toContain("kbz runs under an agent here (Claude Code)");
    expect(r.stdout).not.toContain("CLAUDECODE");
    expect(r.stdout).not.toContain("APPROVED");
    expect(kbz(["status"], { cwd: w.dir, env: w.env }).code).toBe(1);
  });

  test("a policy.json written by hand leaves person in force, and kbz says it was edited by hand", () => {
    const w = workspace();
    const store = w.env.UNLAZY_APPROVAL_DIR!;
    fs.mkdirSync(path.join(store, "kbz"), { mode: 0o700 });
    fs.writeFileSync(path.join(store, "kbz", "policy.json"), '{"schema":1,"policy":"agent"}\n', { mode: 0o600 });
    const agent = kbz(["check", "--approve"], { cwd: w.dir, env: { ...w.env, CLAUDECODE: "1" } });
    expect(agent.code).toBe(1);
    expect(agent.stderr).toContain("policy.json was edited by hand, so the person policy holds");
    expect(agent.stderr).not.toContain("CLAUDECODE");
    expect(kbz(["status"], { cwd: w.dir, env: w.env }).code).toBe(1);
    const shown = kbz(["approvals", "policy"], { cwd: w.dir, env: w.env });
    expect(shown.stdout).toMatch(/^policy: person .*edited by hand/m);
    // The person sets agent through kbz: the MAC'd file counts.
    const set = personRun(BIN, ["approvals", "policy", "agent"], { cwd: w.dir, env: w.env });
    expect(set.output).toContain("policy: agent");
    expect(JSON.parse(fs.readFileSync(path.join(store, "kbz", "policy.json"), "utf8")).mac).toMatch(/^[0-9a-f]{64}$/);
    expect(kbz(["check", "--approve"], { cwd: w.dir, env: { ...w.env, CLAUDECODE: "1" } }).code).toBe(0);
  });

  test("acts.log lines carry a MAC chained to the line before; a line added by hand is told apart", () => {
    const w = workspace();
    const p = personRun(BIN, ["check", "--approve"], { cwd: w.dir, env: w.env });
    expect(p.code).toBe(0);
    const log = path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "acts.log");
    const lines = fs.readFileSync(log, "utf8").trimEnd().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(/ approve given=terminal .* mac=[0-9a-f]{64}$/);
    // A line appended by hand (an agent forging a person's act) is told apart.
    fs.appendFileSync(log, "2026-01-01T00:00:00.000Z approve given=terminal GATES.md G9 forged\n");
    const shown = kbz(["approvals", "policy"], { cwd: w.dir, env: w.env });
    expect(shown.stdout).toContain("acts.log: 1 of 2 lines carry no valid MAC (line 2): written or changed by hand");
  });
});
