// Every test that may touch approvals gets its own private store, never the real home.
//
// Consent policy (docs/formats.md#person-policy): a fresh store is under the default `person`
// policy, where approving, signing and pruning need a person (a terminal and no agent host's
// marker). Tests that approve from a plain child process (unlazy's consent model, as the
// compatibility corpus does) run under the `agent` policy: use `agentApprovalDir()` /
// `agentEnv()`. The preload points UNLAZY_APPROVAL_DIR at one agent-policy store for tests that
// name none. Tests of the person's part use `checkEnv()` (person) and `personRun()`.
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { tempDir } from "./tmp.ts";
import { writeTree } from "./kbz.ts";
import { writePolicy, type Policy } from "../../src/io/run/personal.ts";
import { AGENT_MARKERS } from "../../src/core/person.ts";

/** `<tmp>/kbz-approvals-X/store`: its parent also holds the test's HOME (and so its run cache). */
export function privateApprovalDir(): string {
  const base = tempDir("kbz-approvals-");
  fs.chmodSync(base, 0o700);
  const dir = path.join(base, "store");
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** Set a store's consent policy, as `kbz approvals policy` would. */
export function setApprovalPolicy(store: string, policy: Policy): void {
  writePolicy(store, policy, "terminal");
}

/** A private store under the agent policy: `--approve` and `sign` work from a non-terminal, as in unlazy. */
export function agentApprovalDir(): string {
  const dir = privateApprovalDir();
  setApprovalPolicy(dir, "agent");
  return dir;
}

/** The environment a checking test runs kbz with: a private store and a short, known PATH. */
export function checkEnv(store = privateApprovalDir(), extra: Record<string, string> = {}): Record<string, string> {
  // HOME sits beside the store, never inside it: the store holds approval records only.
  return {
    UNLAZY_APPROVAL_DIR: store,
    PATH: "/usr/bin:/bin",
    UNLAZY_SHELL: "",
    HOME: path.join(path.dirname(store), "home"),
    ...extra,
  };
}

/** checkEnv with a store under the agent policy (tests that approve or sign from a non-terminal). */
export function agentEnv(extra: Record<string, string> = {}, store = agentApprovalDir()): Record<string, string> {
  return checkEnv(store, extra);
}

/** `env` without any agent host's marker: the person's environment. */
export function withoutMarkers(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && !(AGENT_MARKERS as readonly string[]).includes(k)) out[k] = v;
  return out;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

let pidNamespace: boolean | null = null;

/**
 * `unshare --pid --fork --mount-proc`, where it works (root, or user namespaces): the person's kbz
 * then runs in a process tree of its own, so an agent host among the test runner's ancestors
 * (the session that runs the tests may itself run under one) is not taken for the person's
 * (kbz counts an agent host among its ancestors as an agent: io/run/ancestry.ts).
 */
export function personPrefix(): string[] {
  if (pidNamespace === null)
    pidNamespace = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" }).status === 0;
  // A shell is the namespace's PID 1, not script: a PID 1 that ends its children on exit would lose their status.
  // --kill-child: when the test times a run out (SIGTERM to unshare), the whole namespace ends with
  // it, so no terminal or kbz is left holding the output pipe (spawnSync would wait for ever).
  return pidNamespace
    ? ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", '"$@"; exit $?', "sh"]
    : [];
}

/**
 * Run the binary as a person would: in a pseudo-terminal (`script -qec`), with `env` (markers
 * removed unless `keepMarkers`), answering `input` on the terminal, in a process tree with no
 * agent host in it (personPrefix). Output is the terminal's.
 */
export function personRun(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; input?: string; keepMarkers?: boolean; timeoutMs?: number },
): { code: number; output: string } {
  const env = opts.keepMarkers ? opts.env : withoutMarkers({ ...process.env, ...opts.env });
  const cmd = [bin, ...args].map(shellQuote).join(" ");
  const [cmd0, ...pre] = [...personPrefix(), "script", "-qec", cmd, "/dev/null"];
  const r = spawnSync(cmd0!, pre, {
    cwd: opts.cwd,
    env,
    input: opts.input ?? "",
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 30_000,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, output: (r.stdout ?? "").replace(/\r\n/g, "\n") };
}

/** The approval record names in a store (kbz's own `kbz/` folder beside them left out). */
export function approvalRecords(store: string): string[] {
  return fs.readdirSync(store).filter((n) => n !== "kbz");
}

/**
 * A folder under git with these files committed: git holds the approved text, so the person's
 * review (kbz approve, the dashboard's approval view) has a base for its short diff.
 */
export function gitRepo(files: Record<string, string>): string {
  const dir = tempDir();
  writeTree(dir, files);
  const g = (...a: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: dir, encoding: "utf8" });
  g("init", "-q", ".");
  g("add", "-A");
  g("commit", "-qm", "init");
  return dir;
}
