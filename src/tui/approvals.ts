// The Approvals panel's data and the dashboard's two effects (running checks, approving one),
// all through core/check and core/run: the same pending list, oracle, store and writeback as
// `kbz check`. Nothing here decides what an approval binds or when a gate is met.
import { UsageError } from "../core/errors.ts";
import { baseDir, oracleFor, pendingTasks, type CheckTask, type RunSettings } from "../io/check/plan.ts";
import { oracleSignature, type RuntimeOracle } from "../core/run/oracle.ts";
import type { GateView } from "../core/snapshot.ts";
import { OracleError } from "../io/oracle/binding.ts";
import { DEFAULT_TIMEOUT_S, runChecks, runSettings, type CheckResult } from "../io/check/run.ts";
import { ApprovalStore, ApprovalStoreError, approvalDirFor, assertStoreOutside } from "../io/run/approval.ts";
import type { Env } from "../io/run/shell.ts";
import { storeFor } from "../io/store/active.ts";
import { checkEvents, logEvent } from "../io/store/events.ts";
import type { Snapshot } from "../core/snapshot.ts";

export interface ApprovalsView {
  items: CheckTask[]; // runnable gates whose exact oracle has no approval record
  settings: RunSettings | null;
  storeDir: string | null;
  problem: string | null;
}

export function loadApprovals(snap: Snapshot, env: Env): ApprovalsView {
  const none = (problem: string | null, settings: RunSettings | null = null, storeDir: string | null = null): ApprovalsView => ({
    items: [],
    settings,
    storeDir,
    problem,
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
    return { items: tasks.filter((t) => !store.isApproved(t.file, t.gate.id, t.oracle)), settings, storeDir, problem: null };
  } catch (e) {
    if (e instanceof UsageError || e instanceof ApprovalStoreError) return none(e.located(), settings, storeDir);
    throw e;
  }
}

export interface RunEvents {
  started?(qid: string): void;
  finished?(qid: string): void;
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

/** Run (and with `approve`, first approve) the given gates in process, as `kbz check` would. */
export async function runGates(req: GateRunRequest): Promise<CheckResult> {
  const result = await runChecks({
    root: req.root,
    files: [],
    scope: req.scope,
    reverify: req.reverify,
    approve: req.approve,
    jobs: 2,
    timeoutS: DEFAULT_TIMEOUT_S,
    env: req.env,
    only: req.qids,
    observer: {
      started: (t) => req.events?.started?.(t.qid),
      finished: (t) => req.events?.finished?.(t.qid),
    },
  });
  // The same log lines as `kbz check` (a failed append only loses the line).
  const scope = result.snapshot.target.scope;
  if (scope) for (const e of checkEvents(result.runs)) await logEvent(storeFor(result.snapshot.target.root), scope, e);
  return result;
}

/** One line for the footer: what ran and how it ended. */
export function runSummary(r: CheckResult): string {
  const required = r.approvals.filter((a) => a.status === "required").length;
  const failed = r.approvals.filter((a) => a.status === "failed").map((a) => a.problem);
  const parts = r.runs.map((x) => (x.outcome.ok ? `${x.task.qid} passed` : `${x.task.qid} failed: ${x.outcome.error ?? x.outcome.summary ?? "no match"}`));
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
export function gateApproval(snap: Snapshot, view: ApprovalsView, gate: GateView): GateApproval | { problem: string } | null {
  if (gate.gate.check === null || gate.gate.expect === null) return null;
  if (!view.settings || !view.storeDir) return { problem: view.problem ?? "no run settings" };
  try {
    const oracle = oracleFor(gate.file, baseDir(snap, gate.file, view.settings), gate.gate, view.settings);
    const store = new ApprovalStore(view.storeDir, snap.target.root);
    return { oracle, signature: oracleSignature(oracle), approved: store.isApproved(gate.file, gate.gate.id, oracle), shell: view.settings.shell };
  } catch (e) {
    if (e instanceof UsageError || e instanceof ApprovalStoreError || e instanceof OracleError) return { problem: e.message };
    throw e;
  }
}
