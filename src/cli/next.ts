// kbz next: the next allocation for a scope (kill §3.1). Read-only: never claims, launches or writes.
import { UsageError } from "../core/errors.ts";
import { ScheduleInputError } from "../core/plan/errors.ts";
import { EmptyPlanError } from "../core/plan/table.ts";
import { idCompare } from "../core/plan/order.ts";
import { adviseNext, describeAttention, exitFor, type Advice } from "../core/schedule/advise.ts";
import { readNextSnapshot } from "../core/schedule/read.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { canonicalRoot, isValidId } from "../core/workspace/discover.ts";
import { ReadError } from "../core/workspace/read.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, json, out } from "./output.ts";

const SLOTS = /^[1-9][0-9]*$/;
const MAX_ERROR = 500;

interface NextArgs {
  scope?: string;
  slots?: string;
  root?: string;
  details?: boolean;
  json?: boolean;
  "original-order"?: boolean;
}

function printJson(value: unknown): void {
  json(value, true);
}

/** Errors keep schedule.mjs's shape: one JSON object on stdout with --json, else `kbz: …` on stderr. */
function invalid(message: string, asJson: boolean): ExitCode {
  const text = message.length > MAX_ERROR ? message.slice(0, MAX_ERROR - 3) + "..." : message;
  if (asJson) printJson({ schema: 1, action: "invalid", error: text });
  else err(`kbz: ${text}`);
  return 2;
}

/** A scope `kbz init --scope` just made: nothing to schedule yet, and how to add the first leaf. */
function emptyPlan(scope: string, asJson: boolean): ExitCode {
  const hint = `add leaves with kbz plan add --scope ${scope} LEAF --owns GLOB [--needs A,B]`;
  if (asJson) printJson({ schema: 1, exit: 1, verdict: "review", action: "review", scope, counts: { tasks: 0 }, launch: [], attention: [{ reason: "empty-plan", hint }], errors: [] });
  else out(`REVIEW: scope ${scope} has no leaves yet: ${hint}`);
  return 1;
}

/** yargs' wording mapped onto the original's error classes. */
export function usageMessage(message: string): string {
  if (/Unknown argument|more than once/i.test(message)) return `unknown or duplicate option (${message})`;
  if (/Not enough arguments|needs a non-empty value/i.test(message)) return `missing option value (${message})`;
  return message;
}

function run(argv: NextArgs): ExitCode {
  const asJson = !!argv.json;
  if (argv.scope === undefined || !isValidId(argv.scope)) return invalid("invalid scope", asJson);
  if (argv.slots === undefined) return invalid("slots must be a positive integer (total scope concurrency)", asJson);
  if (!SLOTS.test(argv.slots) || !Number.isSafeInteger(Number(argv.slots))) return invalid("invalid slots", asJson);
  let snap: NextSnapshot;
  let advice: Advice;
  try {
    const root = canonicalRoot(argv.root ?? process.cwd());
    snap = readNextSnapshot({
      root,
      scope: argv.scope,
      slots: Number(argv.slots),
      compare: idCompare(argv["original-order"] ? "original" : "natural"),
    });
    advice = adviseNext(snap, { details: !!argv.details || !asJson });
  } catch (e) {
    if (e instanceof EmptyPlanError) return emptyPlan(argv.scope, asJson);
    if (e instanceof ScheduleInputError) return invalid(e.located(), asJson);
    if (e instanceof UsageError) return invalid(e.message, asJson);
    if (e instanceof ReadError) return invalid(e.located(), asJson);
    // A file system failure (permissions, I/O) is still one invalid object, as schedule.mjs prints.
    if (typeof (e as NodeJS.ErrnoException)?.code === "string") return invalid((e as Error).message, asJson);
    throw e;
  }
  if (asJson) printJson(advice);
  else printHuman(snap, advice, argv.root === undefined ? "" : ` --root ${shellWord(argv.root)}`, !!argv.details);
  return exitFor(advice.action);
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
      if (x.reason.startsWith("verification-")) emit(`    why: kbz verify explain${rootArg} .unlazy/${snap.scope}/gates/leaf-${x.leaf}.md`);
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

/** The advice as `kbz next` prints it, for verbs that end with it (advance). */
export function nextAdviceLines(root: string, scope: string, slots: number): { advice: Advice; lines: string[] } {
  const snap = readNextSnapshot({ root, scope, slots, compare: idCompare("natural") });
  const advice = adviseNext(snap, { details: true });
  const lines: string[] = [];
  printHuman(snap, advice, "", false, (l) => lines.push(l));
  return { advice, lines };
}

export const verb: Verb = {
  command: "next",
  describe: "compute which leaves of a scope may start now (read-only dispatch advice)",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "the scope under .unlazy/", requiresArg: true })
      .option("slots", { type: "string", describe: "total concurrent leaves for the scope, active ones included", requiresArg: true })
      .option("details", { type: "boolean", describe: "add structure and the reason each task waits" })
      .option("json", { type: "boolean", describe: "print one JSON object (schedule.mjs's result)" })
      .option("original-order", {
        type: "boolean",
        describe: "order ids by UTF-16 code units like schedule.mjs (10 before 2) instead of naturally (2 before 10)",
      })
      .option("root", { type: "string", describe: "repository root (default: current directory)", requiresArg: true }),
  handler: (argv: NextArgs) => run(argv),
  usageError: (message: string, args: string[]) => invalid(usageMessage(message), args.includes("--json")),
};
