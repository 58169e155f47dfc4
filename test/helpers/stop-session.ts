// A real host session for Stop hook tests (issue 40): the agent's own shell (CLAUDECODE=1, no
// terminal), a private store of its own, and a transcript that grows before every stop the way
// the host appends each turn (a block's feedback included), so each stop is a new turn and counts.
// Optionally as another user (setpriv), for the artifacts only a user who is not root can make.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "bun:test";
import { BIN, type RunResult } from "./kbz.ts";
import { FALLBACK, node16, messageOf, reasonOf, type HookRun, type Via } from "./hook.ts";

export const NOBODY = 65534;

export interface Session {
  dir: string;
  store: string;
  transcript: string;
  id: string;
  /** Run as this uid and gid (setpriv); undefined: as the test's own user. */
  uid?: number;
}

/** Whether this machine can run a process as another user (root with setpriv). */
export function canSwitchUser(): string | null {
  if (typeof process.geteuid !== "function" || process.geteuid() !== 0)
    return "the tests do not run as root, so they cannot run kbz as another user";
  if (spawnSync("setpriv", ["--version"]).error) return "setpriv is not installed";
  return null;
}

/** A folder another user can reach: under the outer temporary folder, world-traversable; the caller removes it. */
export function sharedDir(prefix: string): string {
  const base = process.env.KBZ_TEST_OUTER_TMPDIR ?? "/tmp";
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
  fs.chmodSync(dir, 0o755);
  return dir;
}

export function newSession(dir: string, store: string, opts: { id?: string; uid?: number } = {}): Session {
  const transcript = path.join(store, "..", `${path.basename(store)}-transcript.jsonl`);
  fs.writeFileSync(transcript, '{"type":"user"}\n');
  if (opts.uid !== undefined) {
    fs.chownSync(store, opts.uid, opts.uid);
    fs.chownSync(transcript, opts.uid, opts.uid);
  }
  return { dir, store, transcript, id: opts.id ?? "sess-real", uid: opts.uid };
}

function asUser(s: Session, cmd: string, args: string[]): [string, string[]] {
  if (s.uid === undefined) return [cmd, args];
  return ["setpriv", [`--reuid=${s.uid}`, `--regid=${s.uid}`, "--clear-groups", "--", cmd, ...args]];
}

function agentEnv(s: Session, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== "UNLAZY_SCOPE" && k !== "CLAUDE_PROJECT_DIR") env[k] = v;
  return { ...env, CLAUDECODE: "1", UNLAZY_APPROVAL_DIR: s.store, ...extra };
}

export interface StopOptions {
  /** Append a line to the transcript first (a new turn); false: the agent piping a payload itself. */
  grow?: boolean;
  via?: Via;
  args?: string[];
  cwd?: string;
  payload?: Record<string, unknown>;
  env?: Record<string, string>;
}

/** One stop of the session, through the binary (or the Node 16 fallback). */
export function stopOnce(s: Session, opts: StopOptions = {}): HookRun {
  if (opts.grow !== false) fs.appendFileSync(s.transcript, '{"type":"assistant"}\n');
  const payload = {
    session_id: s.id,
    cwd: opts.cwd ?? s.dir,
    hook_event_name: "Stop",
    transcript_path: s.transcript,
    stop_hook_active: true,
    ...opts.payload,
  };
  const [cmd, args] =
    opts.via === "node16"
      ? asUser(s, node16(), [FALLBACK, ...(opts.args ?? [])])
      : asUser(s, BIN, ["hook", "stop", ...(opts.args ?? [])]);
  const t0 = performance.now();
  const r = spawnSync(cmd, args, {
    cwd: s.dir,
    env: agentEnv(s, opts.env),
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
}

/** `kbz <args>` as the session's user, in the agent's shell. */
export function agentKbz(s: Session, args: string[], cwd = s.dir): RunResult {
  const [cmd, argv] = asUser(s, BIN, args);
  const r = spawnSync(cmd, argv, { cwd, env: agentEnv(s), input: "", encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The whole guarantee on one repository: six stops of a real session block naming `reason`, the
 * seventh is the loud release, and `kbz status` exits non-zero.
 */
export function expectGuarded(s: Session, reason: string | RegExp | (string | RegExp)[], opts: StopOptions = {}): void {
  for (let i = 1; i <= 6; i++) {
    const got = reasonOf(stopOnce(s, opts));
    for (const r of Array.isArray(reason) ? reason : [reason]) {
      if (typeof r === "string") expect(got).toContain(r);
      else expect(got).toMatch(r);
    }
  }
  expect(messageOf(stopOnce(s, opts))).toContain("releasing after 6 blocks");
  expect(agentKbz(s, ["status"]).code).not.toBe(0);
}
