// `kbz status` as a use case: the snapshot of what a command targets, and the report on it with
// what surrounds it (root ledgers beside a scope, the scope's verification receipts). Options in,
// data out; render.ts prints it as text or the JSON envelope. Never executes, never writes.
import type { Reduction } from "../core/ledger/state.ts";
import { statusReport, type StatusReport } from "../core/report.ts";
import type { Snapshot } from "../core/snapshot.ts";
import type { FileProblem } from "../core/errors.ts";
import { snapshotForRequest, type TargetRequest } from "./snapshot.ts";
import { scopeReceipts, type ScopeReceipts } from "../io/receipts/scope.ts";
import { besideScopeWarning, ledgersBesideScope } from "../io/root.ts";
import type { Env } from "../io/run/shell.ts";

export type { TargetRequest };

/** Resolve what a command targets and read it (usage problems are thrown, file problems returned). */
export function statusSnapshot(req: TargetRequest): Snapshot {
  return snapshotForRequest(req);
}

export interface StatusView {
  report: StatusReport;
  reduction: Reduction;
  /** Root ledgers beside the scope that this verdict does not judge. */
  notInScope: string[];
  /** Every warning to print before the report: ledgers' and the ledgers beside the scope. */
  warnings: FileProblem[];
  /** A scoped run also audits the verification receipts (informational; the verdict is the gates'). */
  receipts: ScopeReceipts | null;
}

/** The report on a snapshot, with the receipts of a scope audited (docs/formats.md#receipts). */
export function statusView(snap: Snapshot, env: Env): StatusView {
  const { report, reduction } = statusReport(snap);
  const judged = new Set(snap.ledgers.map((l) => l.display));
  const beside = ledgersBesideScope(snap.target.root, snap.target.mode).filter((f) => !judged.has(f));
  const warnings = [
    ...snap.ledgers.flatMap((l) => l.warnings),
    ...beside.map((file) => ({ file, line: 1, message: besideScopeWarning(snap.target.scope, file) })),
  ];
  const receipts =
    snap.target.mode === "scope"
      ? scopeReceipts(
          snap.target.root,
          snap.ledgers.map((l) => l.file),
          env,
        )
      : null;
  return { report, reduction, notInScope: beside, warnings, receipts };
}
