// kbz check: run unmet runnable gates that hold an approval and write definition-bound
// evidence back (docs/formats.md#check-run). A thin printer over `runChecks` and the status report.
import * as path from "node:path";
import { attached, kbz, placeholder as ph } from "../core/text/command.ts";
import { parseInteger } from "../core/text/integer.ts";
import { UsageError } from "../core/errors.ts";
import {
  checkContainment,
  checkGates,
  DEFAULT_TIMEOUT_S,
  type ApprovalItem,
  type CheckResult,
  type CheckTask,
} from "../ops/check.ts";
import { cwdShown, pathFacts, shortSignature } from "../core/run/show.ts";
import { statusReport } from "../core/report.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { verdictLines } from "../core/ledger/state.ts";
import type { Verb } from "./index.ts";
import { err, out, printProblems, printWarnings } from "./output.ts";
import { targetOptions } from "./options.ts";
import { Progress } from "./progress.ts";
import { ledgerFiles, requestedScope, rootFor, snapshotFor, usage } from "./context.ts";
import { emit, envelope, INVALID, problemEntries, type ExitCode } from "./envelope.ts";
import { approvalLines, pathSummaryLine, resultLines } from "./render.ts";
import { runProbeVerb } from "./probe.ts";
import { personLine } from "../core/text/person.ts";
import { relativeTo, scopeOf, waitingSignoffs } from "./person.ts";
import { plural } from "../core/text/plural.ts";
import { refreshStale } from "../ops/refresh.ts";

interface CheckArgs {
  ledger?: string[];
  "--"?: string[];
  status?: boolean;
  reverify?: boolean;
  stale?: boolean;
  approve?: boolean;
  "approve-sig"?: string;
  sandbox?: boolean;
  probe?: boolean;
  jobs?: string;
  timeout?: string;
  shell?: string;
  cwd?: string;
  scope?: string;
  root?: string;
  json?: boolean;
  verbose?: boolean;
}

function integerIn(name: string, raw: string | undefined, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = parseInteger(raw, min, max);
  if (n === null)
    throw new UsageError(`${name} must be an integer ${min}..${max} (got ${JSON.stringify(String(raw))})`);
  return n;
}

function validate(argv: CheckArgs): void {
  if (argv.status) {
    for (const other of ["reverify", "approve", "sandbox", "probe"] as const)
      if (argv[other]) throw new UsageError(`--status cannot be combined with --${other}`);
    for (const other of ["timeout", "jobs", "shell", "cwd"] as const) {
      if (argv[other] !== undefined) throw new UsageError(`--${other} cannot be combined with --status`);
    }
  }
  for (const name of ["shell", "cwd"] as const)
    if (argv[name] === "") throw new UsageError(`--${name} needs a non-empty value`);
}

const basename = (file: string) => path.basename(file);

/** `  UNMET` lines and the per-ledger count, ledger by ledger, then the verdict (goldendocs/formats.md#layout B). */
function printCheckStatus(snap: Snapshot, asJson: boolean): ExitCode {
  // snapshotFor has already refused an invalid dispatch state (exit 2).
  const { report, reduction } = statusReport(snap);
  printWarnings(snap.ledgers.flatMap((l) => l.warnings));
  if (asJson) return emit(envelope(report.verdict, report.exit, { ...report }));
  for (const l of snap.ledgers) {
    for (const g of report.gates) {
      // unlazy's layout B has no FAILED line: a failed gate keeps its `unchecked` reason here (kbz status says FAILED).
      if (g.file === l.display && g.state !== "met" && g.state !== "abandoned")
        out(`  UNMET ${g.qid} (${g.state === "failed" ? "unchecked" : g.reason}): ${g.title}`);
    }
    out(`${basename(l.file)}: ${plural(l.ledger?.gates.length ?? 0, "gate")}`);
  }
  for (const item of snap.dispatch?.blocking ?? []) out(`  UNMET ${item}`);
  for (const item of snap.removed ?? []) out(`  UNMET ${item}`);
  for (const line of verdictLines(reduction, "", snap.target.scope)) out(line);
  return report.exit;
}

/** Prints the PATH summary the first time something needs it (short form only). */
function pathOnce(verbose: boolean): (value: string) => void {
  let shown = verbose;
  return (value) => {
    if (!shown) out(pathSummaryLine(value));
    shown = true;
  };
}

function printApproval(
  item: ApprovalItem,
  verbose: boolean,
  showPath: (value: string) => void,
  scope: string | null,
): void {
  const lines = approvalLines(item, verbose, true, scope);
  if (lines.length > 1) showPath(item.task.oracle.path);
  for (const line of lines) out(line);
  if (item.problem) err(`kbz: ${item.problem}`);
}

/** Failures and stale results, then the verdict; each pass too (two lines) with --verbose. */
function printRunResult(res: CheckResult, verbose: boolean): void {
  for (const r of res.runs) if (verbose || !r.outcome.ok) for (const line of resultLines(r, verbose)) out(line);
  for (const r of res.runs) {
    if (r.writeback === "stale")
      out(`  STALE ${r.task.qid}: definition or runtime approval oracle changed; result not written`);
    if (r.writeError) err(`kbz: ${r.writeError}`);
  }
  if (verbose)
    for (const l of res.snapshot.ledgers) out(`${basename(l.file)}: ${plural(l.ledger?.gates.length ?? 0, "gate")}`);
  printProblems(res.problems);
  if (res.infraFailures > 0) err(`kbz: infrastructure failure prevented ${res.infraFailures} approval(s)`);
  printPassedButUnmet(res);
  for (const line of verdictLines(res.reduction, res.note, res.snapshot.target.scope)) out(line);
  const root = res.snapshot.target.root;
  const person = personLine({
    approvals: res.approvals
      // An edited oracle judged against the approved one waits for the person's review too.
      .filter((a) => a.status === "required" || a.status === "judged")
      .map((a) => ({ scope: scopeOf(a.task.file, root), ledger: relativeTo(root, a.task.file) })),
    probes: 0,
    signoffs: waitingSignoffs(res.snapshot.gates, root),
  });
  // --verbose is unlazy's transcript (its golden form): no PERSON line there.
  if (person !== null && !verbose) out(person);
}

/** A gate that passed in this run and is still unmet for a reason beyond its ledger text (VACUOUS, UNATTESTED, STALE by INPUTS) says why. */
function printPassedButUnmet(res: CheckResult): void {
  const passed = new Set(res.runs.filter((r) => r.outcome.ok).map((r) => r.task.qid));
  for (const g of res.snapshot.gates)
    if (passed.has(g.qid) && g.state !== "met" && g.reason) out(`  UNMET ${g.qid}: ${g.reason}`);
}

function runJson(res: CheckResult) {
  const { report } = statusReport(res.snapshot, { extras: res.extras });
  const passed = res.runs.filter((r) => r.outcome.ok).length;
  const errors = [
    ...problemEntries(res.problems),
    ...res.runs.flatMap((r) =>
      r.writeError
        ? [
            {
              file: r.task.file,
              line: r.task.gate.line,
              message: r.writeError,
              hint: `the gate's result was not written; fix the file, then run ${kbz("check")} again`,
            },
          ]
        : [],
    ),
    ...(res.infraFailures > 0
      ? [
          {
            file: null,
            line: null,
            message: `infrastructure failure prevented ${res.infraFailures} approval(s)`,
            hint: "see the approvals' problem fields; check UNLAZY_APPROVAL_DIR is writable",
          },
        ]
      : []),
  ];
  return envelope(
    res.exit === 2 ? INVALID : res.reduction.verdict,
    res.exit,
    {
      root: report.root,
      mode: report.mode,
      scope: report.scope,
      counts: {
        ...report.counts,
        met: res.reduction.met,
        unmet: res.reduction.unmet,
        ran: res.runs.length,
        passed,
        failed: res.runs.length - passed,
        stale: res.runs.filter((r) => r.writeback === "stale").length,
        notRun: res.approvals.filter((a) => a.status === "required" || a.status === "failed").length,
      },
      gates: report.gates,
      runs: res.runs.map((r) => ({
        qid: r.task.qid,
        file: r.task.file,
        gate: r.task.gate.id,
        ok: r.outcome.ok,
        exit: r.outcome.exitCode,
        signal: r.outcome.signal,
        matched: r.outcome.matched,
        error: r.outcome.error,
        outputSha256: r.outcome.outputSha256,
        bytes: r.outcome.bytes,
        durationMs: Math.round(r.outcome.durationMs),
        writeback: r.writeback,
        writeError: r.writeError,
      })),
      approvals: {
        required: res.approvals
          .filter((a) => a.status !== "approved")
          .map((a) => ({ qid: a.task.qid, ...oracleView(a.task), status: a.status, problem: a.problem })),
        recorded: res.approvals.filter((a) => a.status === "recorded").map((a) => a.record),
      },
      unmet: res.reduction.unmetIds,
      abandoned: res.reduction.abandonedIds,
      extras: res.extras,
      problems: res.problems,
    },
    errors,
  );
}

function oracleView(t: CheckTask) {
  const given = t.cwd === t.oracle.cwd ? {} : { cwdAsWritten: t.cwd };
  const bound = t.oracle.bound;
  return {
    check: t.oracle.check,
    expect: t.oracle.expect,
    cwd: t.oracle.cwd,
    ...given,
    shell: t.oracle.shell,
    path: t.oracle.path,
    signature: shortSignature(t.signature),
    oracleFiles: Object.keys(bound?.files ?? {}),
    env: Object.keys(bound?.env ?? {}),
  };
}

/** `kbz check --stale`: every stale gate and receipt of a scope, re-run in one call (ops/refresh.ts). */
async function runStale(
  argv: CheckArgs,
  root: string,
  files: string[],
  jobs: number,
  timeoutS: number,
  asJson: boolean,
): Promise<ExitCode> {
  if (files.length > 0)
    throw usage("--stale refreshes a scope, not ledger files", kbz("check", { scope: ph("S"), stale: true }));
  for (const other of ["reverify", "probe", "status"] as const)
    if (argv[other]) throw usage(`--stale cannot be combined with --${other}`);
  if (argv["approve-sig"] !== undefined)
    throw usage(
      "--stale cannot be combined with --approve=<sig>",
      `approve first (${kbz("approve", { scope: ph("S") })}), then ${kbz("check", { scope: ph("S"), stale: true })}`,
    );
  const scope = requestedScope(argv);
  if (!scope)
    throw usage(
      "--stale needs a scope",
      `${kbz("check", { scope: ph("S"), stale: true })} (with one scope, --scope may be left out)`,
    );
  const r = await refreshStale({
    root,
    scope,
    approve: !!argv.approve,
    sandbox: !!argv.sandbox,
    jobs,
    timeoutS,
    shell: argv.shell,
    cwd: argv.cwd,
    env: process.env,
  });
  const notAccepted = r.receipts.filter((x) => x.status !== "ACCEPTED" && x.status !== "CURRENT_EVIDENCE");
  const approvals = (r.check?.approvals ?? []).filter((a) => a.status === "required").map((a) => a.task.qid);
  const verdict = r.exit === 0 ? "refreshed" : r.exit === 1 ? "stale" : "invalid";
  if (asJson)
    return emit(
      envelope(verdict, r.exit, {
        scope,
        gates: r.gates,
        receipts: r.receipts.map((x) => ({ ledger: x.ledger, status: x.status })),
        stillStale: r.stillStale,
        approvalRequired: approvals,
      }),
    );
  if (r.gates === 0 && r.receipts.length === 0) {
    out(`nothing stale in scope ${scope}`);
    return 0;
  }
  for (const qid of approvals)
    out(`  APPROVAL REQUIRED ${qid}: a person approves it first (${kbz("approve", { scope })})`);
  for (const qid of r.stillStale) out(`  UNMET ${qid}`);
  for (const x of notAccepted)
    out(
      `  ${x.status} ${x.ledger}${x.status === "REVIEW_OR_REPAIR" ? `: ${x.reason} (${kbz("verify explain", x.ledger)})` : ""}`,
    );
  const what = [plural(r.gates, "gate"), plural(r.receipts.length, "receipt")].join(", ");
  out(
    r.exit === 0
      ? `refreshed ${what}`
      : `STALE LEFT: ${plural(r.stillStale.length, "gate")}, ${plural(notAccepted.length, "receipt")} (of ${what})`,
  );
  return r.exit;
}

export async function handleCheck(argv: CheckArgs): Promise<ExitCode> {
  validate(argv);
  const asJson = !!argv.json;
  if (argv.status) return printCheckStatus(snapshotFor(argv), asJson);
  const jobs = integerIn("--jobs", argv.jobs, 1, 64, 1);
  const timeoutS = integerIn("--timeout", argv.timeout, 1, 86400, DEFAULT_TIMEOUT_S);
  const files = ledgerFiles(argv);
  if (files.length > 0 && argv.scope !== undefined)
    throw usage("explicit ledger files cannot be combined with --scope", "pass either ledger files or --scope ID");
  const root = rootFor(argv);
  const scope = files.length > 0 ? null : requestedScope(argv);
  if (argv.stale) return runStale(argv, root, files, jobs, timeoutS, asJson);
  if (argv.probe) {
    if (argv["approve-sig"] !== undefined)
      throw usage(
        "--approve=<sig> approves a pending CHECK, not a probe",
        `run ${kbz("check", { probe: true, approve: true })}`,
      );
    if (argv.reverify)
      throw usage(
        "--probe cannot be combined with --reverify",
        `run ${kbz("check", { reverify: true })} first, then ${kbz("check", { probe: true })}`,
      );
    return runProbeVerb({
      root,
      files,
      scope,
      approve: !!argv.approve,
      timeoutS,
      shell: argv.shell,
      cwd: argv.cwd,
      asJson,
    });
  }
  const progress = Progress.forStdout(!asJson);
  const verbose = !!argv.verbose;
  const showPath = pathOnce(verbose);
  try {
    const { result: res, logWarnings } = await checkGates({
      root,
      files,
      scope,
      reverify: !!argv.reverify,
      approve: !!argv.approve,
      ...(argv["approve-sig"] !== undefined ? { approveOnly: argv["approve-sig"] } : {}),
      sandbox: !!argv.sandbox,
      jobs,
      timeoutS,
      shell: argv.shell,
      cwd: argv.cwd,
      env: process.env,
      observer: {
        loaded: (snap) => printWarnings(snap.ledgers.flatMap((l) => l.warnings)),
        approval: (item) => {
          if (asJson) return item.problem && err(`kbz: ${item.problem}`);
          printApproval(item, verbose, showPath, scope);
        },
        willRun: (tasks) => {
          const warning = tasks.length > 0 ? checkContainment().warning : null;
          if (warning) err(warning);
          if (asJson) return;
          if (!verbose) return; // the PATH summary goes with an approval block, never alone
          for (const t of tasks)
            out(
              `  RUN  ${t.qid} shell=${t.oracle.shell} cwd=${cwdShown(t)} PATH=${pathFacts(t.oracle.path).transcript}`,
            );
        },
        started: (t) => progress?.start(t.qid),
        finished: (t) => progress?.finish(t.qid),
      },
    });
    progress?.close();
    for (const warning of logWarnings) err(warning);
    if (asJson) emit(runJson(res));
    else {
      printRunResult(res, verbose);
    }
    return res.exit;
  } finally {
    progress?.close();
  }
}

export const verb: Verb = {
  command: "check [ledger..]",
  describe: "run the approved gates that are not met; write evidence",
  builder: (y) =>
    targetOptions(y)
      .option("status", { type: "boolean", describe: "report only" })
      .option("reverify", { type: "boolean", describe: "re-run every runnable gate" })
      .option("stale", { type: "boolean", describe: "re-run a scope's stale gates and receipts" })
      .option("approve", { type: "boolean", describe: "approve the oracles shown (=SIG: one)" })
      .option("approve-sig", { type: "string", hidden: true, requiresArg: true })
      .option("verbose", { type: "boolean", describe: "each pass, RUN lines, PATH" })
      .option("probe", { type: "boolean", describe: "re-run passes, deliverable hidden" })
      .option("sandbox", { type: "boolean", describe: "under bubblewrap" })
      .option("jobs", { type: "string", describe: "1..64 (default 1)", requiresArg: true })
      .option("timeout", { type: "string", describe: "seconds (default 120)", requiresArg: true })
      .option("shell", { type: "string", describe: "default: UNLAZY_SHELL", requiresArg: true })
      .option("cwd", { type: "string", describe: "CHECK folder, relative to --root", requiresArg: true })
      .example(kbz("check", { reverify: true }), "re-run every runnable gate (before you report)")
      .example(kbz("check", { approve: attached(ph("SIG")) }), "a person approves the oracle shown with SIG")
      .epilogue(
        `Runs only what a person approved. containment: ${checkContainment().describe}. More: docs/checks.md.\nExit: 0 all met; 1 unmet or handoff; 2 usage/parse/infrastructure.`,
      ),
  handler: (argv) => handleCheck(argv as CheckArgs),
};
