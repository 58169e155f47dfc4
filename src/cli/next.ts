// kbz next: the next allocation for a scope (docs/formats.md#next-output). Read-only: never claims, launches or writes.
import { UsageError } from "../core/errors.ts";
import { ScheduleInputError, ScopeBusyError } from "../core/plan/errors.ts";
import { EmptyPlanError } from "../core/plan/table.ts";
import { idCompare } from "../core/plan/order.ts";
import { adviseNext, describeAttention, exitFor, type Advice } from "../core/schedule/advise.ts";
import { reviewHint } from "../core/schedule/review-hints.ts";
import { isPolicy, POLICIES, type Policy } from "../core/schedule/policy.ts";
import { readScheduleFacts } from "../ops/facts.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { ReadError } from "../core/errors.ts";
import { outputMode, requireScope, rootFor, usage } from "./context.ts";
import { envelope, err, errorEntries, fail, report, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { out } from "./output.ts";

const SLOTS = /^[1-9][0-9]*$/;
/** `--slots` when not given: four leaves at once, the dashboard's default too. */
export const DEFAULT_SLOTS = 4;
const MAX_ERROR = 500;

interface NextArgs {
  scope?: string;
  slots?: string;
  root?: string;
  details?: boolean;
  json?: boolean;
  "original-order"?: boolean;
  policy?: string;
}

const clip = (message: string) => (message.length > MAX_ERROR ? message.slice(0, MAX_ERROR - 3) + "..." : message);

/** schedule.mjs's failure object `{"action":"invalid","error":…}`, kept inside the envelope. */
function scheduleFields(message: string): Record<string, unknown> {
  return { action: "invalid", error: clip(message) };
}

/** A refusal located like schedule.mjs's message, in the one envelope. */
function invalid(e: Error & { located?: () => string }, asJson: boolean): ExitCode {
  return fail(e, asJson, scheduleFields(e.located ? e.located() : e.message));
}

/** Transient (issue 28 item 10): its own verdict and hint, exit 2, never "invalid". */
function busy(e: ScopeBusyError, asJson: boolean): ExitCode {
  return report(asJson, envelope("busy", 2, { action: "busy", error: e.message }, errorEntries(e)), () => err(`kbz: ${e.message}; ${e.hint}`));
}

/** A scope `kbz init --scope` just made: nothing to schedule yet, and how to add the first leaf. */
function emptyPlan(scope: string, asJson: boolean): ExitCode {
  const hint = `add leaves with kbz plan add --scope ${scope} LEAF --owns GLOB [--needs A,B]`;
  return report(asJson, envelope("review", 1, { action: "review", scope, counts: { tasks: 0 }, launch: [], attention: [{ reason: "empty-plan", hint }] }), () =>
    out(`REVIEW: scope ${scope} has no leaves yet: ${hint}`),
  );
}

function run(argv: NextArgs): ExitCode {
  const { json: asJson } = outputMode(argv);
  let snap: NextSnapshot;
  let advice: Advice;
  let snapScope = argv.scope ?? "";
  try {
    if (argv.scope !== undefined && !isValidId(argv.scope)) throw usage("invalid scope", "scope ids are folder names under .unlazy/; kbz scope list shows them");
    if (argv.slots !== undefined && (!SLOTS.test(argv.slots) || !Number.isSafeInteger(Number(argv.slots)))) {
      throw usage("invalid slots", `--slots is the total number of leaves running at once, a positive integer (default ${DEFAULT_SLOTS})`);
    }
    const policy = argv.policy ?? "id-order";
    if (!isPolicy(policy)) throw usage(`invalid policy ${JSON.stringify(policy)}`, `--policy is ${POLICIES.join(" or ")}`);
    const root = rootFor(argv);
    let scope: string;
    try {
      scope = requireScope(root, argv, "next");
      snapScope = scope;
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw usage("invalid scope", `${e.message}; ${(e as { hint?: string }).hint ?? "pass --scope ID"}`);
    }
    snap = readScheduleFacts({
      root,
      scope,
      slots: argv.slots === undefined ? DEFAULT_SLOTS : Number(argv.slots),
      compare: idCompare(argv["original-order"] ? "original" : "natural"),
    });
    advice = adviseNext(snap, { details: !!argv.details || !asJson, policy });
  } catch (e) {
    if (e instanceof EmptyPlanError) return emptyPlan(snapScope, asJson);
    if (e instanceof ScopeBusyError) return busy(e, asJson);
    if (e instanceof ScheduleInputError || e instanceof UsageError || e instanceof ReadError) return invalid(e, asJson);
    // A file system failure (permissions, I/O) is still one invalid object, as schedule.mjs prints.
    if (typeof (e as NodeJS.ErrnoException)?.code === "string") return invalid(e as Error, asJson);
    throw e;
  }
  const exit = exitFor(advice.action);
  // Every review item comes with its way out (the original's `attention` entries are unchanged).
  const reviewHints = advice.attention.map((x) => reviewHint(x, snap.scope));
  const fields = { ...(advice as unknown as Record<string, unknown>), ...(reviewHints.length > 0 ? { reviewHints } : {}) };
  return report(asJson, envelope(advice.action, exit, fields), () =>
    printHuman(snap, advice, argv.root === undefined ? "" : ` --root ${shellWord(argv.root)}`, !!argv.details),
  );
}

function nextWaveId(snap: NextSnapshot): string {
  let n = 0;
  for (const w of snap.waves) {
    const m = /^w([0-9]+)$/.exec(w.id);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `w${n + 1}`;
}

// wave start marks a launched row IN-FLIGHT (promoting it from WAITING when its needs are
// VERIFIED) and advance marks it VERIFIED: the advice never asks for a hand edit of PLAN.md.
const CLOSING: Record<Advice["action"], (s: string) => string> = {
  dispatch: (s) => `launch the tasks above; as each returns run kbz advance --scope ${s} --leaf LEAF`,
  "wait-or-verify": (s) => `nothing new can start: when a leaf returns run kbz advance --scope ${s} --leaf LEAF`,
  "verify-root": (s) => `every task is VERIFIED: run kbz check --scope ${s} --reverify, then kbz scope release --scope ${s}`,
  review: () => "review the items above before anything is launched (skill: references/orchestration.md, review items)",
};

/** A path as one shell word, so the printed commands can be pasted. */
function shellWord(p: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(p) ? p : `'${p.replace(/'/g, "'\\''")}'`;
}

function printHuman(snap: NextSnapshot, a: Advice, rootArg: string, details: boolean, emit: (line: string) => void = out): void {
  const s = `${snap.scope}${rootArg}`;
  emit(`scope ${snap.scope}: ${a.counts.tasks} task(s), ${snap.slots} slot(s), ${a.counts.active} active, mode ${a.mode}`);
  if (a.launch.length > 0) {
    emit(`LAUNCH ${a.launch.length}: ${a.launch.join(", ")}`);
    if (details) for (const p of a.explain?.preferred ?? []) emit(`  ${p.leaf} preferred: ${p.why}`);
    for (const id of a.launch) {
      if (a.alreadyClaimed.includes(id)) emit(`  leaf-${id} already holds its lease (do not claim again)`);
      else emit(`  kbz scope claim --scope ${s} --leaf leaf-${id}`);
    }
    const wave = nextWaveId(snap);
    emit(`  kbz wave open --scope ${s} --wave ${wave} ${a.launch.map((id) => `--leaf leaf-${id}`).join(" ")}`);
    for (const id of a.launch) {
      const c = a.continuations.find((x) => x.leaf === id);
      const hint = c ? (c.handle !== null ? `   # continues ${c.after}: reuse agent ${c.handle} if the host still has it` : `   # continues ${c.after} (no recorded handle)`) : "";
      emit(`  kbz wave start --scope ${s} --wave ${wave} --leaf leaf-${id} --handle <agent handle>${hint}`);
    }
    emit(`  kbz wave seal --scope ${s} --wave ${wave}`);
  }
  if (a.active.length > 0) emit(`ACTIVE ${a.active.length}: ${a.active.join(", ")}`);
  if (a.awaitVerification.length > 0) {
    emit(`RETURNED, VERIFY ${a.awaitVerification.length}: ${a.awaitVerification.join(", ")}`);
    for (const id of a.awaitVerification) emit(`  kbz advance --scope ${s} --leaf leaf-${id}`);
  }
  for (const h of a.handoffs?.pending ?? []) {
    emit(`REPORT ${h.id} on ${h.parent} pending: ${h.returned ? "returned" : "not returned yet"}, ${h.leaseReleased ? "lease released" : "lease held"}; accept, resume or reject it with kbz structure`);
  }
  const blocked = a.explain?.blocked ?? [];
  if (blocked.length > 0) {
    emit(`WAITING ${blocked.length}:`);
    for (const b of blocked) emit(`  ${b.leaf} (${b.reason}): ${b.why}`);
  }
  const attention = a.explain?.attention ?? [];
  if (attention.length > 0) {
    emit(`REVIEW ${attention.length}:`);
    for (const x of attention) {
      const leases = x.leases ? ` lease ${x.leases.join(", ")};` : "";
      emit(`  ${describeAttention(x)}:${leases} concerns ${x.tasks.length > 0 ? x.tasks.join(", ") : "no task of this plan"}`);
      emit(`    next: ${reviewHint(x, snap.scope)}`);
    }
  }
  if (details && a.structure) {
    const st = a.structure;
    emit(`SEQUENTIAL GROUPS ${st.sequentialGroups.length}: ${st.sequentialGroups.map((g) => g.join(" > ")).join(" | ")}`);
    for (const f of st.forks) emit(`  fork: ${f.after} -> ${f.children.join(", ")}`);
    for (const j of st.joins) emit(`  join: ${j.leaf} <- ${j.needs.join(", ")}`);
  }
  emit(`${a.action.toUpperCase()}: ${CLOSING[a.action](s)}`);
}

/** The advice as `kbz next` prints it, for verbs that end with it (advance); `policy` as `--policy`. */
export function nextAdviceLines(root: string, scope: string, slots: number, policy: Policy = "id-order"): { advice: Advice; lines: string[] } {
  const snap = readScheduleFacts({ root, scope, slots, compare: idCompare("natural") });
  const advice = adviseNext(snap, { details: true, policy });
  const lines: string[] = [];
  printHuman(snap, advice, "", false, (l) => lines.push(l));
  return { advice, lines };
}

export const verb: Verb = {
  command: "next",
  describe: "compute which leaves of a scope may start now (read-only dispatch advice)",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "the scope under .unlazy/ (default: UNLAZY_SCOPE, else the only scope)", requiresArg: true })
      .option("slots", { type: "string", describe: `total concurrent leaves for the scope, active ones included (default ${DEFAULT_SLOTS})`, requiresArg: true })
      .option("details", { type: "boolean", describe: "add structure and the reason each task waits" })
      .option("json", { type: "boolean", describe: "print one JSON object (schedule.mjs's result)" })
      .option("original-order", {
        type: "boolean",
        describe: "order ids by UTF-16 code units like schedule.mjs (10 before 2) instead of naturally (2 before 10)",
      })
      .option("policy", {
        type: "string",
        describe: "id-order (default, the original's) or critical-path (longest remaining path first, weighted by ACCESS.json estimate)",
        requiresArg: true,
      })
      .option("root", { type: "string", describe: "repository root (default: found from the current folder)", requiresArg: true }),
  handler: (argv: NextArgs) => run(argv),
  errorFields: (message: string) => scheduleFields(message),
};
