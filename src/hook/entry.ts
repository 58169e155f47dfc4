// The Stop hook edge: one host's stdin payload in, at most one answer in that host's contract
// out, exit 0 (exit 2 only where an event reads nothing else: Claude Code TaskCompleted). This file and everything it imports are bundled for Node 16 into
// hooks/stop-hook.mjs, so the path uses only `node:` built-ins: no Bun APIs, no React, no Ink,
// no yargs.
//
// `--agent NAME` picks the adapter (src/hook/<host>.ts; claude when absent, as installed before
// --agent existed). The adapter turns the payload into a cwd, a session to count under, the host's
// loop signal, what is finishing (the agent's turn, a sub-agent, a task) and why a stop may not
// count (an API error, an interruption, an empty message); decideStop() decides for every host
// alike; the adapter says the answer. A sub-agent or task that is one of kbz's workers (its handle
// from `kbz wave start`, or "leaf <id>" in a task's subject) is judged by its leaf's gates alone; a
// task that is not a leaf is not kbz's to refuse. A host's "already continuing" flag never releases the gate by itself: Claude
// Code sets it on every stop after a block, so honouring it would let an agent end its turn after
// one refusal. The progress guard (six blocks without a gate-state change) is the loop breaker.
// SubagentStop payloads carry the parent's session id and are decided exactly like Stop,
// counted in the same per-session, per-scope entry, so subagents cannot multiply the cap.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import {
  ambiguousScopes,
  assess,
  uncountedStop,
  waitingOnWave,
  decideStop,
  internalFailure,
  invalidScopeArgument,
  MAX_BLOCKS,
  planStop,
  unresolvable,
  undecidedStop,
  type Assessment,
  type GuardResult,
  type HookOutput,
} from "../core/hook/decide.ts";
import { DeadlineError, withDeadline } from "../io/deadline.ts";
import { clearSession, recordBlock, sessionKey } from "../io/hook/guard.ts";
import { loadSnapshot } from "../io/read.ts";
import { installStore } from "../io/store/active.ts";
import { writeFdSync } from "../cli/fdwrite.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { listScopes, resolveTarget, withSoloLedgers } from "../io/discover.ts";
import { findRoot } from "../io/root.ts";
import { type Target } from "../core/workspace/target.ts";
import type { HostAdapter, HostStop } from "./host.ts";
import { leafIds, leafSnapshot, matchLeaf, waitingOn } from "../core/hook/worker.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { agentArgument, HOSTS } from "./hosts.ts";
import { HOST_NAMES } from "../core/hook/targets.ts";
import { readStdin, STDIN_DEADLINE_MS, type StdinResult } from "./stdin.ts";

/**
 * The judging bound (issue 28): the hook decides within 3 s whatever the repository holds. The
 * snapshot gets 2.5 s of it; the rest is startup and the answer.
 */
const JUDGE_S = 3;
const JUDGE_MS = 2500;

/** `undefined` scope: no --scope given; `null`: given but missing or invalid. */
export function scopeArgument(args: string[]): string | null | undefined {
  let found: string | null | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--scope") {
      const v = args[i + 1];
      found = v !== undefined && isValidId(v) ? v : null;
      i++;
    } else if (a.startsWith("--scope=")) {
      const v = a.slice("--scope=".length);
      found = isValidId(v) ? v : null;
    }
  }
  return found;
}

/**
 * The payload as a JSON object, `null` when it is not JSON (allow silently). Every leading
 * U+FEFF is dropped first: Cursor on Windows starts stdin with one byte-order mark, sometimes two.
 */
export function parsePayload(input: Buffer | null): Record<string, unknown> | null {
  if (input === null) return null;
  const text = input.toString("utf8").replace(/^\uFEFF+/, "");
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
  }
  return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

function existingDirectory(dir: string): string | null {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : null;
  } catch {
    return null;
  }
}

function resolveForHook(root: string, scope: string | null, sessionId: string): { target: Target } | { output: HookOutput } {
  try {
    return { target: resolveTarget({ root, scope, sessionId }) };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const scopes = scope ? [] : listScopes(root);
    return { output: scopes.length > 1 ? ambiguousScopes(scopes) : unresolvable(e.message) };
  }
}

async function countBlock(target: Target, key: string, hash: string, stop: HostStop): Promise<GuardResult> {
  let blocks: number;
  try {
    blocks = await recordBlock(target, key, hash, { restartAfter: stop.fresh ? MAX_BLOCKS : null, uncounted: stop.uncounted === "no-message" });
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  // The host's own count of continuations is a second check: it releases even when kbz's
  // state was lost or reset (Cursor `loop_count`; this stop is continuation number n + 1).
  if (stop.continuations !== null && stop.uncounted === null) blocks = Math.max(blocks, stop.continuations + 1);
  return { ok: true, blocks };
}

/** What decides this stop: the whole target, or the leaf a sub-agent or task works on; null: not kbz's to refuse. */
function subject(snap: Snapshot, stop: HostStop): { snap: Snapshot; leaf: string | null } | null {
  if (stop.kind === "stop" || stop.worker === null) return { snap, leaf: null };
  const leaf = matchLeaf(stop.worker, snap.dispatch?.running ?? [], leafIds(snap));
  if (leaf !== null) return { snap: leafSnapshot(snap, leaf), leaf };
  // A sub-agent that is not a leaf's worker is held to the scope like the agent that started it;
  // a task that names no leaf is the agent's own bookkeeping.
  return stop.kind === "task" ? null : { snap, leaf: null };
}

/** The whole decision for one stop, host-neutral. Never throws. */
export async function decideHookStop(
  args: string[],
  host: HostAdapter,
  payload: Record<string, unknown> | null,
  env: Record<string, string | undefined>,
  cwd: string,
  read: HostStop | null = payload ? host.read(payload, env) : null,
): Promise<HookOutput> {
  try {
    const pinned = scopeArgument(args);
    if (pinned === null) return invalidScopeArgument();
    if (!payload || !read) return null;
    const stop = read;
    const wanted = path.resolve(cwd, stop.cwd ?? ".");
    const dir = existingDirectory(wanted);
    if (!dir) return unresolvable(`cwd is not an existing directory: ${wanted}`);
    const root = findRoot(dir);
    // With a coordinator the session binding, waves and lost leases come from the cluster; an
    // unreachable cluster is reported (not blocking, like every hook failure), never replaced by the files.
    await installStore(root, { env, logScope: null });
    const scope = pinned ?? (env.UNLAZY_SCOPE || null);
    // A binding names the host's session, never the prompt, turn or task kbz counts under.
    const resolved = resolveForHook(root, scope, stop.session.split("\0")[0]!);
    if ("output" in resolved) return resolved.output;
    const t = resolved.target;
    let judged: { snap: Snapshot; leaf: string | null } | null;
    let whole: Snapshot;
    let assessment: Assessment;
    try {
      ({ whole, judged, assessment } = withDeadline(JUDGE_MS, JUDGE_S, () => {
        // The solo ledgers are judged with the scope (fixes unlazy bug: a scope hid the solo ledger).
        const all = loadSnapshot(withSoloLedgers(t));
        const mine = subject(all, stop);
        return { whole: all, judged: mine, assessment: assess((mine ?? { snap: all }).snap) };
      }));
    } catch (e) {
      if (!(e instanceof DeadlineError)) throw e;
      return undecidedStop(e.file ?? "the gates", JUDGE_S, e.what, await countBlock(t, sessionKey(stop.session, t.scope), "undecided", stop));
    }
    if (judged === null) return null;
    const key = sessionKey(judged.leaf === null ? stop.session : `${stop.session}\0leaf:${judged.leaf}`, t.scope);
    const plan = planStop(assessment);
    if (plan.kind === "clear") {
      await clearSession(t, key);
      return plan.output;
    }
    if (stop.uncounted === "failed" || stop.uncounted === "aborted") return uncountedStop(assessment, stop.uncounted);
    const guard = await countBlock(t, key, plan.hash, stop);
    const waiting = stop.kind === "stop" ? waitingOn(whole.dispatch?.running ?? [], stop.background) : [];
    return waiting.length > 0 ? waitingOnWave(assessment, guard, waiting) : decideStop(assessment, guard);
  } catch (e) {
    return internalFailure((e as Error)?.message ?? String(e));
  }
}

/** stdout and stderr for one stop: the answer in the host's contract, plus notes for people. */
export async function runStopHook(
  args: string[],
  input: StdinResult,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ stdout: string; stderr: string; code?: number }> {
  const host = agentArgument(args);
  if (!host) return HOSTS.claude.render(invalidAgentArgument(), null);
  if (input.timedOut) {
    const r = host.render(null, null);
    return { stdout: r.stdout, stderr: r.stderr + `kbz: the Stop payload did not end within ${STDIN_DEADLINE_MS / 1000} s; treated as missing, not blocking.\n` };
  }
  const payload = parsePayload(input.bytes);
  let stop: HostStop | null = null;
  try {
    stop = payload ? host.read(payload, env) : null;
  } catch (e) {
    return host.render(internalFailure((e as Error)?.message ?? String(e)), null);
  }
  return host.render(await decideHookStop(args, host, payload, env, cwd, stop), stop);
}

function invalidAgentArgument(): HookOutput {
  return { systemMessage: `kbz: installed hook has an unknown --agent value (use ${HOST_NAMES.join(", ")}); not blocking.` };
}

/** Process entry for `kbz hook stop` and the Node fallback: print, flush, exit (0 but for a refused task). */
export async function stopHookMain(args: string[]): Promise<never> {
  let r: { stdout: string; stderr: string; code?: number };
  try {
    r = await runStopHook(args, await readStdin(), process.env, process.cwd());
  } catch (e) {
    r = HOSTS.claude.render(internalFailure((e as Error)?.message ?? String(e)), null);
  }
  if (r.stdout !== "") writeFdSync(1, r.stdout);
  if (r.stderr !== "") writeFdSync(2, r.stderr);
  process.exit(r.code ?? 0);
}
