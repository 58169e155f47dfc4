// What the dashboard shows, rebuilt from files with the same core readers the commands use.
// Loading never executes anything and never writes.
import { createHash } from "node:crypto";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { statusReport, type StatusReport } from "../core/report.ts";
import type { Reduction } from "../core/ledger/state.ts";
import { loadSnapshot } from "../io/read.ts";
import { type Snapshot } from "../core/snapshot.ts";
import { listScopes, resolveTarget } from "../io/discover.ts";
import { ReadError } from "../core/errors.ts";
import { coordination } from "../io/store/active.ts";
import type { Env } from "../io/run/shell.ts";
import { loadApprovals, type ApprovalsView } from "./approvals.ts";
import type { LedgerCache } from "./ledgerCache.ts";
import { loadPlanView, type PlanView } from "./plan.ts";

export const LOG_TAIL_LINES = 500;

export interface LogTail {
  file: string | null; // absolute; null outside a scope
  lines: string[]; // the last LOG_TAIL_LINES lines, raw (sanitized when shown)
  problem: string | null;
}

export interface DashData {
  snapshot: Snapshot;
  report: StatusReport;
  reduction: Reduction;
  log: LogTail;
  /** PLAN.md, the scheduler's view and its advice; null without a scope or a PLAN.md. */
  plan: PlanView | null;
  approvals: ApprovalsView;
  /** Digest of every input read except the plan's: equal digests mean nothing visible changed. */
  hash: string;
  /** The same for the plan side (PLAN.md, the scheduler's inputs, its advice). */
  planHash: string;
}

export type DashView =
  | { kind: "ready"; root: string; data: DashData }
  | { kind: "pick"; root: string; scopes: string[] }
  | { kind: "empty"; root: string }
  | { kind: "error"; root: string; message: string };

export interface DashSource {
  root: string; // canonical
  scope: string | null;
  slots: number; // the Queue's `kbz next --slots`
  env: Env; // PATH, shell and approval store: what an approval binds
}

function readLogTail(root: string, scope: string | null, inputs: string[]): LogTail {
  if (!scope) return { file: null, lines: [], problem: null };
  const file = path.join(root, ".unlazy", scope, "status.log");
  try {
    // Through the store: the file, or the coordinator's log when one is set.
    const lines = coordination(root).statusLog(scope, LOG_TAIL_LINES);
    inputs.push(lines.join("\n"));
    return { file, lines, problem: null };
  } catch (e) {
    if (e instanceof ReadError) return { file, lines: [], problem: e.located() };
    throw e;
  }
}

/**
 * Everything the dashboard shows. With `withPlan` false the plan side is left out (null) so a
 * file change can reach the screen before the slower scheduler read; `loadPlan` adds it.
 */
export function loadDash(src: DashSource, cache?: LedgerCache, withPlan = true): DashView {
  let target;
  try {
    target = resolveTarget({ root: src.root, scope: src.scope });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    // Several scopes and none chosen: the dashboard asks instead of guessing.
    const scopes = src.scope ? [] : listScopes(src.root);
    if (scopes.length > 1) return { kind: "pick", root: src.root, scopes };
    return { kind: "error", root: src.root, message: e.message };
  }
  if (target.mode === "none") return { kind: "empty", root: src.root };
  const snapshot = loadSnapshot(target, cache?.load);
  const inputs: string[] = [target.mode, target.scope ?? "", ...target.files];
  for (const l of snapshot.ledgers) inputs.push(l.ledger?.text ?? "", ...l.problems.map((p) => `${p.line}:${p.message}`));
  for (const p of snapshot.problems) inputs.push(`${p.file}:${p.line}:${p.message}`);
  inputs.push(JSON.stringify(snapshot.dispatch ?? null));
  const log = readLogTail(src.root, target.scope, inputs);
  const approvals = loadApprovals(snapshot, src.env);
  inputs.push(approvals.problem ?? "", ...approvals.items.map((t) => `${t.qid}\0${t.signature}`));
  const { report, reduction } = statusReport(snapshot);
  const data: DashData = { snapshot, report, reduction, log, plan: null, approvals, hash: digest(inputs), planHash: "" };
  return { kind: "ready", root: src.root, data: withPlan ? loadPlan(src, data, cache) : data };
}

/** The plan side for already loaded data (PLAN.md, `kbz next`'s snapshot and advice). */
export function loadPlan(src: DashSource, data: DashData, cache?: LedgerCache): DashData {
  const t = data.snapshot.target;
  const inputs: string[] = [];
  const plan = t.discoveryErrors.length === 0 ? loadPlanView(src.root, t.scope, src.slots, inputs, cache?.texts) : null;
  return { ...data, plan, planHash: digest(inputs) };
}

function digest(parts: string[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  return h.digest("hex");
}

/** The hash that decides whether a reload changed anything. */
export function viewHash(v: DashView): string {
  switch (v.kind) {
    case "ready":
      return `${v.data.hash}:${v.data.planHash}`;
    case "pick":
      return `pick:${v.scopes.join(",")}`;
    case "empty":
      return "empty";
    case "error":
      return `error:${v.message}`;
  }
}
