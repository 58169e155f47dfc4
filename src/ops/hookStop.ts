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
  uncountedStop,
  waitingOnWave,
  decideStop,
  internalFailure,
  invalidScopeArgument,
  MAX_BLOCKS,
  planStop,
  unresolvable,
  undecidedStop,
  withLeftNote,
  type Assessment,
  type LeftNote,
  type GuardResult,
  type HookOutput,
} from "../core/hook/decide.ts";
import type { HostStop } from "../core/hook/stop.ts";
import { leafIds, leafSnapshot, matchLeaf, waitingOn } from "../core/hook/worker.ts";
import type { Snapshot } from "../core/snapshot.ts";
import type { Target } from "../core/workspace/target.ts";
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
import { approvalDirFor } from "../io/run/approval.ts";
import { loadSnapshot } from "./snapshot.ts";
import { findRoot } from "../io/root.ts";
import { installCoordination } from "../io/coordination/active.ts";

/**
 * The judging bound (issue 28): the hook decides within 3 s whatever the repository holds. The
 * snapshot gets 2.5 s of it; the rest is startup and the answer.
 */
const JUDGE_S = 3;
const JUDGE_MS = 2500;

export interface HookStopOptions {
  /** `--scope` of the installed hook: undefined when not given, null when given but missing or invalid. */
  scope: string | null | undefined;
  /** The stop as the host adapter read it; null when there is no payload to judge (allow). */
  stop: HostStop | null;
  env: Record<string, string | undefined>;
  /** The hook process's cwd; the stop's own cwd is resolved against it. */
  cwd: string;
}

/** The whole decision for one stop, host-neutral. Never throws. */
export async function hookStop({ scope: pinned, stop, env, cwd }: HookStopOptions): Promise<HookOutput> {
  const started = Date.now();
  try {
    if (pinned === null) return invalidScopeArgument();
    if (!stop) return null;
    const wanted = path.resolve(cwd, stop.cwd ?? ".");
    const dir = existingDirectory(wanted);
    if (!dir) return unresolvable(`cwd is not an existing directory: ${wanted}`);
    const root = findRoot(dir);
    // With a coordinator the session binding, waves and lost leases come from the cluster; an
    // unreachable cluster is reported (not blocking, like every hook failure), never replaced by the files.
    await installCoordination(root, { env, logScope: null });
    const scope = pinned ?? (env.UNLAZY_SCOPE || null);
    // A binding names the host's session, never the prompt, turn or task kbz counts under.
    const host = stop.session.split("\0")[0]!;
    const store = approvalDirFor(env);
    const resolved = resolveForHook(root, scope, host, store);
    if ("output" in resolved) return resolved.output;
    const t = resolved.target;
    // Every counted stop is a hold of this session on the scopes judged (io/hook/holds.ts).
    const held = () => recordHolds(store, root, resolved.judged, host);
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
      held();
      return undecidedStop(
        e.file ?? "the gates",
        JUDGE_S,
        e.what,
        await countBlock(t, sessionKey(stop.session, t.scope), "undecided", stop),
      );
    }
    if (judged === null) return null;
    const key = sessionKey(judged.leaf === null ? stop.session : `${stop.session}\0leaf:${judged.leaf}`, t.scope);
    const plan = planStop(assessment);
    if (plan.kind === "clear") {
      await clearSession(t, key);
      return withLeftNote(plan.output, leftUnmet(root, resolved.left, started));
    }
    if (stop.uncounted === "failed" || stop.uncounted === "aborted") return uncountedStop(assessment, stop.uncounted);
    held();
    const guard = await countBlock(t, key, plan.hash, stop);
    const waiting = stop.kind === "stop" ? waitingOn(whole.dispatch?.running ?? [], stop.background) : [];
    return waiting.length > 0 ? waitingOnWave(assessment, guard, waiting) : decideStop(assessment, guard);
  } catch (e) {
    return internalFailure((e as Error)?.message ?? String(e));
  }
}

function existingDirectory(dir: string): string | null {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : null;
  } catch {
    return null;
  }
}

type Resolved = Pick<SessionTarget, "target" | "judged" | "left">;

function resolveForHook(
  root: string,
  scope: string | null,
  sessionId: string,
  store: string,
): Resolved | { output: HookOutput } {
  try {
    if (scope) {
      const target = resolveTarget({ root, scope });
      return { target, judged: target.scope ? [target.scope] : [], left: [] };
    }
    return sessionTarget(root, listScopes(root), sessionId, () => readHolds(store, root));
  } catch (e) {
    if (kindOf(e) !== "usage") throw e;
    return { output: unresolvable((e as Error).message) };
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

async function countBlock(target: Target, key: string, hash: string, stop: HostStop): Promise<GuardResult> {
  let blocks: number;
  try {
    blocks = await recordBlock(target, key, hash, {
      restartAfter: stop.fresh ? MAX_BLOCKS : null,
      uncounted: stop.uncounted === "no-message",
    });
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
