// `runChecks`: the whole checker as one in-process call (docs/formats.md#check-run):
// approvals, the rolling run, ordered writeback, re-load and the reduction. The CLI
// prints its result; receipts call it with the same approvals and evidence rules.
import * as fs from "node:fs";
import * as path from "node:path";
import { FileProblemsError, UsageError, type FileProblem } from "../core/errors.ts";
import { automaticEvidence } from "../core/ledger/evidence.ts";
import type { Reduction } from "../core/ledger/state.ts";
import { statusReport } from "../core/report.ts";
import { dispatchProblems, type Snapshot } from "../core/snapshot.ts";
import { loadSnapshot, snapshotForRequest, type TargetRequest } from "./snapshot.ts";
import {
  ApprovalStore,
  ApprovalStoreError,
  approvalDirFor,
  assertStoreOutside,
  recordName,
  type StoredApproval,
} from "../io/run/approval.ts";
import { nearMissLines } from "../core/run/differ.ts";
import { executeCheck, type ExecuteRequest, type RunOutcome } from "../io/run/execute.ts";
import {
  executeRequestFor,
  newOracleFiles,
  oracleChangedOutcome,
  rememberObserved,
  runObserved,
} from "../io/check/observe.ts";
import { oracleSignature } from "../core/run/oracle.ts";
import { shortSignature } from "../core/run/show.ts";
export { shortSignature };
import { pathFacts, requestedShell, resolveShell, type Env } from "../io/run/shell.ts";
import { saveLastRun } from "../io/check/lastrun.ts";
import { failureText, recordRuns } from "../io/check/failures.ts";
import type { FailureStored } from "../core/trace.ts";
import { readRepoSettings } from "../io/check/settings.ts";
import { digestInputs, recordInputs, type InputRecord } from "../io/inputs/records.ts";
import { expandInputs, inputsProblem } from "../io/inputs/expand.ts";
import { isInside } from "../core/workspace/inside.ts";
import { bindingSignature, OracleError } from "../io/oracle/binding.ts";
import { recordOraclePasses, type OraclePassRecord } from "../io/oracle/records.ts";
import { identitiesFor, namesOnlyFiles } from "../io/oracle/identity.ts";
import { chainKey, chainRefusal, inheritedChain } from "../io/check/chain.ts";
import { baseDir, oracleFor, pendingTasks, type CheckTask, type RunSettings } from "../io/check/plan.ts";
import { runRolling } from "../core/check/pool.ts";
import { WritebackError, writeBack, type WritebackStatus } from "../io/check/writeback.ts";
import { describe, KbzError } from "../core/errors.ts";
import { requirePerson, logConsent, type Consent } from "../io/run/consent.ts";
import { attest, noteApproved } from "../io/run/attest.ts";
import { identityForAct, signApproval } from "../io/sign/act.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { judgedRun, type Judged } from "../io/check/judged.ts";
import { oracleView, PLACE_FAILED } from "../io/run/view.ts";

export const DEFAULT_TIMEOUT_S = 120;

export interface CheckRequest extends TargetRequest {
  reverify: boolean;
  approve: boolean;
  jobs: number; // 1..64
  timeoutS: number; // 1..86400
  shell?: string;
  cwd?: string;
  env: Env;
  observer?: CheckObserver;
  /** Only these gates (qualified ids); the dashboard runs or approves one gate or one ledger. */
  only?: string[];
  /**
   * `--approve=<sig>`: approve only the pending oracle whose signature starts with this (at least
   * 8 hex digits); refused when none does (the oracle changed since it was shown).
   */
  approveOnly?: string;
  /** `--sandbox`: every CHECK under the sandbox (the repository setting and SANDBOX: lines add to it). */
  sandbox?: boolean;
  /** How a person gives `approve` (io/run/consent.ts): the dashboard passes "dashboard". */
  via?: "terminal" | "dashboard";
  /** `verify run --env`: names every CHECK of the run receives and its approval binds (plan.ts declaredEnv). */
  passEnv?: readonly string[];
  /** The snapshot of the target the caller already read (its one read); absent: read it here. */
  snapshot?: Snapshot;
}

/** `judged`: not approved, but the latest approval differs only in files kbz kept: the work is judged against it (io/check/judged.ts). */
export type ApprovalStatus = "approved" | "recorded" | "required" | "failed" | "judged";

export interface ApprovalItem {
  task: CheckTask;
  status: ApprovalStatus;
  record: string | null; // path of a record written now
  problem: string | null; // "could not validate/record approval for <qid>: <msg>"
  /** For an unapproved oracle: how the nearest approval of the same ledger and gate differs. */
  differs?: string[];
  /** `judged`: the approval the run is judged against and the view that puts it back. */
  judged?: Judged;
  /** `required` where a judged run was possible but no view of the approved oracle can be built: why. */
  noView?: string;
}

export interface RunReport {
  task: CheckTask;
  /** The run was judged against the approved oracle (the live one is an edit awaiting a person). */
  judged?: boolean;
  outcome: RunOutcome;
  writeback: WritebackStatus | "failed";
  writeError: string | null;
}

/** Live events for a printer; every field is optional. */
export interface CheckObserver {
  /** The ledgers as loaded, before anything else (warnings are shown from here). */
  loaded?(snapshot: Snapshot): void;
  approval?(item: ApprovalItem): void;
  willRun?(tasks: CheckTask[]): void;
  started?(task: CheckTask): void;
  finished?(task: CheckTask, outcome: RunOutcome): void;
  /** A running check's output as it arrives. */
  output?(task: CheckTask, text: string): void;
}

export interface CheckResult {
  snapshot: Snapshot; // re-loaded after writeback
  settings: RunSettings;
  approvals: ApprovalItem[]; // every pending task in order, approved or not
  runs: RunReport[]; // in task order
  extras: string[]; // reverify-not-run and discarded stale results still reading met
  reduction: Reduction;
  note: string; // ", reran: …" with reverify
  infraFailures: number;
  problems: FileProblem[]; // a ledger that became invalid during the run
  exit: 0 | 1 | 2;
}

export function runSettings(
  req: Pick<CheckRequest, "shell" | "cwd" | "env" | "timeoutS" | "sandbox" | "passEnv">,
  root: string,
): RunSettings {
  const shell = resolveShell(requestedShell(req.shell, req.env), req.env);
  let cwd: string | null = null;
  if (req.cwd !== undefined) {
    cwd = path.resolve(root, req.cwd);
    let ok = false;
    try {
      ok = fs.statSync(cwd).isDirectory();
    } catch {}
    if (!ok) throw new UsageError(`--cwd is not an existing directory: ${cwd}`);
  }
  const repo = readRepoSettings(root);
  const sandbox = {
    all: !!req.sandbox || repo.sandbox,
    writable: repo.writable.map((p) => ({ path: p, origin: repo.file })),
    readable: repo.readable,
    root,
    env: req.env,
  };
  return {
    shell,
    path: pathFacts(req.env.PATH ?? ""),
    timeoutMs: req.timeoutS * 1000,
    cwd,
    sandbox,
    root,
    env: req.env,
    ...(req.passEnv?.length ? { passEnv: req.passEnv } : {}),
  };
}

/** For an unapproved oracle: how the nearest approval of the same ledger and gate differs. */
function nearMiss(
  store: ApprovalStore,
  cache: { all: StoredApproval[] | null },
  task: CheckTask,
  root: string,
): string[] {
  try {
    cache.all ??= store.list();
  } catch {
    return [];
  }
  const file = path.resolve(task.file);
  const same = cache.all.flatMap((a) =>
    a.record && a.record.file === file && a.record.gate === task.gate.id ? [a.record] : [],
  );
  return nearMissLines(file, same, task.oracle, root);
}

/** Thrown before anything runs when `--approve=<sig>` names no oracle of this run. */
export class ApprovalSignatureError extends KbzError {
  constructor(sig: string) {
    super(
      `--approve=${sig} matches no oracle of this run: it changed since it was shown, or it is not pending; nothing was approved or run`,
      {
        code: "approval-signature",
        hint: `run ${kbz("check")} to print the current oracles and their signatures; a person reviews the oracle again before approving it`,
      },
    );
  }
}

async function decideApprovals(
  tasks: CheckTask[],
  store: ApprovalStore,
  consentFor: (() => Consent) | null,
  only: string | null,
  req: Pick<CheckRequest, "env">,
  observer?: CheckObserver,
  root = "",
): Promise<ApprovalItem[]> {
  const items: ApprovalItem[] = [];
  const cache: { all: StoredApproval[] | null } = { all: null };
  for (const task of tasks) {
    let item: ApprovalItem;
    const approveThis = consentFor !== null && (only === null || task.signature.startsWith(only));
    try {
      if (store.isApproved(task.file, task.gate.id, task.oracle))
        item = { task, status: "approved", record: null, problem: null };
      else if (!approveThis) item = judgedOrRequired(store, cache, task, root);
      else {
        // A person's act, asked for when the first oracle needs it: refused before anything runs.
        const approve = consentFor!();
        // With a signing key (or under the signed policy, where one is required) the person's signature goes into the repository too.
        const id = identityForAct(root, approve.policy, req.env);
        try {
          if (id) signApproval(root, id, task.file, task.gate, task.oracle, req.env);
          item = {
            task,
            status: "recorded",
            record: await store.record(task.file, task.gate.id, task.oracle, approve.given),
            problem: null,
          };
          logConsent(approve, `${path.resolve(task.file)} ${task.gate.id} ${task.signature}`);
          await noteApproved(approve.store, root, task.file, [task.gate.id]);
        } catch (e) {
          item = {
            task,
            status: "failed",
            record: null,
            problem: `could not record approval for ${task.qid}: ${describe(e)}`,
          };
        }
      }
    } catch (e) {
      if (!(e instanceof ApprovalStoreError)) throw e;
      item = {
        task,
        status: "failed",
        record: null,
        problem: `could not validate approval for ${task.qid}: ${e.located()}`,
      };
    }
    items.push(item);
    observer?.approval?.(item);
  }
  return items;
}

/** An unapproved oracle: judged against the approved one when only its files changed and they can be put back, else APPROVAL REQUIRED. */
function judgedOrRequired(
  store: ApprovalStore,
  cache: { all: StoredApproval[] | null },
  task: CheckTask,
  root: string,
): ApprovalItem {
  const judged = judgedRun(store, root, task.file, task.gate.id, task.oracle);
  if (judged && !("why" in judged)) {
    const view = oracleView(root, [], false);
    if (!("why" in view)) {
      view.dispose();
      return { task, status: "judged", record: null, problem: null, judged };
    }
    return {
      task,
      status: "required",
      record: null,
      problem: null,
      differs: nearMiss(store, cache, task, root),
      noView: view.why,
    };
  }
  return {
    task,
    status: "required",
    record: null,
    problem: null,
    differs: nearMiss(store, cache, task, root),
    ...(judged ? { noView: judged.why } : {}),
  };
}

function evidenceFor(task: CheckTask, outcome: RunOutcome, settings: RunSettings): string {
  return automaticEvidence({
    digest: task.digest,
    outputSha256: outcome.outputSha256,
    outputBytes: outcome.bytes,
    shell: settings.shell,
    cwd: task.cwd,
    pathFingerprint: settings.path.fingerprint,
  });
}

/**
 * kbz check writes evidence, so every ledger it targets must be inside the root: an explicit
 * ledger elsewhere can be read with `kbz status` but is never written.
 */
/**
 * The failure record of a finished run (io/check/failures.ts), null for a pass. Bound to the
 * evidence line the ledger holds after the writeback (a demoted gate reads `pending`) and, with
 * INPUTS, to the files the run saw.
 */
function failureOf(r: RunReport, files: Record<string, string> | undefined, judged = false): FailureStored | null {
  if (r.outcome.ok) return null;
  const failure = `${judged ? "judged against the approved oracle: " : ""}${failureText(r.outcome)}`;
  const evidence = r.writeback === "written" ? "pending" : (r.task.gate.evidence ?? "");
  const inputs = r.task.gate.inputs && files ? { cwd: r.task.oracle.cwd, inputs: r.task.gate.inputs, files } : {};
  return { definition: r.task.digest, evidence, failure, ...inputs };
}

function assertLedgersInside(snap: Snapshot): void {
  const root = snap.target.root;
  for (const l of snap.ledgers) {
    let real = l.file;
    try {
      real = fs.realpathSync(l.file);
    } catch {}
    if (!isInside(root, real)) {
      throw new UsageError(
        `${l.file}: ledger is outside the root ${root}; ${kbz("check")} writes only inside the root. Read it with ${kbz("status")}, or run ${kbz("check", { root: ph("<its repository>") })}`,
      );
    }
  }
}

/**
 * Vouch for each pass written in the approval store (io/run/attest.ts); kbz gives it, never a
 * person. Each attestation binds the INPUTS and oracle pass records written with the pass.
 */
async function attestPasses(
  store: string,
  root: string,
  file: string,
  group: RunReport[],
  inputs: Record<string, InputRecord>,
  oracles: Record<string, OraclePassRecord>,
  settings: RunSettings,
): Promise<void> {
  const entries = group
    .filter((r) => r.outcome.ok && (r.writeback === "written" || r.writeback === "unchanged"))
    .map((r) => ({
      gate: r.task.gate.id,
      kind: "pass" as const,
      evidence: evidenceFor(r.task, r.outcome, settings),
      inputs: inputs[r.task.gate.id] ?? null,
      oracle: oracles[r.task.gate.id] ?? null,
    }));
  try {
    await attest(store, root, file, entries);
  } catch (e) {
    // The pass stands in the ledger; without its record it reads UNATTESTED and runs again.
    process.stderr.write(
      `kbz: warning: could not record the attestation of ${entries.map((x) => x.gate).join(", ")}: ${describe(e)}\n`,
    );
  }
}

/** A CHECK that invokes kbz itself as a command (at its start or after `;`, `&&`, `||`, `|`, `(`). */
export function asksKbz(check: string): boolean {
  return /(^|[;&|(]\s*)kbz\s/.test(check.trim());
}

/** A gate the recursion guard refused: a FAIL that never ran and writes nothing. */
/** INPUTS over the cap can never be bound to a pass; the gate is not run. */
/** Issue 39: nor can an INPUTS entry covering no regular file (it binds nothing). */
function inputsRefusal(t: CheckTask, root: string): string | null {
  return t.gate.inputs ? inputsProblem(expandInputs(t.oracle.cwd, t.gate.inputs, root)) : null;
}

function refusedOutcome(message: string): RunOutcome {
  return {
    ok: false,
    exitCode: null,
    signal: null,
    matched: false,
    error: message,
    outputSha256: "",
    bytes: 0,
    durationMs: 0,
    summary: "(not run)",
    outputTail: "",
  };
}

/** What the steps of one checker run share. */
interface Run {
  req: CheckRequest;
  /** The snapshot the run was planned from (re-loaded at the end for the verdict). */
  first: Snapshot;
  root: string;
  settings: RunSettings;
  storeDir: string;
  store: ApprovalStore;
  /** Pending gates (with --only, just those), in ledger order. */
  tasks: CheckTask[];
  chain: ReturnType<typeof inheritedChain>;
  /** Gates the recursion guard or the INPUTS cap refuses: qualified id → why (they run nothing). */
  refusals: Map<string, string>;
  refused: Set<string>;
  /** What each run's INPUTS were when it ended, by qualified id (recorded after writeback). */
  observed: Map<string, Record<string, string>>;
  /** Issue 39: the person's consent given in this run, for the approvals its traced runs widen. */
  consent: Consent | null;
  /** Gates whose approval was recorded in this run (qualified ids). */
  approvedNow: Set<string>;
  /** Gates judged against their approved oracle, by qualified id (io/check/judged.ts). */
  judged: Map<string, Judged>;
}

export async function runChecks(req: CheckRequest): Promise<CheckResult> {
  const run = planRun(req);
  const approvals = await approveRun(run);
  const allowed = new Set(
    approvals
      .filter((a) => a.status === "approved" || a.status === "recorded" || a.status === "judged")
      .map((a) => a.task.qid),
  );
  for (const a of approvals) if (a.judged) run.judged.set(a.task.qid, a.judged);
  const runnable = run.tasks.filter((t) => allowed.has(t.qid) || run.refused.has(t.qid));
  req.observer?.willRun?.(runnable);
  const runs = await runInOrder(run, runnable);
  return verdictOf(run, runs, approvals);
}

/** Load and validate the target, the run settings and the approval store; list the pending gates and those refused. */
function planRun(req: CheckRequest): Run {
  const first = req.snapshot ?? snapshotForRequest(req);
  req.observer?.loaded?.(first);
  if (first.problems.length > 0) throw new FileProblemsError(first.problems);
  const invalidDispatch = dispatchProblems(first);
  if (invalidDispatch.length > 0) throw new FileProblemsError(invalidDispatch);
  const root = first.target.root;
  assertLedgersInside(first);
  const settings = runSettings(req, root);
  const storeDir = approvalDirFor(req.env);
  assertStoreOutside(storeDir, [root, path.resolve(req.root ?? process.cwd())]);
  const store = new ApprovalStore(storeDir, root);

  const only = req.only ? new Set(req.only) : null;
  const tasks = pendingTasks(first, settings, req.reverify).filter((t) => !only || only.has(t.qid));
  // The recursion guard decides before approvals: a refused gate runs nothing, so needs none.
  const chain = inheritedChain(req.env);
  const refusals = new Map<string, string>();
  for (const t of tasks) {
    const refusal = chainRefusal(chain, chainKey(t.file, t.gate.id), root) ?? inputsRefusal(t, root);
    if (refusal) refusals.set(t.qid, refusal);
  }
  return {
    req,
    first,
    root,
    settings,
    storeDir,
    store,
    tasks,
    chain,
    refusals,
    refused: new Set(refusals.keys()),
    observed: new Map(),
    consent: null,
    approvedNow: new Set(),
    judged: new Map(),
  };
}

/** The approval of each gate not refused: on record, given now (--approve, --approve=SIG, a person's consent), or required. */
async function approveRun(run: Run): Promise<ApprovalItem[]> {
  const { req } = run;
  const candidates = run.tasks.filter((t) => !run.refused.has(t.qid));
  let approveOnly: string | null = null;
  if (req.approveOnly !== undefined) {
    const sig = req.approveOnly.toLowerCase();
    if (!/^[0-9a-f]{8,64}$/.test(sig))
      throw new UsageError(
        `--approve=${req.approveOnly}: a signature is 8 to 64 hex digits as ${kbz("check")} prints it ([1a2b3c4d5e6f])`,
      );
    if (!candidates.some((t) => t.signature.startsWith(sig))) throw new ApprovalSignatureError(sig);
    approveOnly = sig;
  }
  let consent: Consent | null = null;
  const consentFor =
    req.approve || approveOnly !== null
      ? () => (consent ??= requirePerson("approve", { env: req.env, via: req.via }))
      : null;
  const items = await decideApprovals(candidates, run.store, consentFor, approveOnly, req, req.observer, run.root);
  run.consent = consent;
  for (const a of items) if (a.status === "recorded") run.approvedNow.add(a.task.qid);
  return items;
}

/** The request that runs one task's CHECK (the approval's traced run and the gate's run share it). */
function executeRequest(run: Run, task: CheckTask): ExecuteRequest {
  const { req } = run;
  return executeRequestFor(
    task,
    run.settings,
    req.env,
    run.chain,
    req.observer?.output && ((text) => req.observer!.output!(task, text)),
  );
}

/**
 * A gate approved in this run (issue 39): its run is the consented one. It is traced, what it reads
 * that is oracle joins the gate's observed files, and the approval is recorded again for the oracle
 * bound with them (the person's consent of this run covers the CHECK's run and what it reads).
 */
async function approvedRun(run: Run, task: CheckTask, consent: Consent): Promise<RunOutcome> {
  const observed = await runObserved(task, run.root, run.req.env, executeRequest(run, task));
  if (!rememberObserved(task, run.root, run.req.env, observed)) return observed.outcome;
  const base = baseDir(run.first, task.file, run.settings);
  const before = task.signature;
  task.oracle = oracleFor(task.file, base, task.gate, run.settings, task.oracle.sandbox ?? null, task.owns);
  task.signature = oracleSignature(task.oracle);
  if (task.signature === before) return observed.outcome;
  try {
    await run.store.record(task.file, task.gate.id, task.oracle, consent.given);
    logConsent(consent, `${path.resolve(task.file)} ${task.gate.id} ${task.signature} (observed)`);
    // The record of this run's consent before the tracer widened it: superseded by the one above.
    run.store.remove([recordName(task.file, task.gate.id, before)]);
  } catch (e) {
    return {
      ...observed.outcome,
      ok: false,
      error: `could not record the observed approval of ${task.qid}: ${describe(e)}`,
    };
  }
  return observed.outcome;
}

/** A gate's run, traced when its oracle was observed: an oracle file it newly reads makes it not count (issue 39). */
async function observedRun(run: Run, task: CheckTask): Promise<RunOutcome> {
  const observed = await runObserved(task, run.root, run.req.env, executeRequest(run, task));
  const fresh = newOracleFiles(task, run.root, run.req.env, observed);
  return fresh.length > 0 ? oracleChangedOutcome(observed.outcome, fresh) : observed.outcome;
}

/**
 * Gates whose CHECK asks kbz about other gates (a node gate over its children, S_STRUCTURE) run
 * after the others were written back, one at a time in ledger order, so each sees the results of
 * this run (S_STRUCTURE comes last in the root ledger and sees the node gates).
 */
async function runInOrder(run: Run, runnable: CheckTask[]): Promise<RunReport[]> {
  const runs: RunReport[] = [];
  const independent = runnable.filter((t) => !asksKbz(t.gate.check ?? ""));
  const last = (t: CheckTask) => (t.gate.id === "S_STRUCTURE" ? 1 : 0);
  const dependent = runnable.filter((t) => asksKbz(t.gate.check ?? "")).sort((a, b) => last(a) - last(b));
  for (const batch of [independent, ...dependent.map((t) => [t])]) {
    if (batch.length > 0) runs.push(...(await runBatch(run, batch)));
  }
  runs.sort((x, y) => x.task.index - y.task.index);
  return runs;
}

/** Run one batch of allowed (or refused) tasks and write each ledger's results back. */
async function runBatch(run: Run, batch: CheckTask[]): Promise<RunReport[]> {
  const outcomes = await runRolling(batch, run.req.jobs, (task) => runTask(run, task));
  const runs: RunReport[] = batch.map((task, i) => ({
    task,
    outcome: outcomes[i]!,
    writeback: "unchanged",
    writeError: null,
    ...(run.judged.has(task.qid) ? { judged: true } : {}),
  }));
  // Tasks come in ledger order, so each ledger's results are one contiguous run.
  for (let start = 0; start < runs.length; ) {
    let end = start;
    while (end < runs.length && runs[end]!.task.file === runs[start]!.task.file) end++;
    const group = runs.slice(start, end).filter((r) => !run.refused.has(r.task.qid));
    start = end;
    if (group.length > 0) await writeLedger(run, group);
  }
  return runs;
}

/** One gate's CHECK (or its refusal), observed and its output kept for the dashboard. */
async function runTask(run: Run, task: CheckTask): Promise<RunOutcome> {
  const { req } = run;
  req.observer?.started?.(task);
  const refusal = run.refusals.get(task.qid);
  const judged = run.judged.get(task.qid);
  let outcome: RunOutcome;
  if (refusal) outcome = refusedOutcome(refusal);
  else if (!judged)
    // Issue 39: traced (what it reads is checked against the approved oracle); an approval of this run is widened by it.
    outcome =
      run.consent && run.approvedNow.has(task.qid)
        ? await approvedRun(run, task, run.consent)
        : await observedRun(run, task);
  else {
    const view = oracleView(run.root, judged.placements, !!task.oracle.sandbox);
    try {
      outcome =
        view && "why" in view
          ? refusedOutcome(`no view of the approved oracle: ${view.why}`)
          : await executeCheck({ ...executeRequest(run, task), wrap: view ? view.wrap : undefined });
    } finally {
      if (view && !("why" in view)) view.dispose();
    }
    if (!outcome.ok && outcome.exitCode === 125 && outcome.outputTail.includes(PLACE_FAILED))
      outcome = { ...outcome, error: "the approved oracle could not be put back in the view (not run)" };
  }
  // What the pass observed, digested as soon as it ends (recorded after writeback).
  // (A failed run's too: its failure record holds only while those inputs stay as they were.)
  if (task.gate.inputs) run.observed.set(task.qid, digestInputs(run.root, task.oracle.cwd, task.gate.inputs).files);
  req.observer?.finished?.(task, outcome);
  // The dashboard's gate detail shows the last run's output; a cache outside the ledgers.
  saveLastRun(req.env, {
    ...outcome,
    file: task.file,
    gateId: task.gate.id,
    qid: task.qid,
    output: outcome.outputTail,
  });
  return outcome;
}

/** Write one ledger's results back, then its INPUTS, oracle pass, attestation and failure records. */
async function writeLedger(run: Run, group: RunReport[]): Promise<void> {
  const { root, settings } = run;
  const file = group[0]!.task.file;
  const base = baseDir(run.first, file, settings);
  try {
    const statuses = await writeBack({
      root,
      file,
      constrained: run.first.target.mode !== "explicit",
      // An oracle that cannot be bound any more (an ORACLE: file became a FIFO) is a changed one: stale.
      oracleFor: (g) => {
        try {
          return oracleFor(file, base, g, settings, group[0]!.task.oracle.sandbox ?? null, group[0]!.task.owns);
        } catch (e) {
          if (!(e instanceof OracleError)) throw e;
          return { ...group[0]!.task.oracle, bound: { files: { [e.message]: "unbindable" }, env: {} } };
        }
      },
      reverify: run.req.reverify,
      items: group.map(({ task, outcome }) => ({
        gateId: task.gate.id,
        digest: task.digest,
        signature: task.signature,
        ok: outcome.ok,
        evidence: outcome.ok ? evidenceFor(task, outcome, settings) : null,
        startState: task.startState,
      })),
    });
    group.forEach((r, i) => (r.writeback = statuses[i]!));
    const records = inputRecords(run, group);
    await recordInputs(root, file, records);
    // The oracle each pass ran under: status un-meets the gate when it changes.
    const passes = oraclePasses(run, group);
    await recordOraclePasses(root, file, passes);
    await attestPasses(run.storeDir, root, file, group, records, passes, settings);
    await recordRuns(
      root,
      file,
      group.map((r) => ({
        id: r.task.gate.id,
        failure: failureOf(r, run.observed.get(r.task.qid), run.judged.has(r.task.qid)),
      })),
    );
  } catch (e) {
    if (!(e instanceof WritebackError)) throw e;
    for (const r of group) {
      r.writeback = "failed";
      r.writeError = `cannot update ${file}: ${e.located()}`;
    }
  }
}

/**
 * The INPUTS each written (or unchanged) pass observed, by gate id. A failed run gets none (issue
 * 42 item 5): the record holds the evidence line of a pass, which a failed run must never write
 * anywhere (its failure record, io/check/failures.ts, keeps what it saw).
 */
function inputRecords(run: Run, group: RunReport[]): Record<string, InputRecord> {
  const records: Record<string, InputRecord> = {};
  for (const r of group) {
    const files = run.observed.get(r.task.qid);
    if (!files || !r.outcome.ok || (r.writeback !== "written" && r.writeback !== "unchanged")) continue;
    const evidence = evidenceFor(r.task, r.outcome, run.settings);
    records[r.task.gate.id] = {
      definition: r.task.digest,
      evidence,
      cwd: r.task.oracle.cwd,
      inputs: r.task.gate.inputs!,
      files,
    };
  }
  return records;
}

/** The oracle each written (or unchanged) pass ran under, by gate id. */
function oraclePasses(run: Run, group: RunReport[]): Record<string, OraclePassRecord> {
  const { settings } = run;
  const passes: Record<string, OraclePassRecord> = {};
  for (const r of group) {
    const bound = r.task.oracle.bound;
    if (!r.outcome.ok || (r.writeback !== "written" && r.writeback !== "unchanged")) continue;
    const judged = run.judged.get(r.task.qid);
    if (judged) {
      // Judged against the approved oracle: the pass binds its files, and holds while that approval is the gate's latest.
      const approved = judged.approval.oracle.bound ?? { files: {}, env: {} };
      passes[r.task.gate.id] = {
        definition: r.task.digest,
        evidence: evidenceFor(r.task, r.outcome, settings),
        signature: bindingSignature(approved.files, approved.env),
        files: approved.files,
        judged: judged.approval.signature,
      };
      continue;
    }
    if (!bound) continue;
    passes[r.task.gate.id] = {
      definition: r.task.digest,
      evidence: evidenceFor(r.task, r.outcome, settings),
      signature: bindingSignature(bound.files, bound.env),
      files: bound.files,
    };
    const stat = identitiesFor(bound.files, (key) => (path.isAbsolute(key) ? key : path.join(settings.root, key)));
    if (Object.keys(stat).length > 0) passes[r.task.gate.id]!.stat = stat;
    if (Object.keys(stat).length > 0 && namesOnlyFiles(r.task.gate))
      passes[r.task.gate.id]!.filesFrom = r.task.oracle.cwd;
    if (r.task.owns.length > 0) passes[r.task.gate.id]!.owns = [...r.task.owns];
  }
  return passes;
}

/** The snapshot after the run, what did not count, and the verdict and exit code. */
function verdictOf(run: Run, runs: RunReport[], approvals: ApprovalItem[]): CheckResult {
  const { req } = run;
  const snapshot = loadSnapshot(run.first.target);
  const stateOf = new Map(snapshot.gates.map((g) => [g.qid, g.state]));
  const ran = new Set(runs.map((r) => r.task.qid));
  const extras: string[] = [];
  if (req.reverify) {
    for (const t of run.tasks)
      if (t.startState === "met" && !ran.has(t.qid) && stateOf.get(t.qid) === "met")
        extras.push(`${t.qid} (reverify not run)`);
  }
  for (const r of runs)
    if (r.writeback === "stale" && stateOf.get(r.task.qid) === "met")
      extras.push(`${r.task.qid} (stale result discarded)`);
  // A refused gate was not checked here: it never counts as met in this run.
  for (const qid of run.refused) if (stateOf.get(qid) === "met") extras.push(`${qid} (recursion refused)`);
  // The status reduction folds the scope's dispatch waves in (docs/formats.md#check-run).
  const { reduction } = statusReport(snapshot, { extras });
  const problems = [...snapshot.problems, ...dispatchProblems(snapshot)];
  const reverified = runs.filter((r) => r.task.startState === "met" && r.writeback !== "stale").length;
  const note = req.reverify ? `, reran: ${runs.length}, previously met reverified: ${reverified}` : "";
  const infraFailures = approvals.filter((a) => a.status === "failed").length;
  const broken = problems.length > 0 || runs.some((r) => r.writeback === "failed") || infraFailures > 0;
  return {
    snapshot,
    settings: run.settings,
    approvals,
    runs,
    extras,
    reduction,
    note,
    infraFailures,
    problems,
    exit: broken ? 2 : reduction.verdict === "all-met" ? 0 : 1,
  };
}
