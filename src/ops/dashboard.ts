// The dashboard's view op: everything the dashboard shows, read in one pass with the same
// readers the commands use, through one cache with one rule. Reading never executes anything and
// never writes. The dashboard calls `DashboardReader.read()` after each watcher event (one
// watcher → one read → one reducer action); a read whose inputs hash like the last one hands
// back the same view, so an event storm never causes a redraw storm.
import * as path from "node:path";
import { ReadError, UsageError } from "../core/errors.ts";
import { sha256HexOfParts } from "../core/util/hash.ts";
import { statusReduction } from "../core/report.ts";
import type { Reduction } from "../core/ledger/state.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { listScopes, resolveTarget } from "../io/discover.ts";
import { loadSnapshot } from "./snapshot.ts";
import { DashCache } from "./dashboardCache.ts";
import type { Changed } from "./dashboardWatch.ts";
import type { Env } from "../io/run/shell.ts";
import { coordination } from "../io/coordination/active.ts";
import { loadApprovals, type ApprovalsView } from "./dashboardActs.ts";
import { loadPlanView, planProblem, type PlanView } from "./dashboardPlan.ts";

export { listScopes, DashCache };
export type { Env };
export const LOG_TAIL_LINES = 500;

export interface LogTail {
  file: string | null; // absolute; null outside a scope
  lines: string[]; // the last LOG_TAIL_LINES lines, raw (sanitized when shown)
  problem: string | null;
}

export interface DashData {
  snapshot: Snapshot;
  /** The verdict and counts (`kbz status`'s, without its 50,000 rows at 10,000 leaves: the panels draw their own). */
  reduction: Reduction;
  log: LogTail;
  /** PLAN.md, the scheduler's view and its advice; null without a scope or a PLAN.md. */
  plan: PlanView | null;
  approvals: ApprovalsView;
  /** Every scope of the root: a new one is announced, never opened by itself. */
  scopes: string[];
  /** The plan side was kept from an earlier read (no panel on screen shows it): the digest it was read with. */
  planKept: boolean;
  planHash: string;
  /** Digest of every input read: equal digests mean nothing visible changed. */
  hash: string;
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
  env: Env; // PATH, shell and approval coord: what an approval binds
}

function readLogTail(root: string, scope: string | null, inputs: string[]): LogTail {
  if (!scope) return { file: null, lines: [], problem: null };
  const file = path.join(root, ".unlazy", scope, "status.log");
  try {
    // Through the coordination adapter: the file, or the coordinator's log when one is set.
    const lines = coordination(root).statusLog(scope, LOG_TAIL_LINES);
    inputs.push(lines.join("\n"));
    return { file, lines, problem: null };
  } catch (e) {
    if (e instanceof ReadError) return { file, lines: [], problem: e.located() };
    throw e;
  }
}

function digest(parts: string[]): string {
  return sha256HexOfParts(parts.flatMap((p) => [p, "\0"]));
}

/**
 * Everything the dashboard shows, in one read. A scope the reader once opened stays open (a
 * second scope appearing never turns an open view into the scope picker; `data.scopes` names it).
 */
export function readDashboard(
  src: DashSource,
  cache?: DashCache,
  kept?: { plan: PlanView | null; hash: string } | null,
): DashView {
  let target;
  try {
    const resolve = () => resolveTarget({ root: src.root, scope: src.scope });
    target = cache ? cache.target(src.root, src.scope, resolve) : resolve();
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    // Several scopes and none chosen: the dashboard asks instead of guessing.
    const scopes = src.scope ? [] : listScopes(src.root);
    if (scopes.length > 1) return { kind: "pick", root: src.root, scopes };
    return { kind: "error", root: src.root, message: e.message };
  }
  if (target.mode === "none") return { kind: "empty", root: src.root };
  const snapshot = loadSnapshot(target, cache?.load);
  const scopes = target.mode === "scope" ? listScopes(src.root) : [];
  const inputs: string[] = [target.mode, target.scope ?? "", ...target.files, ...scopes];
  for (const l of snapshot.ledgers)
    inputs.push(cache ? cache.token(l) : (l.ledger?.text ?? ""), ...l.problems.map((p) => `${p.line}:${p.message}`));
  for (const p of snapshot.problems) inputs.push(`${p.file}:${p.line}:${p.message}`);
  for (const g of snapshot.gates) if (g.reason) inputs.push(`${g.qid}:${g.state}:${g.reason}`);
  inputs.push(JSON.stringify(snapshot.dispatch ?? null), ...(snapshot.removed ?? []));
  const log = readLogTail(src.root, target.scope, inputs);
  const approvals = loadApprovals(snapshot, src.env);
  inputs.push(approvals.problem ?? "", ...approvals.items.map((t) => `${t.qid}\0${t.signature}`));
  let plan: PlanView | null = kept?.plan ?? null;
  const planInputs: string[] = [];
  if (!kept && target.discoveryErrors.length === 0) {
    try {
      plan = loadPlanView(src.root, target.scope, src.slots, planInputs, cache?.texts);
    } catch (e) {
      plan = planProblem((e as Error).message);
      planInputs.push(`plan:${(e as Error).message}`);
    }
  }
  const planHash = kept ? kept.hash : digest(planInputs);
  inputs.push(planHash);
  const reduction = statusReduction(snapshot);
  return {
    kind: "ready",
    root: src.root,
    data: { snapshot, reduction, log, plan, approvals, scopes, planKept: !!kept, planHash, hash: digest(inputs) },
  };
}

/** The hash that decides whether a read changed anything. */
export function viewHash(v: DashView): string {
  switch (v.kind) {
    case "ready":
      return v.data.hash;
    case "pick":
      return `pick:${v.scopes.join(",")}`;
    case "empty":
      return "empty";
    case "error":
      return `error:${v.message}`;
  }
}

/**
 * A long-lived reader: one cache for its life, the scope it opened pinned, and the last view
 * handed back again when nothing changed (so React sees the same object).
 */
export class DashboardReader {
  private readonly cache = new DashCache();
  private last: DashView | null = null;
  private lastHash = "";

  constructor(private src: DashSource) {}

  get source(): DashSource {
    return this.src;
  }

  /**
   * One read of everything the view shows. With `plan` false the plan side (PLAN.md and `kbz
   * next`'s snapshot, the costliest part of a big scope) is kept from the last read of the same
   * scope: the Gates, Approvals and Log panels do not show it, and a write reaches them sooner.
   * `changed`: the files a watcher event named (the other ledgers are taken as last read);
   * absent or null, every file is checked.
   */
  read(opts: { plan: boolean; changed?: Changed } = { plan: true }): DashView {
    let next: DashView;
    const last = this.last;
    const kept =
      !opts.plan && last?.kind === "ready" && last.data.snapshot.target.scope === this.src.scope
        ? { plan: last.data.plan, hash: last.data.planHash }
        : null;
    // A read named by a watcher event re-reads only the ledgers it named (ops/dashboardCache.ts).
    this.cache.expect(opts.changed ?? null);
    try {
      next = readDashboard(this.src, this.cache, kept);
    } catch (e) {
      next = { kind: "error", root: this.src.root, message: (e as Error).message };
    }
    // The scope inferred when it was the only one is pinned: a second one never moves the view.
    if (next.kind === "ready" && this.src.scope === null && next.data.snapshot.target.scope)
      this.src = { ...this.src, scope: next.data.snapshot.target.scope };
    const h = viewHash(next);
    if (this.last && h === this.lastHash) return this.last;
    this.last = next;
    this.lastHash = h;
    return next;
  }
}
