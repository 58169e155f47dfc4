// kbz check: run unmet runnable gates that hold an approval and write definition-bound
// evidence back (docs/formats.md#check-run). A thin printer over `runChecks` and the status report.
import * as path from "node:path";
import { parseInteger } from "../core/text/integer.ts";
import { UsageError } from "../core/errors.ts";
import { checkContainment, checkGates, DEFAULT_TIMEOUT_S, MAX_CHECK_DEPTH, type ApprovalItem, type CheckResult, type CheckTask } from "../ops/check.ts";
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
  if (n === null) throw new UsageError(`${name} must be an integer ${min}..${max} (got ${JSON.stringify(String(raw))})`);
  return n;
}

function validate(argv: CheckArgs): void {
  if (argv.status) {
    for (const other of ["reverify", "approve", "sandbox", "probe"] as const) if (argv[other]) throw new UsageError(`--status cannot be combined with --${other}`);
    for (const other of ["timeout", "jobs", "shell", "cwd"] as const) {
      if (argv[other] !== undefined) throw new UsageError(`--${other} cannot be combined with --status`);
    }
  }
  for (const name of ["shell", "cwd"] as const) if (argv[name] === "") throw new UsageError(`--${name} needs a non-empty value`);
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
      if (g.file === l.display && g.state !== "met" && g.state !== "abandoned") out(`  UNMET ${g.qid} (${g.state === "failed" ? "unchecked" : g.reason}): ${g.title}`);
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

function printApproval(item: ApprovalItem, verbose: boolean, showPath: (value: string) => void): void {
  const lines = approvalLines(item, verbose, true);
  if (lines.length > 0) showPath(item.task.oracle.path);
  for (const line of lines) out(line);
  if (item.problem) err(`kbz: ${item.problem}`);
}

function printRunResult(res: CheckResult, verbose: boolean): void {
  for (const r of res.runs) for (const line of resultLines(r, verbose)) out(line);
  for (const r of res.runs) {
    if (r.writeback === "stale") out(`  STALE ${r.task.qid}: definition or runtime approval oracle changed; result not written`);
    if (r.writeError) err(`kbz: ${r.writeError}`);
  }
  if (verbose) for (const l of res.snapshot.ledgers) out(`${basename(l.file)}: ${plural(l.ledger?.gates.length ?? 0, "gate")}`);
  printProblems(res.problems);
  if (res.infraFailures > 0) err(`kbz: infrastructure failure prevented ${res.infraFailures} approval(s)`);
  for (const line of verdictLines(res.reduction, res.note, res.snapshot.target.scope)) out(line);
}

function runJson(res: CheckResult) {
  const { report } = statusReport(res.snapshot, { extras: res.extras });
  const passed = res.runs.filter((r) => r.outcome.ok).length;
  const errors = [
    ...problemEntries(res.problems),
    ...res.runs.flatMap((r) => (r.writeError ? [{ file: r.task.file, line: r.task.gate.line, message: r.writeError, hint: "the gate's result was not written; fix the file, then run kbz check again" }] : [])),
    ...(res.infraFailures > 0 ? [{ file: null, line: null, message: `infrastructure failure prevented ${res.infraFailures} approval(s)`, hint: "see the approvals' problem fields; check UNLAZY_APPROVAL_DIR is writable" }] : []),
  ];
  return envelope(res.exit === 2 ? INVALID : res.reduction.verdict, res.exit, {
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
  }, errors);
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
async function runStale(argv: CheckArgs, root: string, files: string[], jobs: number, timeoutS: number, asJson: boolean): Promise<ExitCode> {
  if (files.length > 0) throw usage("--stale refreshes a scope, not ledger files", "kbz check --scope S --stale");
  for (const other of ["reverify", "probe", "status"] as const) if (argv[other]) throw usage(`--stale cannot be combined with --${other}`);
  if (argv["approve-sig"] !== undefined) throw usage("--stale cannot be combined with --approve=<sig>", "approve first (kbz approve --scope S), then kbz check --scope S --stale");
  const scope = requestedScope(argv);
  if (!scope) throw usage("--stale needs a scope", "kbz check --scope S --stale (with one scope, --scope may be left out)");
  const r = await refreshStale({ root, scope, approve: !!argv.approve, sandbox: !!argv.sandbox, jobs, timeoutS, shell: argv.shell, cwd: argv.cwd, env: process.env });
  const notAccepted = r.receipts.filter((x) => x.status !== "ACCEPTED" && x.status !== "CURRENT_EVIDENCE");
  const approvals = (r.check?.approvals ?? []).filter((a) => a.status === "required").map((a) => a.task.qid);
  const verdict = r.exit === 0 ? "refreshed" : r.exit === 1 ? "stale" : "invalid";
  if (asJson) return emit(envelope(verdict, r.exit, { scope, gates: r.gates, receipts: r.receipts.map((x) => ({ ledger: x.ledger, status: x.status })), stillStale: r.stillStale, approvalRequired: approvals }));
  if (r.gates === 0 && r.receipts.length === 0) {
    out(`nothing stale in scope ${scope}`);
    return 0;
  }
  for (const qid of approvals) out(`  APPROVAL REQUIRED ${qid}: a person approves it first (kbz approve --scope ${scope})`);
  for (const qid of r.stillStale) out(`  UNMET ${qid}`);
  for (const x of notAccepted) out(`  ${x.status} ${x.ledger}${x.status === "REVIEW_OR_REPAIR" ? `: ${x.reason} (kbz verify explain ${x.ledger})` : ""}`);
  const what = [plural(r.gates, "gate"), plural(r.receipts.length, "receipt")].join(", ");
  out(r.exit === 0 ? `refreshed ${what}` : `STALE LEFT: ${plural(r.stillStale.length, "gate")}, ${plural(notAccepted.length, "receipt")} (of ${what})`);
  return r.exit;
}

export async function handleCheck(argv: CheckArgs): Promise<ExitCode> {
  validate(argv);
  const asJson = !!argv.json;
  if (argv.status) return printCheckStatus(snapshotFor(argv), asJson);
  const jobs = integerIn("--jobs", argv.jobs, 1, 64, 1);
  const timeoutS = integerIn("--timeout", argv.timeout, 1, 86400, DEFAULT_TIMEOUT_S);
  const files = ledgerFiles(argv);
  if (files.length > 0 && argv.scope !== undefined) throw usage("explicit ledger files cannot be combined with --scope", "pass either ledger files or --scope ID");
  const root = rootFor(argv);
  const scope = files.length > 0 ? null : requestedScope(argv);
  if (argv.stale) return runStale(argv, root, files, jobs, timeoutS, asJson);
  if (argv.probe) {
    if (argv["approve-sig"] !== undefined) throw usage("--approve=<sig> approves a pending CHECK, not a probe", "run kbz check --probe --approve");
    if (argv.reverify) throw usage("--probe cannot be combined with --reverify", "run kbz check --reverify first, then kbz check --probe");
    return runProbeVerb({ root, files, scope, approve: !!argv.approve, timeoutS, shell: argv.shell, cwd: argv.cwd, asJson });
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
        approval: (item) => (asJson ? item.problem && err(`kbz: ${item.problem}`) : printApproval(item, verbose, showPath)),
        willRun: (tasks) => {
          const warning = tasks.length > 0 ? checkContainment().warning : null;
          if (warning) err(warning);
          if (asJson) return;
          if (!verbose) {
            if (tasks.length > 0) showPath(tasks[0]!.oracle.path);
            return;
          }
          for (const t of tasks) out(`  RUN  ${t.qid} shell=${t.oracle.shell} cwd=${cwdShown(t)} PATH=${pathFacts(t.oracle.path).transcript}`);
        },
        started: (t) => progress?.start(t.qid),
        finished: (t) => progress?.finish(t.qid),
      },
    });
    progress?.close();
    for (const warning of logWarnings) err(warning);
    if (asJson) emit(runJson(res));
    else printRunResult(res, verbose);
    return res.exit;
  } finally {
    progress?.close();
  }
}

export const verb: Verb = {
  command: "check [ledger..]",
  describe: "run unmet runnable gates that hold an approval and write evidence back",
  builder: (y) =>
    targetOptions(y)
      .option("status", { type: "boolean", describe: "report only; never execute, approve or write" })
      .option("reverify", { type: "boolean", describe: "re-run every runnable gate and demote failures" })
      .option("stale", { type: "boolean", describe: "re-run every stale gate and stale receipt of a scope, once each (a cascade in one call)" })
      .option("approve", { type: "boolean", describe: "approve each exact pending oracle (printed in full), then run it; --approve=<sig> approves only the oracle kbz check printed with that signature, and refuses if it changed" })
      .option("approve-sig", { type: "string", hidden: true, requiresArg: true })
      .option("verbose", { type: "boolean", describe: "unlazy's full transcript: RUN lines, PATH in full, each pass's exit and output digest" })
      .option("probe", {
        type: "boolean",
        describe: "re-run each passed gate's CHECK in the sandbox with its deliverable hidden; VACUOUS if it still passes (writes no evidence)",
      })
      .option("sandbox", { type: "boolean", describe: "run each CHECK under bubblewrap: no network, read-only disk but the repo, private /tmp, empty $HOME" })
      .option("jobs", { type: "string", describe: "rolling concurrency, integer 1..64 (default 1)", requiresArg: true })
      .option("timeout", { type: "string", describe: "per-check timeout, integer seconds 1..86400 (default 120)", requiresArg: true })
      .option("shell", { type: "string", describe: "command shell (UNLAZY_SHELL, then platform default)", requiresArg: true })
      .option("cwd", { type: "string", describe: "CHECK directory for every gate, relative to --root (replaces the rule below)", requiresArg: true })
      .epilogue(
        "Where a CHECK runs: a ledger inside .unlazy/<scope>/ runs from the repository root (the folder holding " +
          ".unlazy), however it is named; another explicit ledger runs from its own folder; discovered ledgers run " +
          "from the root. --cwd replaces that base; a gate's CWD: resolves against it.\n\n" +
          "CHECK execution requires prior approval keyed to the exact CHECK, EXPECT, resolved CWD, resolved shell, " +
          "timeout, output/regex limits, platform and PATH, and to its oracle: the digests of the files the CHECK runs " +
          "(node X, bash X, python X, ./X, …; for npm test / npm run X / pnpm X / yarn X / bun run X the package.json " +
          "script and the files it names), of the files a gate's ORACLE: globs match, and of the values of its ENV: " +
          "names. A change to any of them un-meets the gate until a person approves again (kbz approvals explain " +
          "LEDGER GATE names what changed). Each pending oracle is printed with a signature; --approve=<sig> approves " +
          "exactly that one. Approvals live outside the repository under " +
          "~/.unlazy/approved (UNLAZY_APPROVAL_DIR overrides).\n\n" +
          "A CHECK's environment is kbz's: PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, COLORTERM, " +
          "NO_COLOR, TMPDIR, TZ, CI, kbz's own settings, and the names in the gate's ENV: line. Nothing else is " +
          "inherited (NODE_OPTIONS, LD_PRELOAD, PYTHONPATH, BASH_ENV, …).\n\n" +
          `containment: ${checkContainment().describe}. Every process a CHECK starts ends with it ` +
          "(KBZ_CONTAINMENT=pidns|pgroup forces a weaker level). A nested kbz check refuses a gate already " +
          `being checked above it (a cycle) and nesting deeper than ${MAX_CHECK_DEPTH}.\n\n` +
          "--sandbox (or `SANDBOX: on` / `SANDBOX: writable <path>, ...` before a ledger's first gate, or " +
          '{"sandbox": true, "writable": [...]} in .kbz/settings.json) runs CHECKs under bubblewrap; the ' +
          "sandbox profile is part of the approved oracle. Without bwrap it is an error, never an unsandboxed run.\n\n" +
          "--probe hides a passed gate's deliverable (its INPUTS, else the ledger's OWNS, else the files differing from git HEAD: " +
          "files emptied, directories empty) and re-runs its CHECK in the sandbox; a pass is VACUOUS (a warning in status and " +
          "lint, a line in the Stop hook). The probe has its own approval (--probe --approve) and never writes evidence.\n\n" +
          "exit codes: 0 all met; 1 unmet or handoff; 2 usage/parse/infrastructure.",
      ),
  handler: (argv) => handleCheck(argv as CheckArgs),
};
