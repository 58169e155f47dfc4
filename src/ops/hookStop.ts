// The Stop hook's use case: one stop, already read by a host adapter, in; kbz's answer out
// (core/hook/decide.ts's HookOutput; the adapter says it in its host's contract). Options in,
// data out: the edge (src/hook/entry.ts) reads stdin, picks the adapter, calls hookStop and prints.
// Everything this module imports is bundled for Node 16 into hooks/stop-hook.mjs, so it uses only
// `node:` built-ins: no Bun APIs, no React, no Ink, no yargs.
//
// Which scopes a stop is judged on, when scopes are bound to sessions, is io/discover.ts
// sessionTarget's rule, from the holds this use case records outside the repository on every
// counted stop (io/hook/holds.ts): a binding is the agent's claim, a hold is what the hook saw.
// An allowed stop that left an unmet scope to another session says so (withLeftNote).
//
// The root comes from the one root rule (io/root.ts findRoot), as for every verb. decideStop()
// decides for every host alike. A sub-agent or task that is one of kbz's workers (its handle from
// `kbz wave start`, or "leaf <id>" in a task's subject) is judged by its leaf's gates alone; a task
// that is not a leaf is not kbz's to refuse. A host's "already continuing" flag never releases the
// gate by itself: Claude Code sets it on every stop after a block, so honouring it would let an
// agent end its turn after one refusal. The progress guard (six blocks without a gate-state
// change) is the loop breaker. SubagentStop payloads carry the parent's session id and are decided
// exactly like Stop, counted in the same per-session, per-scope entry, so subagents cannot
// multiply the cap.
import * as fs from "node:fs";
import * as path from "node:path";
import { kindOf } from "../core/errors.ts";
import {
  assess,
  cannotJudge,
  uncountedStop,
  waitingOnWave,
  decideStop,
  failureHash,
  MAX_BLOCKS,
  planStop,
  undecidedStop,
  withLeftNote,
  type Assessment,
  type LeftNote,
  type GuardResult,
  type HookOutput,
} from "../core/hook/decide.ts";
import type { HostStop } from "../core/hook/stop.ts";
import { sanitizeCompact } from "../core/text/sanitize.ts";
import { leafIds, leafSnapshot, matchLeaf, waitingOn } from "../core/hook/worker.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { DeadlineError, withDeadline } from "../io/deadline.ts";
import {
  listScopes,
  resolveTarget,
  sessionTarget,
  withSoloLedgers,
  type LeftScope,
  type SessionTarget,
} from "../io/discover.ts";
import { clearSession, recordBlock, sessionKey } from "../io/hook/guard.ts";
import { readHolds, recordHolds } from "../io/hook/holds.ts";
import { transcriptOf, type Transcript } from "../io/hook/transcript.ts";
import { hardBound, HardBoundError } from "../io/hook/watchdog.ts";
import { approvalDirFor } from "../io/run/approval.ts";
import { loadSnapshot } from "./snapshot.ts";
import { outermostRoot } from "../io/root.ts";
import { installCoordination } from "../io/coordination/active.ts";
import { resolveCoordinator } from "../io/coordination/config.ts";

/**
 * The judging bound (issue 28): the hook decides within 3 s whatever the repository holds. The
 * snapshot and the count get 2.5 s of it; a watchdog thread (io/hook/watchdog.ts) answers at 2.9 s
 * whatever the judging code is doing.
 */
const JUDGE_S = 3;
const JUDGE_MS = 2500;
/** When the watchdog answers in place of the judging code, counted from the payload's arrival. */
export const WATCHDOG_MS = 2700;
export { armWatchdog, prepareHardBound, type Watchdog } from "../io/hook/watchdog.ts";
/** How long a configured coordinator may take to answer before the files are judged without it. */
const COORDINATOR_MS = 1200;

export interface HookStopOptions {
  /** `--scope` of the installed hook: undefined when not given, null when given but missing or invalid. */
  scope: string | null | undefined;
  /** The stop as the host adapter read it; null when there is no payload to judge (allow). */
  stop: HostStop | null;
  env: Record<string, string | undefined>;
  /** The hook process's cwd; the stop's own cwd is resolved against it. */
  cwd: string;
}

/** A stop kbz cannot judge, with the reason and a stable name for the progress guard. */
class CannotJudge extends Error {
  constructor(
    message: string,
    readonly what: string,
  ) {
    super(message);
  }
}

/** The whole decision for one stop, host-neutral. Never throws, and never allows a stop it could not judge. */
export async function hookStop({ scope: pinned, stop, env, cwd }: HookStopOptions): Promise<HookOutput> {
  if (!stop) return null; // no payload: the host's input, not the repository's (docs/formats.md#stop-hook)
  const wanted = path.resolve(cwd, stop.cwd ?? ".");
  const dir = existingDirectory(wanted);
  // The roots a stop is judged on (issue 40 item 5): the outermost root above the stop's folder
  // and the project the host names; the first is the one counted and keyed.
  const roots = dir ? judgedRoots(dir, env) : [wanted];
  if (roots.length > 1) {
    const answers: HookOutput[] = [];
    for (const r of roots) answers.push(await hookStopAt(r, { scope: pinned, stop, env, cwd: r }));
    const block = answers.find((a) => a !== null && "decision" in a);
    if (block) return block;
    const notes = answers.flatMap((a) => (a !== null && "systemMessage" in a ? [a.systemMessage] : []));
    return notes.length > 0 ? { systemMessage: notes.join(" ") } : null;
  }
  return hookStopAt(roots[0]!, { scope: pinned, stop, env, cwd }, dir);
}

/** The outermost root above `dir`, and the project the host names (CLAUDE_PROJECT_DIR and the other hosts' equivalents) when it is another. */
function judgedRoots(dir: string, env: Record<string, string | undefined>): string[] {
  const roots = [outermostRoot(dir)];
  for (const name of ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "QWEN_PROJECT_DIR", "CURSOR_PROJECT_DIR"]) {
    const p = env[name];
    const real = p ? existingDirectory(p) : null;
    if (real) {
      const r = outermostRoot(real);
      if (!roots.includes(r)) roots.push(r);
      break;
    }
  }
  return roots;
}

async function hookStopAt(
  root: string,
  { scope: pinned, stop, env, cwd }: HookStopOptions & { stop: HostStop },
  dirGiven?: string | null,
): Promise<HookOutput> {
  const until = Date.now() + JUDGE_MS;
  const store = approvalDirFor(env);
  // A sub-agent's or a task's stop names the session's transcript, which the host does not append
  // to between the sub-agent's turns (Codex, Copilot CLI): there the count rests on the stop itself,
  // or the loud release would never come (docs/formats.md#stop-hook).
  const transcript = transcriptOf(stop.kind === "stop" ? (stop.transcript ?? null) : null);
  const wanted = path.resolve(cwd, stop.cwd ?? ".");
  const dir = dirGiven === undefined ? root : dirGiven;
  // The counts of one session and scope; a different transcript is a different count (io/hook/guard.ts).
  const keyOf = (session: string, scope: string | null) => sessionKey(`${session}${transcript.key}`, scope);
  const count = (session: string, scope: string | null, hash: string) =>
    countBlock({ store, root, key: keyOf(session, scope), hash, stop, transcript, until });
  try {
    if (pinned === null)
      throw new CannotJudge(
        "the installed hook has an invalid --scope value: reinstall it (a person's act)",
        "scope-argument",
      );
    if (!dir) throw new CannotJudge(`the stop's folder is not an existing directory: ${wanted}`, "cwd");
    return await judge({ pinned, stop, env, root, store, until, count, keyOf });
  } catch (e) {
    const why = errorLine(e);
    const what = e instanceof CannotJudge ? e.what : `${kindOf(e)}:${(e as { code?: string }).code ?? ""}`;
    return cannotJudge(why, await count(stop.session, null, failureHash(what)));
  }
}

interface JudgeInput {
  pinned: string | undefined;
  stop: HostStop;
  env: Record<string, string | undefined>;
  root: string;
  store: string;
  until: number;
  count: (session: string, scope: string | null, hash: string) => Promise<GuardResult>;
  keyOf: (session: string, scope: string | null) => string;
}

async function judge({ pinned, stop, env, root, store, until, count, keyOf }: JudgeInput): Promise<HookOutput> {
  const started = Date.now();
  // With a coordinator the session binding, waves and lost leases come from the cluster. One that
  // cannot be read in time (or is configured wrongly) leaves the files judged, and the stop blocks
  // on them saying that waves and bindings are unknown (never an allow).
  const unknown = await coordinatorProblem(root, env);
  const scope = pinned ?? (env.UNLAZY_SCOPE || null);
  // A binding names the host's session, never the prompt, turn or task kbz counts under.
  const host = stop.session.split("\0")[0]!;
  const resolved = resolveForHook(root, scope, host, store);
  const t = resolved.target;
  // Every counted stop is a hold of this session on the scopes judged (io/hook/holds.ts).
  const held = () => recordHolds(store, root, resolved.judged, host);
  let judged: { snap: Snapshot; leaf: string | null } | null;
  let whole: Snapshot;
  let assessment: Assessment;
  try {
    const left = Math.max(0, until - Date.now());
    ({ whole, judged, assessment } = hardBound(left + 100, () =>
      withDeadline(left, JUDGE_S, () => {
        // The solo ledgers are judged with the scope (fixes unlazy bug: a scope hid the solo ledger).
        const all = loadSnapshot(withSoloLedgers(t));
        const mine = subject(all, stop);
        return { whole: all, judged: mine, assessment: assess((mine ?? { snap: all }).snap) };
      }),
    ));
  } catch (e) {
    if (!(e instanceof DeadlineError) && !(e instanceof HardBoundError)) throw e;
    held();
    const file = e instanceof DeadlineError ? (e.file ?? "the gates") : "the gates";
    const what = e instanceof DeadlineError ? e.what : "judging";
    return undecidedStop(file, JUDGE_S, what, await count(stop.session, t.scope, failureHash("undecided")));
  }
  if (judged === null) return null;
  if (unknown !== null) {
    assessment.invalid.unshift(unknown);
    assessment.resolved.push("coordinator=unknown");
    assessment.empty = false;
  }
  const session = judged.leaf === null ? stop.session : `${stop.session}\0leaf:${judged.leaf}`;
  const plan = planStop(assessment);
  if (plan.kind === "clear") {
    await clearSession(store, root, keyOf(session, t.scope), until - Date.now());
    // Issue 40 item 5: a root with nothing at all to judge is said, never silence.
    if (assessment.empty && resolved.left.length === 0 && resolved.judged.length === 0) return nothingToJudge(root);
    return withLeftNote(plan.output, leftUnmet(root, resolved.left, started));
  }
  if (stop.uncounted === "failed" || stop.uncounted === "aborted") return uncountedStop(assessment, stop.uncounted);
  held();
  const guard = await count(session, t.scope, plan.hash);
  const waiting = stop.kind === "stop" ? waitingOn(whole.dispatch?.running ?? [], stop.background) : [];
  return waiting.length > 0 ? waitingOnWave(assessment, guard, waiting) : decideStop(assessment, guard);
}

function nothingToJudge(root: string): HookOutput {
  return {
    systemMessage: `kbz: nothing to judge at ${sanitizeCompact(root, 200)} (no GATES.md, gates/*.md or scope ledgers): this stop is not guarded.`,
  };
}

/** Install the configured coordinator within COORDINATOR_MS; what is wrong with it, or null. */
async function coordinatorProblem(root: string, env: Record<string, string | undefined>): Promise<string | null> {
  // The common case, no coordinator configured: the files adapter, nothing to wait for (a timer
  // costs the hook a thread wake-up).
  try {
    if (resolveCoordinator(root, undefined, env).kind === "files") {
      await installCoordination(root, { env, logScope: null });
      return null;
    }
  } catch (e) {
    return `coordinator:UNKNOWN ${errorLine(e)}; waves and bindings unknown`;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`did not answer within ${COORDINATOR_MS / 1000} s`), COORDINATOR_MS);
  });
  try {
    const problem = await Promise.race([installCoordination(root, { env, logScope: null }).then(() => null), late]);
    return problem === null ? null : `coordinator:UNKNOWN the coordinator ${problem}; waves and bindings unknown`;
  } catch (e) {
    return `coordinator:UNKNOWN ${errorLine(e)}; waves and bindings unknown`;
  } finally {
    clearTimeout(timer);
  }
}

/** An error as one line that names its file: `<file>:<line>: <message>` (the path is a field of kbz's errors). */
function errorLine(e: unknown): string {
  const message = (e as Error)?.message ?? String(e);
  const file = (e as { file?: unknown }).file;
  const line = (e as { line?: unknown }).line;
  if (typeof file !== "string" || file === "") return message;
  return `${file}${typeof line === "number" ? `:${line}` : ""}: ${message}`;
}

function existingDirectory(dir: string): string | null {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : null;
  } catch {
    return null;
  }
}

type Resolved = Pick<SessionTarget, "target" | "judged" | "left">;

function resolveForHook(root: string, scope: string | null, sessionId: string, store: string): Resolved {
  try {
    if (scope) {
      const target = resolveTarget({ root, scope });
      return { target, judged: target.scope ? [target.scope] : [], left: [] };
    }
    return sessionTarget(root, listScopes(root), sessionId, () => readHolds(store, root));
  } catch (e) {
    if (kindOf(e) !== "usage") throw e;
    throw new CannotJudge((e as Error).message, `target:${scope ?? ""}`);
  }
}
/**
 * The scopes left to another session that are not met, each with what is open: an allowed stop
 * names them, so that a person sees a scope left to a session they do not know (what the hook
 * cannot tell from a real second session: fake payloads sent before this session's first stop).
 * Read only on an allowed stop with a scope left (never on the common path).
 */
function leftUnmet(root: string, left: LeftScope[], started: number): LeftNote[] {
  if (left.length === 0) return [];
  // What is left of the judging bound (issue 28): the answer stays within it.
  const ms = Math.max(200, JUDGE_MS - (Date.now() - started));
  try {
    return withDeadline(ms, JUDGE_S, () =>
      left.flatMap((l) => {
        const a = assess(loadSnapshot(resolveTarget({ root, scope: l.scope })));
        const open = [...a.invalid, ...a.unmet];
        return open.length > 0 ? [{ ...l, open }] : [];
      }),
    );
  } catch {
    return left.map((l) => ({ ...l, open: [`not judged in ${JUDGE_S} s`] }));
  }
}

interface CountInput {
  store: string;
  root: string;
  key: string;
  hash: string;
  stop: HostStop;
  transcript: Transcript;
  until: number;
}

async function countBlock({ store, root, key, hash, stop, transcript, until }: CountInput): Promise<GuardResult> {
  let blocks: number;
  try {
    blocks = await recordBlock(store, root, key, hash, {
      restartAfter: stop.fresh ? MAX_BLOCKS : null,
      uncounted: stop.uncounted === "no-message",
      transcript: transcript.size,
      waitMs: until - Date.now(),
    });
  } catch (e) {
    const file = (e as { file?: string }).file;
    return { ok: false, message: `${(e as Error).message}${file ? ` (${file})` : ""}` };
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
