// The status report: a snapshot folded into counts, per-gate rows and a verdict.
import type { Snapshot } from "./snapshot.ts";
import { reduce, unmetReason, verdictExit, type GateState, type Reduction } from "./ledger/state.ts";

export interface GateRow {
  qid: string;
  file: string;
  id: string;
  line: number;
  title: string;
  state: GateState;
  reason: string | null;
  runnable: boolean;
  /** The vacuity probe passed this gate with its deliverable hidden (a warning, issue 18). */
  vacuous?: string[];
}

export interface StatusReport {
  schema: 1;
  root: string;
  mode: string;
  scope: string | null;
  verdict: Reduction["verdict"];
  exit: 0 | 1;
  counts: { ledgers: number; gates: number; met: number; unmet: number; abandoned: number };
  ledgers: { file: string; stem: string; gates: number }[];
  gates: GateRow[];
  unmet: string[];
  abandoned: string[];
  /** Scoped runs: the dispatch aggregate folded into the verdict (open/sealed block, abandoned hand off). */
  dispatch: { resolved: string[]; blocking: string[]; abandoned: string[] } | null;
}

/** The verdict of a snapshot without its per-gate rows (the dashboard draws its own rows). */
export function statusReduction(snap: Snapshot, more: Parameters<typeof reduce>[1] = {}): Reduction {
  const d = snap.dispatch;
  return reduce(snap.gates, {
    ...more,
    blocking: [...(more.blocking ?? []), ...(d?.blocking ?? []), ...(snap.removed ?? [])],
    abandoned: [...(more.abandoned ?? []), ...(d?.abandoned ?? [])],
  });
}

export function statusReport(
  snap: Snapshot,
  more: Parameters<typeof reduce>[1] = {},
): { report: StatusReport; reduction: Reduction } {
  const d = snap.dispatch;
  const reduction = statusReduction(snap, more);
  const display = new Map(snap.ledgers.map((l) => [l.file, l.display]));
  const rows: GateRow[] = snap.gates.map((v) => ({
    qid: v.qid,
    file: display.get(v.file)!,
    id: v.gate.id,
    line: v.gate.line,
    title: v.gate.title,
    state: v.state,
    reason: v.reason ?? (unmetReason(v.state) || null),
    runnable: !!v.gate.check && !!v.gate.expect,
    ...(v.vacuous ? { vacuous: v.vacuous } : {}),
  }));
  const report: StatusReport = {
    schema: 1,
    root: snap.target.root,
    mode: snap.target.mode,
    scope: snap.target.scope,
    verdict: reduction.verdict,
    exit: verdictExit(reduction),
    counts: {
      ledgers: snap.ledgers.length,
      gates: snap.gates.length,
      met: reduction.met,
      unmet: reduction.unmet,
      abandoned: reduction.abandoned,
    },
    ledgers: snap.ledgers.map((l) => ({ file: l.display, stem: l.stem, gates: l.ledger?.gates.length ?? 0 })),
    gates: rows,
    unmet: reduction.unmetIds,
    abandoned: reduction.abandonedIds,
    dispatch: d ? { resolved: d.resolved, blocking: d.blocking, abandoned: d.abandoned } : null,
  };
  return { report, reduction };
}
