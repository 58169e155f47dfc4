// kbz advance: one command for a returned leaf. Records the native return (wave return), runs
// the leaf's approved gates from the repository root (as kbz check --reverify), and when all
// pass marks the row VERIFIED, releases the leaf's lease, promotes the rows it unblocked and
// prints the next advice. Every step first looks whether it is already done, so a retry after a
// crash or a refusal picks up where the last run stopped.
import { parseInteger } from "../core/text/integer.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import { DEFAULT_TIMEOUT_S, runLedgerChecks, type CheckResult } from "../ops/check.ts";
import { commitWave, dispatchState, leafLedgerPath, releaseLeaf, scopePlan } from "../ops/dispatch.ts";
import type { ExitCode, Verb } from "./index.ts";
import { out, printProblems, err } from "./output.ts";
import { emit, envelope } from "./envelope.ts";
import { leafFor, requireScope, rootFor } from "./context.ts";
import { approvalLines, compactRunLines, resultLines } from "./render.ts";
import { personLine } from "../core/text/person.ts";
import { waitingSignoffs } from "./person.ts";
import { DEFAULT_SLOTS, nextAdvice } from "../ops/next.ts";
import { nextLines, printLaunch } from "./nextText.ts";
import { launchNext } from "../ops/launch.ts";
import type { Advice } from "../core/schedule/advise.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { plural } from "../core/text/plural.ts";
import { setLeafState } from "../ops/plan.ts";
import { printNotes, RefusedError, refusingPlanInput, type PipelineArgs } from "./pipeline.ts";
import { leafStem } from "../core/plan/leaf-id.ts";

interface AdvanceArgs extends PipelineArgs {
  leaf?: string;
  approve?: boolean;
  slots?: string;
  timeout?: string;
  verbose?: boolean;
  launch?: boolean;
}

const HELP = `Records the wave return, re-runs the leaf's approved gates from the root, then marks it
VERIFIED, releases its lease, promotes what it unblocked and names the next step. Prints
failures and one verdict line. An unapproved CHECK is one NOT APPROVED line (a person runs
${kbz("approve", { scope: ph("S") })}). A retry is safe.

Examples:
  ${kbz("advance", { scope: ph("S"), leaf: "1.1" })}
  ${kbz("advance", { scope: ph("S"), leaf: "1.1", launch: true })}    # then start what may run, as next --launch

Exit: 0 verified; 1 not yet (failed, unapproved, unsigned); 2 usage or refused.`;

/** Record the native return in the wave that started this leaf; null when it was already recorded. */
async function recordReturn(root: string, scope: string, stem: string): Promise<string | null> {
  const state = dispatchState(root, scope);
  const waves = [...state.waves.values()].filter((w) => w.leaves.includes(stem));
  if (
    waves.some(
      (w) => w.returned.has(stem) && !waves.some((o) => o !== w && o.started.has(stem) && !o.returned.has(stem)),
    )
  )
    return null;
  const open = waves.find((w) => w.started.has(stem) && !w.returned.has(stem) && w.state !== "abandoned");
  if (!open) {
    throw new RefusedError(
      `${stem} was not started in any wave; record its launch first (${kbz("wave", ph("open/start/seal"), { scope }, ph("…"))})`,
    );
  }
  const t = await commitWave(root, scope, { kind: "return", wave: open.id, leaf: stem });
  printNotes(t.notes);
  return t.line;
}

/** What is left to do for a leaf that is not verified yet, one line each. */
function nextSteps(res: CheckResult, scope: string, stem: string): string[] {
  const lines: string[] = [];
  const unapproved = res.approvals.filter((a) => a.status === "required").map((a) => a.task.qid);
  const failed = res.runs.some((r) => !r.outcome.ok);
  const manual = res.snapshot.gates.filter((g) => g.state !== "met" && g.state !== "abandoned" && !g.gate.check);
  // What waits for the person is one line the agent shows them, with the one command (issue 43).
  // An edited oracle judged against the approved one waits for the person's review too.
  const edited = res.approvals.filter((a) => a.status === "judged");
  const person = personLine({
    approvals: [...unapproved, ...edited].map(() => ({ scope, ledger: "" })),
    probes: 0,
    signoffs: waitingSignoffs(manual, res.snapshot.target.root),
  });
  if (unapproved.length > 0) lines.push(`NOT APPROVED ${unapproved.join(", ")} (nothing of it ran)`);
  if (person !== null) lines.push(person);
  if (failed) lines.push(`send ${stem} back with the failures above; when it returns, advance it again`);
  return lines;
}

/** The run's lines an agent reads by default: failures and stale results, and the oracle of an approval it asked for. */
function shortRunLines(res: CheckResult): string[] {
  const lines: string[] = [];
  for (const a of res.approvals) if (a.status !== "required") lines.push(...approvalLines(a, false));
  for (const r of res.runs) if (!r.outcome.ok) lines.push(...resultLines(r, false));
  for (const r of res.runs)
    if (r.writeback === "stale")
      lines.push(`  STALE ${r.task.qid}: definition or runtime approval oracle changed; result not written`);
  return lines;
}

/** The advice after a verified leaf in one line (the review items in full: each needs its own step). */
function adviceLines(snap: NextSnapshot, a: Advice, scope: string): string[] {
  if (a.action === "dispatch") return [`LAUNCH ${a.launch.join(", ")}: ${kbz("next", { scope, launch: true })}`];
  if (a.action === "wait-or-verify") {
    const returned =
      a.awaitVerification.length > 0 ? `; returned, advance them: ${a.awaitVerification.join(", ")}` : "";
    return [`WAIT: ${a.active.length} active (${a.active.join(", ") || "none"})${returned}`];
  }
  if (a.action === "verify-root") return nextLines(snap, a).filter((l) => /^(PERSON|VERIFY-ROOT): /.test(l));
  return nextLines(snap, a).slice(1);
}

async function advance(argv: AdvanceArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  const scope = requireScope(root, argv, "advance");
  if (argv.leaf === undefined) throw new UsageError("advance needs --leaf LEAF (1.1 or leaf-1.1)");
  if ((argv.args ?? []).length > 0) throw new UsageError("advance takes no positional arguments");
  const plan = refusingPlanInput(() => scopePlan(root, scope));
  const id = leafFor(
    String(argv.leaf),
    plan.rows.map((r) => r.id),
  );
  const stem = leafStem(id);
  const row = plan.byId.get(id)!;
  const ledger = leafLedgerPath(root, scope, stem);
  const lines: string[] = [];
  let res: CheckResult | null = null;
  if (row.state !== "VERIFIED") {
    const returned = await recordReturn(root, scope, stem);
    if (returned && argv.verbose) lines.push(returned);
    const timeoutS = argv.timeout === undefined ? DEFAULT_TIMEOUT_S : parseInteger(argv.timeout, 1, 86400);
    if (timeoutS === null) throw new UsageError("--timeout must be an integer 1..86400");
    res = await runLedgerChecks({
      root,
      files: [ledger],
      reverify: true,
      approve: !!argv.approve,
      jobs: 1,
      timeoutS,
      env: process.env,
    });
    lines.push(...(argv.verbose ? compactRunLines(res, true) : shortRunLines(res)));
    if (res.exit !== 0) {
      printProblems(res.problems);
      const steps = nextSteps(res, scope, stem);
      const failed = res.runs.filter((r) => !r.outcome.ok).map((r) => r.task.qid);
      const unapproved = res.approvals.filter((a) => a.status === "required").map((a) => a.task.qid);
      const fields = {
        scope,
        leaf: stem,
        returned: returned !== null,
        unmet: res.reduction.unmetIds,
        failed,
        unapproved,
        next: steps,
      };
      if (argv.json) emit(envelope("not-verified", res.exit, fields));
      else
        for (const l of [
          ...lines,
          ...steps,
          `NOT VERIFIED ${stem}: ${res.reduction.unmet} of ${res.snapshot.gates.length} gate(s) unmet`,
        ])
          out(l);
      return res.exit === 2 ? 2 : 1;
    }
  }
  // Release before promoting: a dependent leaf may claim paths this one held.
  const { released, notes } = await releaseLeaf(root, scope, stem);
  printNotes(notes);
  const set = await setLeafState(root, scope, id, "VERIFIED", "advance");
  for (const w of set.warnings) err(w);
  const verdict = set.from === "VERIFIED" ? "already-verified" : "verified";
  const passed = res ? res.runs.filter((r) => r.outcome.ok).length : 0;
  lines.push(
    `${verdict === "verified" ? "VERIFIED" : "ALREADY VERIFIED"} ${stem}` +
      (res ? ` (${plural(passed, "gate")} passed)` : "") +
      (released.length ? "; lease released" : "") +
      (set.promoted.length ? `; READY now: ${set.promoted.join(", ")}` : ""),
  );
  const slots = argv.slots === undefined ? DEFAULT_SLOTS : parseInteger(argv.slots, 1);
  if (slots === null) throw new UsageError("--slots must be a positive integer");
  if (argv.launch)
    return launchAfter(
      root,
      scope,
      slots,
      lines,
      { scope, leaf: stem, leaseReleased: released.length > 0, promoted: set.promoted, verdict },
      argv,
    );
  const next = nextAdvice({ root, scope, slots });
  if (argv.json) {
    emit(
      envelope(verdict, 0, {
        scope,
        leaf: stem,
        leaseReleased: released.length > 0,
        promoted: set.promoted,
        next: next.advice,
      }),
    );
  } else
    for (const l of [
      ...lines,
      ...(argv.verbose ? nextLines(next.snap, next.advice) : adviceLines(next.snap, next.advice, scope)),
    ])
      out(l);
  return 0;
}

/**
 * `advance --launch`: the leaf is VERIFIED; start what may run now in the same call (ops/launch.ts,
 * as `kbz next --launch`), so a returned leaf and the next wave are one call (issue 30 trial).
 * A refused launch leaves the verification in place: its lines are printed before the launch.
 */
async function launchAfter(
  root: string,
  scope: string,
  slots: number,
  lines: string[],
  done: { verdict: string } & Record<string, unknown>,
  argv: AdvanceArgs,
): Promise<ExitCode> {
  if (!argv.json) for (const l of lines) out(l);
  const l = await launchNext({ root, scope, slots, details: true });
  for (const w of l.warnings) err(w);
  if (argv.json) {
    const { verdict, ...fields } = done;
    emit(envelope(verdict, 0, { ...fields, next: l.advice, wave: l.wave, launched: l.launched, claimed: l.claimed }));
  } else if (l.wave !== null) printLaunch(l, undefined, undefined, true);
  else for (const x of argv.verbose ? nextLines(l.snap, l.advice) : adviceLines(l.snap, l.advice, scope)) out(x);
  return 0;
}

export const verb: Verb = {
  command: "advance",
  describe: "a leaf came back: verify its gates from the root, mark VERIFIED, release, advise",
  builder: (y) =>
    y
      .option("scope", {
        type: "string",
        describe: "use .unlazy/ID (default: the only scope, or UNLAZY_SCOPE)",
        requiresArg: true,
      })
      .option("leaf", { type: "string", describe: "the returned leaf (1.1)", requiresArg: true })
      .option("approve", { type: "boolean", describe: "approve its pending CHECKs first (agent policy only)" })
      .option("slots", {
        type: "string",
        describe: `slots for the advice (default ${DEFAULT_SLOTS})`,
        requiresArg: true,
      })
      .option("timeout", { type: "string", describe: "per-check timeout, seconds (default 120)", requiresArg: true })
      .option("launch", { type: "boolean", describe: "once VERIFIED, start what may run" })
      .option("verbose", { type: "boolean", describe: "each gate's result, PATH, the whole advice" })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => advance(argv as AdvanceArgs),
};
