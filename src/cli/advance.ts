// kbz advance: one command for a returned leaf. Records the native return (wave return), runs
// the leaf's approved gates from the repository root (as kbz check --reverify), and when all
// pass marks the row VERIFIED, releases the leaf's lease, promotes the rows it unblocked and
// prints the next advice. Every step first looks whether it is already done, so a retry after a
// crash or a refusal picks up where the last run stopped.
import { parseInteger } from "../core/text/integer.ts";
import { UsageError } from "../core/errors.ts";
import { DEFAULT_TIMEOUT_S, runLedgerChecks, type CheckResult } from "../ops/check.ts";
import { commitWave, dispatchState, leafLedgerPath, releaseLeaf, scopePlan } from "../ops/dispatch.ts";
import { ScheduleInputError } from "../core/plan/errors.ts";
import type { ExitCode, Verb } from "./index.ts";
import { out, printProblems, err } from "./output.ts";
import { emit, envelope } from "./envelope.ts";
import { leafFor, requireScope, rootFor } from "./context.ts";
import { compactRunLines } from "./render.ts";
import { DEFAULT_SLOTS, nextAdvice } from "../ops/next.ts";
import { nextLines } from "./nextText.ts";
import { setLeafState } from "../ops/plan.ts";
import { printNotes, RefusedError, type PipelineArgs } from "./pipeline.ts";

interface AdvanceArgs extends PipelineArgs {
  leaf?: string;
  approve?: boolean;
  slots?: string;
  timeout?: string;
  verbose?: boolean;
}

const HELP = `Steps, each skipped when already done (so a retry is safe):
  1. wave return for the wave that started the leaf (refused while that wave is not sealed)
  2. the leaf ledger's runnable gates, re-run from the repository root with their approvals
     (unapproved CHECKs are printed, not run: have the user review them, then add --approve)
  3. when the ledger is ALL MET: release the leaf's lease, mark it VERIFIED in PLAN.md and
     promote the WAITING rows whose needs are now all VERIFIED
  4. print the next advice (as kbz next)
Manual gates are signed by a person with kbz sign before the leaf can be VERIFIED.
Exit codes: 0 verified (or already); 1 not verified yet (a gate failed, needs approval or a
signature); 2 usage, a refused wave step or an invalid scope (nothing changes).`;

/** Record the native return in the wave that started this leaf; null when it was already recorded. */
async function recordReturn(root: string, scope: string, stem: string): Promise<string | null> {
  const state = dispatchState(root, scope);
  const waves = [...state.waves.values()].filter((w) => w.leaves.includes(stem));
  if (waves.some((w) => w.returned.has(stem) && !waves.some((o) => o !== w && o.started.has(stem) && !o.returned.has(stem)))) return null;
  const open = waves.find((w) => w.started.has(stem) && !w.returned.has(stem) && w.state !== "abandoned");
  if (!open) {
    throw new RefusedError(`${stem} was not started in any wave; record its launch first (kbz wave open/start/seal --scope ${scope} …)`);
  }
  const t = await commitWave(root, scope, { kind: "return", wave: open.id, leaf: stem });
  printNotes(t.notes);
  return t.line;
}

function nextSteps(res: CheckResult, scope: string, stem: string, ledger: string): string[] {
  const lines: string[] = [];
  const needApproval = res.approvals.some((a) => a.status === "required");
  const failed = res.runs.some((r) => !r.outcome.ok);
  const manual = res.snapshot.gates.filter((g) => g.state !== "met" && g.state !== "abandoned" && !g.gate.check);
  if (needApproval) lines.push(`  ask the user to review the CHECKs above; once they approve: kbz advance --scope ${scope} --leaf ${stem} --approve`);
  for (const g of manual) lines.push(`  manual gate ${g.qid}: a person signs it with kbz sign ${ledger} ${g.gate.id} --evidence "<what they checked>"`);
  if (failed) lines.push(`  a gate failed: send the leaf back to its agent (or fix it), then run kbz advance --scope ${scope} --leaf ${stem} again`);
  return lines;
}

async function advance(argv: AdvanceArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  const scope = requireScope(root, argv, "advance");
  if (argv.leaf === undefined) throw new UsageError("advance needs --leaf LEAF (1.1 or leaf-1.1)");
  if ((argv.args ?? []).length > 0) throw new UsageError("advance takes no positional arguments");
  let plan;
  try {
    plan = scopePlan(root, scope);
  } catch (e) {
    if (e instanceof ScheduleInputError) throw new RefusedError(e.located());
    throw e;
  }
  const id = leafFor(String(argv.leaf), plan.rows.map((r) => r.id));
  const stem = `leaf-${id}`;
  const row = plan.byId.get(id)!;
  const ledger = leafLedgerPath(root, scope, stem);
  const lines: string[] = [];
  let res: CheckResult | null = null;
  if (row.state !== "VERIFIED") {
    const returned = await recordReturn(root, scope, stem);
    if (returned) lines.push(returned);
    const timeoutS = argv.timeout === undefined ? DEFAULT_TIMEOUT_S : parseInteger(argv.timeout, 1, 86400);
    if (timeoutS === null) throw new UsageError("--timeout must be an integer 1..86400");
    res = await runLedgerChecks({ root, files: [ledger], reverify: true, approve: !!argv.approve, jobs: 1, timeoutS, env: process.env });
    lines.push(...compactRunLines(res, !!argv.verbose));
    if (res.exit !== 0) {
      printProblems(res.problems);
      const steps = nextSteps(res, scope, stem, ledger);
      if (argv.json) emit(envelope("not-verified", res.exit, { scope, leaf: stem, returned: returned !== null, unmet: res.reduction.unmetIds, next: steps.map((s) => s.trim()) }));
      else for (const l of [...lines, ...steps, `NOT VERIFIED ${stem}: ${res.reduction.unmet} gate(s) unmet`]) out(l);
      return res.exit === 2 ? 2 : 1;
    }
  }
  // Release before promoting: a dependent leaf may claim paths this one held.
  const { released, notes } = await releaseLeaf(root, scope, stem);
  printNotes(notes);
  const set = await setLeafState(root, scope, id, "VERIFIED", "advance");
  for (const w of set.warnings) err(w);
  const verdict = set.from === "VERIFIED" ? "already-verified" : "verified";
  lines.push(
    `${verdict === "verified" ? "VERIFIED" : "ALREADY VERIFIED"} ${stem}` +
      (released.length ? "; lease released" : "") +
      (set.promoted.length ? `; READY now: ${set.promoted.join(", ")}` : ""),
  );
  const slots = argv.slots === undefined ? DEFAULT_SLOTS : parseInteger(argv.slots, 1);
  if (slots === null) throw new UsageError("--slots must be a positive integer");
  const next = nextAdvice({ root, scope, slots });
  if (argv.json) {
    emit(envelope(verdict, 0, { scope, leaf: stem, leaseReleased: released.length > 0, promoted: set.promoted, next: next.advice }));
  } else for (const l of [...lines, ...nextLines(next.snap, next.advice)]) out(l);
  return 0;
}

export const verb: Verb = {
  command: "advance",
  describe: "a leaf came back: record its return, verify its gates from the root, mark VERIFIED, release, promote, advise",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "use .unlazy/ID (default: the only scope, or UNLAZY_SCOPE)", requiresArg: true })
      .option("leaf", { type: "string", describe: "the returned leaf (1.1 or leaf-1.1)", requiresArg: true })
      .option("approve", { type: "boolean", describe: "approve the leaf's pending CHECKs (after the user reviewed them), then run them" })
      .option("slots", { type: "string", describe: `slots for the advice printed at the end (default ${DEFAULT_SLOTS})`, requiresArg: true })
      .option("timeout", { type: "string", describe: "per-check timeout, integer seconds 1..86400 (default 120)", requiresArg: true })
      .option("verbose", { type: "boolean", describe: "print each gate's exit, output digest and PATH in full" })
      .option("root", { type: "string", describe: "repository root (default: the nearest folder above holding .unlazy/, GATES.md or gates/, else the git top level)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => advance(argv as AdvanceArgs),
};
