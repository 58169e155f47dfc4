// The Stop hook's decision (docs/formats.md#stop-hook) as pure functions of a snapshot (with
// the scope's dispatch aggregate folded in by the loader) and the progress guard's answer.
import { sha256Hex } from "../ledger/digest.ts";
import { hasUnsafe, sanitizeCompact } from "../text/sanitize.ts";
import type { Snapshot } from "../snapshot.ts";
import { kbz } from "../text/command.ts";

/** What Claude Code reads on stdout; `null` means print nothing (allow silently). */
export type HookOutput = { decision: "block"; reason: string } | { systemMessage: string } | null;

export const MAX_BLOCKS = 6;
const PREFIX = "kbz";

export interface Assessment {
  scope: string | null;
  discovery: string[]; // sanitised discovery error messages
  unmet: string[];
  invalid: string[];
  handoffs: string[];
  resolved: string[];
  /** Nothing to enforce at all: no ledgers, no discovery errors, no live or abandoned waves. */
  empty: boolean;
}

function where(scope: string | null): string {
  return scope ? ` [scope ${scope}]` : "";
}

/** `a, b, c[, +k more]` with the first `n` items. */
function firstOf(items: string[], n: number): string {
  const shown = items.slice(0, n).join(", ");
  return items.length > n ? `${shown}, +${items.length - n} more` : shown;
}

export function assess(snap: Snapshot): Assessment {
  // Open/sealed waves and an invalid dispatch state (as `dispatch:PARSE ...`) arrive as
  // blocking items; the loader skips dispatch when discovery failed.
  const dispatch = snap.dispatch ?? { blocking: [], abandoned: [], resolved: [], error: null };
  const discovery = snap.target.discoveryErrors.map((d) => sanitizeCompact(d.message, 300));
  const unmet: string[] = [];
  const invalid: string[] = [];
  const handoffs: string[] = [];
  const resolved: string[] = [];

  for (const msg of discovery) {
    invalid.push(`discovery:PARSE ${msg}`);
    resolved.push("discovery:PARSE=invalid");
  }
  unmet.push(...dispatch.blocking);
  for (const item of snap.removed ?? []) {
    unmet.push(sanitizeCompact(item, 300));
    resolved.push(`${sanitizeCompact(item.split(" ")[0]!, 200)}=removed`);
  }
  handoffs.push(...dispatch.abandoned);
  resolved.push(...dispatch.resolved);

  const byFile = new Map<string, Snapshot["gates"]>();
  for (const g of snap.gates) {
    const list = byFile.get(g.file);
    if (list) list.push(g);
    else byFile.set(g.file, [g]);
  }
  for (const entry of snap.ledgers) {
    if (entry.unreadable) {
      const msg = entry.problems[0]?.message ?? "unreadable";
      invalid.push(`${entry.stem}:PARSE unreadable: ${sanitizeCompact(msg, 200)}`);
      resolved.push(`${entry.stem}:PARSE=unreadable`);
      continue;
    }
    if (entry.problems.length > 0 || !entry.ledger) {
      const firstTwo = entry.problems
        .slice(0, 2)
        .map((p) => `line ${p.line}: ${sanitizeCompact(p.portable ?? p.message, 200)}`);
      invalid.push(`${entry.stem}:PARSE ${firstTwo.join("; ")}`);
      resolved.push(`${entry.stem}:PARSE=invalid`);
      continue;
    }
    for (const g of byFile.get(entry.file) ?? []) {
      const qid = hasUnsafe(g.qid) || /\s/.test(g.qid) ? sanitizeCompact(g.qid, 200) : g.qid;
      resolved.push(`${qid}=${g.state}`);
      if (g.state === "abandoned") handoffs.push(qid);
      else if (g.state !== "met") unmet.push(g.reason ? `${qid} ${sanitizeCompact(g.reason, 200)}` : qid); // VACUOUS too (issue 27)
    }
  }

  const empty =
    snap.ledgers.length === 0 &&
    discovery.length === 0 &&
    dispatch.blocking.length === 0 &&
    dispatch.abandoned.length === 0 &&
    (snap.removed ?? []).length === 0;
  return { scope: snap.target.scope, discovery, unmet, invalid, handoffs, resolved, empty };
}

/** First 24 hex of SHA-256 over the sorted semantic states: only state changes are progress. */
export function progressHash(resolved: string[]): string {
  return sha256Hex([...resolved].sort().join("\0")).slice(0, 24);
}

function handoffSuffix(handoffs: string[]): string {
  return handoffs.length ? ` HANDOFF REQUIRED: ${handoffs.length} abandoned item(s): ${firstOf(handoffs, 5)}.` : "";
}

/**
 * Steps 4 and 6: when nothing is outstanding the guard entry is cleared and this is the
 * answer; otherwise the guard must count a block against `hash`.
 */
export type StopPlan = { kind: "clear"; output: HookOutput } | { kind: "count"; hash: string };

export function planStop(a: Assessment): StopPlan {
  if (a.empty) return { kind: "clear", output: null };
  if (a.unmet.length === 0 && a.invalid.length === 0) {
    if (a.handoffs.length === 0) return { kind: "clear", output: null };
    return { kind: "clear", output: { systemMessage: `${PREFIX}${where(a.scope)}:${handoffSuffix(a.handoffs)}` } };
  }
  return { kind: "count", hash: progressHash(a.resolved) };
}

/** A scope the hook left to another session (not judged for this one) that is not met. */
export interface LeftNote {
  scope: string;
  /** The session it is bound to; null when it is unbound and this session is bound to another scope. */
  session: string | null;
  open: string[];
}

/**
 * An allowed stop that left unmet scopes to other sessions says so, to the person (the host shows
 * a systemMessage to the user): the hook cannot tell a real second session from payloads an agent
 * piped into `kbz hook stop` for a made-up one before its own first stop, but a person can.
 */
export function withLeftNote(output: HookOutput, left: LeftNote[]): HookOutput {
  if (left.length === 0 || (output !== null && "decision" in output)) return output;
  const parts = left.map((l) => {
    const who = l.session === null ? "not bound to this session" : `bound to session ${sanitizeCompact(l.session, 80)}`;
    return `scope ${l.scope} (${who}): ${l.open.length} item(s) open: ${firstOf(l.open, 3)}`;
  });
  const note =
    `${PREFIX}: not judged for this session: ${parts.join("; ")}. ` +
    `If that is not another agent's running session, this work is not done: ${kbz("status")} shows it.`;
  return { systemMessage: output === null ? note : `${output.systemMessage} ${note}` };
}

/** The progress guard's answer: the block count after this stop, or why it could not count. */
export type GuardResult = { ok: true; blocks: number } | { ok: false; message: string };

/** Why a block was not counted toward the release, when the counts could not be kept. */
function uncountedNote(guard: GuardResult): string {
  return guard.ok ? "" : ` (not counted toward the release: ${sanitizeCompact(guard.message, 300)})`;
}

/** Steps 8.5-10: block, or release after MAX_BLOCKS blocks without progress. A guard that could not count still blocks. */
export function decideStop(a: Assessment, guard: GuardResult): HookOutput {
  const outstanding = [...a.invalid, ...a.unmet];
  if (guard.ok && guard.blocks > MAX_BLOCKS) {
    return {
      systemMessage:
        `${PREFIX}: releasing after ${MAX_BLOCKS} blocks without gate progress${where(a.scope)}; ` +
        `${outstanding.length} item(s) remain (${outstanding.slice(0, 4).join(", ")}).${handoffSuffix(a.handoffs)}`,
    };
  }
  return {
    decision: "block",
    reason:
      `${PREFIX}${where(a.scope)}: ${outstanding.length} gate/ledger/dispatch item(s) need work: ${firstOf(outstanding, 5)}. ` +
      `Run ${kbz("status")} to inspect without execution. CHECKs waiting for approval are the user's to approve: ` +
      `show them to the user (${kbz("check")} prints them) and ask them to review and approve; do not approve them yourself. ` +
      `Use ABANDON: <id> <non-blank reason> only when a gate is genuinely impossible.${handoffSuffix(a.handoffs)}${uncountedNote(guard)}`,
  };
}

/**
 * Issue 28: kbz could not judge in its time bound. That is a block with the reason, counted by
 * the progress guard like any block (`guard`), never a silent allow: an agent could make kbz
 * slow on purpose.
 */
export function undecidedStop(file: string, seconds: number, why: string, guard: GuardResult): HookOutput {
  const what = `${PREFIX} could not judge ${sanitizeCompact(file, 200)} in ${seconds} s: ${sanitizeCompact(why, 300)}`;
  if (guard.ok && guard.blocks > MAX_BLOCKS)
    return { systemMessage: `${PREFIX}: releasing after ${MAX_BLOCKS} blocks without gate progress; ${what}` };
  return {
    decision: "block",
    reason: `${what}. Narrow the gate's INPUTS (or fix what made kbz slow), then run ${kbz("status")}.${uncountedNote(guard)}`,
  };
}

/**
 * A stop kbz could not judge (an error, state it cannot read, an installed hook it cannot follow):
 * a block naming the reason, counted like any block, never an allow (issue 40). The agent or the
 * person repairs it; `kbz status` names the same problem.
 */
export function cannotJudge(why: string, guard: GuardResult): HookOutput {
  const what = `${PREFIX} could not judge this stop: ${sanitizeCompact(why, 400)}`;
  if (guard.ok && guard.blocks > MAX_BLOCKS)
    return { systemMessage: `${PREFIX}: releasing after ${MAX_BLOCKS} blocks without gate progress; ${what}` };
  return {
    decision: "block",
    reason: `${what}. Repair it (${kbz("status")} names it too), then stop again.${uncountedNote(guard)}`,
  };
}

/** The progress hash of a stop kbz could not judge: the same reason is no progress. */
export function failureHash(why: string): string {
  return progressHash([`cannot-judge=${why}`]);
}

/** How kbz names a stop that never counts toward the release. */
const UNCOUNTED_WHY = {
  failed: "the turn ended on an error (no decision of the agent's)",
  aborted: "the turn was interrupted",
} as const;

/**
 * A failed or interrupted turn: the host or the person ended it, not the agent, so kbz neither
 * counts it toward the release nor asks for more work; it says what is still open.
 */
export function uncountedStop(a: Assessment, why: keyof typeof UNCOUNTED_WHY): HookOutput {
  const outstanding = [...a.invalid, ...a.unmet];
  return {
    systemMessage: `${PREFIX}${where(a.scope)}: ${UNCOUNTED_WHY[why]}; not counted toward the release. ${outstanding.length} item(s) still need work: ${firstOf(outstanding, 5)}.`,
  };
}

/**
 * The agent stopped while workers of an open wave still run in the background (Claude Code
 * `background_tasks`): say what it waits on instead of asking for new work. Counted like any block.
 */
export function waitingOnWave(
  a: Assessment,
  guard: GuardResult,
  running: { wave: string; leaf: string }[],
): HookOutput {
  const plain = decideStop(a, guard);
  if (plain === null || !("decision" in plain)) return plain;
  const byWave = new Map<string, string[]>();
  for (const r of running) byWave.set(r.wave, [...(byWave.get(r.wave) ?? []), r.leaf]);
  const waits = [...byWave].map(([w, leaves]) => `wave ${w} (leaf ${leaves.join(", ")})`).join("; ");
  const outstanding = [...a.invalid, ...a.unmet];
  return {
    decision: "block",
    reason:
      `${PREFIX}${where(a.scope)}: waiting on ${waits}: its workers are still running in the background. ` +
      `Wait for them and take their results (${kbz("wave return")}) before starting other work; ${outstanding.length} item(s) open: ${firstOf(outstanding, 5)}.`,
  };
}
