// `kbz check` as a use case: run the approved, unmet runnable gates of what a command targets and
// write their evidence back (ops/checkRun.ts runChecks), then add each result to the scope's log,
// as claims and waves are. The vacuity probe (`--probe`) is its sibling. Options in, data out:
// the CLI (and `kbz verify run`, the dashboard) print the result.
import { MAX_CHECK_DEPTH } from "../io/check/chain.ts";
import { runProbes, probeLine, type ProbeItem, type ProbeRequest, type ProbeResult } from "./probe.ts";
import {
  DEFAULT_TIMEOUT_S,
  runChecks,
  type ApprovalItem,
  type CheckObserver,
  type CheckRequest,
  type CheckResult,
  type RunReport,
} from "./checkRun.ts";
import type { CheckTask } from "../io/check/plan.ts";
import { containment } from "../io/run/contain.ts";
import { coordinationFor } from "../io/coordination/active.ts";
import { checkEvents, logEvent } from "../io/coordination/events.ts";

import { oracleEditedLine } from "../io/check/judged.ts";

export { DEFAULT_TIMEOUT_S, MAX_CHECK_DEPTH, oracleEditedLine, probeLine };
export type {
  ApprovalItem,
  CheckObserver,
  CheckRequest,
  CheckResult,
  CheckTask,
  ProbeItem,
  ProbeRequest,
  ProbeResult,
  RunReport,
};

export interface CheckOutcome {
  result: CheckResult;
  /** The scope's log could not take a result line (the run itself stands). */
  logWarnings: string[];
}

/** Run the checks; a scoped run's results join its status log. */
export async function checkGates(req: CheckRequest): Promise<CheckOutcome> {
  const result = await runChecks(req);
  const logWarnings: string[] = [];
  const scope = result.snapshot.target.scope;
  if (scope) {
    for (const e of checkEvents(result.runs)) {
      const warning = await logEvent(coordinationFor(result.snapshot.target.root), scope, e);
      if (warning) logWarnings.push(warning);
    }
  }
  return { result, logWarnings };
}

/**
 * Run the checks without adding result lines to the scope's log: `kbz advance` records its own
 * transaction (the return, the leaf's state change) instead.
 */
export function runLedgerChecks(req: CheckRequest): Promise<CheckResult> {
  return runChecks(req);
}

/** The process-tree containment in force: one line for --help, and the warning a weak level prints. */
export function checkContainment(): { describe: string; warning: string | null } {
  const c = containment();
  return { describe: c.describe, warning: c.warning };
}

/** `kbz check --probe`, `kbz lint --probe`: re-run each passed gate with its deliverable hidden. */
export function probeGates(req: ProbeRequest): Promise<ProbeResult> {
  return runProbes(req);
}
