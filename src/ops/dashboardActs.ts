// The dashboard's acts: the Approvals panel's data, running checks (with their output as it
// comes), a person's approval of exactly the oracle shown, probing, signing, and the last run of
// a gate: all through the functions `kbz check`, `kbz check --probe` and `kbz sign` use. Nothing
// here decides what an approval binds or when a gate is met.
import * as path from "node:path";
import { logConsent, requirePerson } from "../io/run/consent.ts";
import { noteApproved } from "../io/run/attest.ts";
import { isDeliberate, UsageError } from "../core/errors.ts";
import { readLastRun, type LastRun } from "../io/check/lastrun.ts";
import { baseDir, cwdShown, oracleFor, pendingTasks, type CheckTask, type RunSettings } from "../io/check/plan.ts";
import { snapshotForRequest } from "./snapshot.ts";
import { oracleSignature, type RuntimeOracle } from "../core/run/oracle.ts";
import type { GateView } from "../core/snapshot.ts";
import { DEFAULT_TIMEOUT_S, runSettings, type CheckResult } from "./checkRun.ts";
import { checkGates } from "./check.ts";
import { ApprovalStore, approvalDirFor, assertStoreOutside } from "../io/run/approval.ts";
import type { Env } from "../io/run/shell.ts";
import { coordinationFor } from "../io/coordination/active.ts";
import { logEvent } from "../io/coordination/events.ts";
import { killAllChecks } from "../io/run/watchdog.ts";
import { pruneRemoved } from "../io/check/attested.ts";
import { approvalView, ledgerExtras, type ApprovalView } from "./approvalView.ts";
import type { Snapshot } from "../core/snapshot.ts";

export interface ApprovalsView {
  items: CheckTask[]; // runnable gates whose exact oracle has no approval record
  settings: RunSettings | null;
  storeDir: string | null;
  problem: string | null;
  /** Every file an approval of a runnable gate binds (absolute): the dashboard watches them. */
  oracleFiles: string[];
}

/** The files the tasks' oracles bind (a script `package.json#scripts.test` is its package.json). */
export function oracleFilesOf(root: string, tasks: readonly CheckTask[]): string[] {
  const files = new Set<string>();
  for (const t of tasks)
    for (const key of Object.keys(t.oracle.bound?.files ?? {}))
      files.add(path.resolve(root, key.replace(/#scripts\..*$/, "")));
  return [...files].sort();
}

export function loadApprovals(snap: Snapshot, env: Env): ApprovalsView {
  const none = (
    problem: string | null,
    settings: RunSettings | null = null,
    storeDir: string | null = null,
  ): ApprovalsView => ({
    items: [],
    settings,
    storeDir,
    problem,
    oracleFiles: [],
  });
  if (snap.problems.length > 0) return none("the ledgers are invalid (see Gates); nothing can be approved");
  const root = snap.target.root;
  let settings: RunSettings;
  let storeDir: string;
  try {
    settings = runSettings({ env, timeoutS: DEFAULT_TIMEOUT_S }, root);
    storeDir = approvalDirFor(env);
    assertStoreOutside(storeDir, [root]);
  } catch (e) {
    if (e instanceof UsageError) return none(e.message);
    throw e;
  }
  try {
    const store = new ApprovalStore(storeDir, root);
    const tasks = pendingTasks(snap, settings, true);
    return {
      items: tasks.filter((t) => !store.isApproved(t.file, t.gate.id, t.oracle)),
      settings,
      storeDir,
      problem: null,
      oracleFiles: oracleFilesOf(root, tasks),
    };
  } catch (e) {
    if (isDeliberate(e)) return none(e.located(), settings, storeDir);
    throw e;
  }
}

export { cwdShown, type ApprovalView, type CheckTask, type LastRun };

export interface RunEvents {
  started?(qid: string): void;
  finished?(qid: string): void;
  /** Output of a running check as it arrives (stdout and stderr, in arrival order). */
  output?(qid: string, text: string): void;
}

export interface GateRunRequest {
  root: string;
  scope: string | null;
  qids: string[];
  reverify: boolean;
  /** Record approval for exactly these gates' current oracles before running them. */
  approve: boolean;
  env: Env;
  events?: RunEvents;
}

/**
 * Run (and with `approve`, first approve) the given gates in process: the one check use case
 * (ops/check.ts checkGates), so the dashboard's runs log the same lines `kbz check` does.
 */
export async function runGates(req: GateRunRequest): Promise<CheckResult> {
  const { result } = await checkGates({
    root: req.root,
    files: [],
    scope: req.scope,
    reverify: req.reverify,
    approve: req.approve,
    via: "dashboard",
    jobs: 2,
    timeoutS: DEFAULT_TIMEOUT_S,
    env: req.env,
    only: req.qids,
    observer: {
      started: (t) => req.events?.started?.(t.qid),
      finished: (t) => req.events?.finished?.(t.qid),
      output: (t, text) => req.events?.output?.(t.qid, text),
    },
  });
  return result;
}

/** One line for the footer: what ran and how it ended. */
export function runSummary(r: CheckResult): string {
  const required = r.approvals.filter((a) => a.status === "required").length;
  const failed = r.approvals.filter((a) => a.status === "failed").map((a) => a.problem);
  const parts = r.runs.map((x) =>
    x.outcome.ok
      ? `${x.task.qid} passed`
      : `${x.task.qid} failed: ${x.outcome.error ?? x.outcome.summary ?? "no match"}`,
  );
  if (required > 0) parts.push(`${required} not run (approval required: see Approvals)`);
  parts.push(...failed.map((p) => p ?? "approval failed"));
  if (parts.length === 0) parts.push("nothing to run");
  return parts.join("; ");
}

export interface GateApproval {
  oracle: RuntimeOracle;
  signature: string;
  approved: boolean;
  shell: string;
}

/** What an approval of this gate binds now, and whether one is on record; null for a manual gate. */
export function gateApproval(
  snap: Snapshot,
  view: ApprovalsView,
  gate: GateView,
): GateApproval | { problem: string } | null {
  if (gate.gate.check === null || gate.gate.expect === null) return null;
  if (!view.settings || !view.storeDir) return { problem: view.problem ?? "no run settings" };
  try {
    const oracle = oracleFor(gate.file, baseDir(snap, gate.file, view.settings), gate.gate, view.settings);
    const store = new ApprovalStore(view.storeDir, snap.target.root);
    return {
      oracle,
      signature: oracleSignature(oracle),
      approved: store.isApproved(gate.file, gate.gate.id, oracle),
      shell: view.settings.shell,
    };
  } catch (e) {
    if (isDeliberate(e)) return { problem: e.message };
    throw e;
  }
}

/** How a person's act was given; every act the dashboard records says `dashboard`. */
export const GIVEN_VIA = "dashboard";

export interface ApproveRequest {
  root: string;
  scope: string | null;
  qid: string;
  /** The signature of the oracle the person saw: a different current oracle is refused. */
  signature: string;
  env: Env;
}

/**
 * A person's approval of exactly the oracle shown (nothing runs). Read again first: when the
 * gate's oracle is no longer the one on screen, nothing is recorded and the caller says so.
 */
export async function approveShown(req: ApproveRequest): Promise<{ status: "recorded" | "already" }> {
  const consent = requirePerson("approve", { env: req.env, via: "dashboard" });
  const snap = snapshotForRequest({ root: req.root, scope: req.scope, files: [] });
  const view = loadApprovals(snap, req.env);
  if (view.problem || !view.storeDir) throw new UsageError(view.problem ?? "no approval store");
  const task = pendingTasks(snap, view.settings!, true).find((t) => t.qid === req.qid);
  if (!task) throw new UsageError(`${req.qid} is no longer a runnable gate here`);
  const store = new ApprovalStore(view.storeDir, snap.target.root);
  if (task.signature !== req.signature)
    throw new UsageError(`${req.qid} changed since it was shown: look at it again, then approve`);
  if (store.isApproved(task.file, task.gate.id, task.oracle)) return { status: "already" };
  await store.record(task.file, task.gate.id, task.oracle, consent.given);
  logConsent(consent, `${task.file} ${task.gate.id} ${task.signature}`);
  await noteApproved(consent.store, snap.target.root, task.file, [task.gate.id]);
  const scope = snap.target.scope;
  if (scope) await logEvent(coordinationFor(snap.target.root), scope, `approved ${task.qid} (given via ${GIVEN_VIA})`);
  return { status: "recorded" };
}

/** A REMOVED item of a snapshot (`GATES:G3 REMOVED (deleted from GATES.md; …)`) as its gate and where it went. */
export interface RemovedGate {
  qid: string;
  /** `deleted from GATES.md`, or `gates/leaf-1.md was deleted`. */
  where: string;
}

export function removedGates(snap: Snapshot): RemovedGate[] {
  return (snap.removed ?? []).flatMap((item) => {
    const m = /^(\S+) REMOVED \(([^;)]*)/.exec(item);
    return m ? [{ qid: m[1]!, where: m[2]! }] : [];
  });
}

/**
 * A person confirms that one REMOVED gate is gone on purpose (`kbz approvals prune`, for this
 * gate only): kbz forgets its approval and evidence records, so it no longer blocks. Read again
 * first: a gate that is back in its ledger (or already confirmed) is not confirmed.
 */
export async function confirmRemoved(req: {
  root: string;
  scope: string | null;
  qid: string;
  env: Env;
}): Promise<{ status: "confirmed" | "gone" }> {
  const consent = requirePerson("prune", { env: req.env, via: "dashboard" });
  const snap = snapshotForRequest({ root: req.root, scope: req.scope, files: [] });
  if (!removedGates(snap).some((r) => r.qid === req.qid)) return { status: "gone" };
  const forgotten = await pruneRemoved(consent.store, snap.target.root, new Set([req.qid]));
  if (forgotten.length === 0) return { status: "gone" };
  logConsent(consent, `confirmed removed ${forgotten.join(", ")}`);
  const scope = snap.target.scope;
  if (scope)
    await logEvent(
      coordinationFor(snap.target.root),
      scope,
      `confirmed removed ${forgotten.join(", ")} (given via ${GIVEN_VIA})`,
    );
  return { status: "confirmed" };
}

/** The last recorded run of a gate (its output tail), or null. */
export function lastRunOf(env: Env, file: string, gateId: string): LastRun | null {
  return readLastRun(env, file, gateId);
}

export interface ProbeShown {
  line: string;
  tone: "ok" | "bad" | "warn" | "info";
  /** The probe needs its own approval first (a probe approval in the Approvals panel). */
  needsApproval?: { hidden: string[] };
}

/** Probe one met gate with `kbz check --probe`'s function; `approve` records the probe's approval first. */
export async function probeGate(req: {
  root: string;
  scope: string | null;
  qid: string;
  approve: boolean;
  env: Env;
}): Promise<ProbeShown | null> {
  const { runProbes, probeLine } = await import("./probe.ts");
  const res = await runProbes({
    root: req.root,
    files: [],
    scope: req.scope,
    approve: req.approve,
    timeoutS: DEFAULT_TIMEOUT_S,
    env: req.env,
    only: [req.qid],
  });
  const item = res.items.find((i) => i.qid === req.qid);
  if (!item) return null;
  if (item.verdict === "approval-required") {
    return {
      line: `${req.qid} not probed: the probe hides ${item.hidden.length} path(s) and needs a person's approval (Approvals)`,
      tone: "warn",
      needsApproval: { hidden: item.hidden },
    };
  }
  const scope = res.snapshot.target.scope;
  if (req.approve && item.recorded && scope)
    await logEvent(
      coordinationFor(res.snapshot.target.root),
      scope,
      `approved the probe of ${req.qid} (given via ${GIVEN_VIA})`,
    );
  const tone = item.verdict === "vacuous" ? "bad" : item.verdict === "observes" ? "ok" : "warn";
  return { line: probeLine(item, res.snapshot.target.root).trim(), tone };
}

/** Sign a manual gate with `kbz sign`'s function, and log it as given via the dashboard. */
export async function signShown(req: {
  root: string;
  scope: string | null;
  qid: string;
  evidence: string;
}): Promise<"written" | "unchanged"> {
  const { signGate } = await import("./sign.ts");
  const r = await signGate({
    root: req.root,
    scope: req.scope,
    qid: req.qid,
    evidence: req.evidence,
    via: "dashboard",
  });
  if (r.status === "written" && req.scope)
    await logEvent(coordinationFor(req.root), req.scope, `signed ${req.qid} (given via ${GIVEN_VIA})`);
  return r.status;
}

/**
 * The whole oracle a person approves (i27's approval view, the same `kbz approve` prints): CHECK,
 * EXPECT, CWD, shell, PATH, sandbox, the oracle files, the ENV names, and what changed since the
 * gate's last approval with a short git diff of each changed file. Null without run settings.
 */
export function approvalViewOf(
  view: ApprovalsView,
  task: CheckTask,
  root: string,
  snap?: Pick<Snapshot, "ledgers">,
): ApprovalView | null {
  if (!view.settings) return null;
  let store: ApprovalStore | null = null;
  try {
    store = view.storeDir ? new ApprovalStore(view.storeDir, root) : null;
  } catch {
    store = null;
  }
  return approvalView(task, { root, env: view.settings.env, store, ...(snap ? ledgerExtras(snap) : {}) });
}

/**
 * The dashboard is closing (q, ctrl-c, or its end by any path): end every CHECK it started, now,
 * so quitting never waits for a CHECK's timeout and never leaves one running (docs/formats.md#containment).
 */
export function endRunningChecks(): number {
  return killAllChecks();
}
