// The Stop hook edge: stdin payload in, at most one JSON object out, exit 0 always.
// This file and everything it imports are bundled for Node 16 into hooks/stop-hook.mjs,
// so the path uses only `node:` built-ins: no Bun APIs, no React, no Ink, no yargs.
//
// Claude Code fields: `cwd` and `session_id` (or `sessionId`) are read; everything else is
// optional. `stop_hook_active` does not release the gate: Claude Code sets it on every stop
// after a block, so honouring it would let an agent end its turn after one refusal. The
// progress guard (six blocks without a gate-state change) is the loop breaker instead.
// SubagentStop payloads carry the parent's session id and are decided exactly like Stop,
// counted in the same per-session, per-scope entry, so subagents cannot multiply the cap.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import {
  ambiguousScopes,
  assess,
  decideStop,
  internalFailure,
  invalidScopeArgument,
  planStop,
  unresolvable,
  type GuardResult,
  type HookOutput,
} from "../core/hook/decide.ts";
import { clearSession, recordBlock, sessionKey } from "../core/hook/guard.ts";
import { loadSnapshot } from "../core/snapshot.ts";
import { installStore } from "../io/store/active.ts";
import { terminalJson } from "../core/text/sanitize.ts";
import { writeFdSync } from "../core/util/fdwrite.ts";
import { isValidId, listScopes, resolveTarget, type Target } from "../core/workspace/discover.ts";

/** Stdin beyond this is not a Claude Code payload; it is treated like invalid JSON. */
export const MAX_STDIN_BYTES = 32 * 1024 * 1024;

export interface HookPayload {
  cwd: string | null;
  sessionId: string;
}

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

/** `null` when stdin is not JSON (allow silently); missing fields take their defaults. */
export function parsePayload(input: Buffer | null): HookPayload | null {
  if (input === null) return null;
  const text = input.toString("utf8");
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
  }
  const o = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  return { cwd: str(o.cwd), sessionId: str(o.session_id) ?? str(o.sessionId) ?? "anonymous" };
}

function existingDirectory(dir: string): string | null {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : null;
  } catch {
    return null;
  }
}

function has(dir: string, name: string): boolean {
  try {
    fs.lstatSync(path.join(dir, name));
    return true;
  } catch {
    return false;
  }
}

/**
 * Claude Code's `cwd` follows the agent's `cd`. unlazy used it as the root as is, so an agent
 * that stopped inside `src/` saw no ledgers and was let go. Inside a git work tree we look up
 * to the work tree's top for the nearest directory holding `.unlazy`, `GATES.md` or `gates/*.md`;
 * outside one the cwd stays the root, so no unrelated ancestor is ever searched.
 */
export function hookRoot(cwd: string): string {
  const chain: string[] = [];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (has(dir, ".git")) break;
    if (path.dirname(dir) === dir) return cwd;
  }
  return chain.find((d) => has(d, ".unlazy") || has(d, "GATES.md") || hasLedgerFolder(d)) ?? cwd;
}

/** A `gates/` folder counts only if it holds ledgers, so a source folder named gates does not. */
function hasLedgerFolder(dir: string): boolean {
  try {
    return fs.readdirSync(path.join(dir, "gates")).some((n) => n.endsWith(".md"));
  } catch {
    return false;
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

async function countBlock(target: Target, key: string, hash: string): Promise<GuardResult> {
  try {
    return { ok: true, blocks: await recordBlock(target, key, hash) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** The whole decision for one stop. Never throws. */
export async function runStopHook(args: string[], input: Buffer | null, env: Record<string, string | undefined>, cwd: string): Promise<HookOutput> {
  try {
    const pinned = scopeArgument(args);
    if (pinned === null) return invalidScopeArgument();
    const payload = parsePayload(input);
    if (!payload) return null;
    const wanted = path.resolve(cwd, payload.cwd ?? ".");
    const dir = existingDirectory(wanted);
    if (!dir) return unresolvable(`cwd is not an existing directory: ${wanted}`);
    const root = hookRoot(dir);
    // With a coordinator the session binding, waves and lost leases come from the cluster; an
    // unreachable cluster is reported (not blocking, like every hook failure), never replaced by the files.
    await installStore(root, { env, logScope: null });
    const scope = pinned ?? (env.UNLAZY_SCOPE || null);
    const resolved = resolveForHook(root, scope, payload.sessionId);
    if ("output" in resolved) return resolved.output;
    const t = resolved.target;
    const key = sessionKey(payload.sessionId, t.scope);
    const assessment = assess(loadSnapshot(t));
    const plan = planStop(assessment);
    if (plan.kind === "clear") {
      await clearSession(t, key);
      return plan.output;
    }
    return decideStop(assessment, await countBlock(t, key, plan.hash));
  } catch (e) {
    return internalFailure((e as Error)?.message ?? String(e));
  }
}

export function renderOutput(output: HookOutput): string {
  return output === null ? "" : terminalJson(output) + "\n";
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fs.fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * The payload, read with plain blocking reads: touching process.stdin builds a whole stream
 * stack, which costs 20-30 ms of the hook's budget in Bun and in Node alike. A non-blocking
 * stdin (EAGAIN) falls back to the stream.
 */
function readStdin(): Promise<Buffer | null> {
  // A terminal (or /dev/null) on stdin is no payload. fstat instead of node:tty's isatty,
  // whose module costs ~9 ms and ~400 page faults to load.
  if (isCharacterDevice(0)) return Promise.resolve(Buffer.alloc(0));
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" && total === 0) return readStdinStream();
      if (code === "EOF") break;
      return Promise.resolve(null);
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_STDIN_BYTES) return Promise.resolve(null);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Promise.resolve(Buffer.concat(chunks, total));
}

function readStdinStream(): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (value: Buffer | null) => {
      if (done) return;
      done = true;
      stdin.removeAllListeners("data");
      stdin.pause();
      resolve(value);
    };
    stdin.on("data", (c: Buffer) => {
      total += c.length;
      if (total > MAX_STDIN_BYTES) return finish(null);
      chunks.push(c);
    });
    stdin.on("end", () => finish(Buffer.concat(chunks, total)));
    stdin.on("error", () => finish(null));
  });
}

/** Process entry for `kbz hook stop` and the Node fallback: print, flush, exit 0. */
export async function stopHookMain(args: string[]): Promise<never> {
  let text = "";
  try {
    text = renderOutput(await runStopHook(args, await readStdin(), process.env, process.cwd()));
  } catch (e) {
    text = renderOutput(internalFailure((e as Error)?.message ?? String(e)));
  }
  if (text !== "") writeFdSync(1, text);
  process.exit(0);
}
