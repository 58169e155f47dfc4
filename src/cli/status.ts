// kbz status: report every gate's state and the verdict; never executes, never writes.
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { statusReport } from "../core/report.ts";
import { dispatchProblems, type Snapshot } from "../core/snapshot.ts";
import { snapshotForRequest } from "../io/read.ts";
import { verdictLines } from "../core/ledger/state.ts";
import { scopeReceipts } from "../core/receipts/scope.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, json, out, printWarnings } from "./output.ts";
import { positionals, targetOptions } from "./options.ts";

export interface TargetArgs {
  ledger?: string[];
  "--"?: string[];
  scope?: string;
  root?: string;
}

export function snapshotFor(argv: TargetArgs): Snapshot {
  const files = positionals(argv);
  if (files.length > 0 && argv.scope !== undefined) throw new UsageError("explicit ledger files cannot be combined with --scope");
  const snap = snapshotForRequest({ root: argv.root, files, scope: argv.scope ?? process.env.UNLAZY_SCOPE ?? null });
  if (snap.problems.length > 0) {
    printWarnings(snap.ledgers.flatMap((l) => l.warnings));
    throw new FileProblemsError(snap.problems);
  }
  const invalidDispatch = dispatchProblems(snap);
  if (invalidDispatch.length > 0) throw new FileProblemsError(invalidDispatch);
  return snap;
}

const STATE_LABEL: Record<string, string> = {
  met: "MET",
  unmet: "UNMET",
  "stale-unmet": "STALE",
  "unmet-no-evidence": "NO-EVIDENCE",
  abandoned: "ABANDONED",
};

export function printStatus(snap: Snapshot, asJson: boolean): ExitCode {
  const { report, reduction } = statusReport(snap);
  printWarnings(snap.ledgers.flatMap((l) => l.warnings));
  // Scoped runs also audit verification receipts (kill §4.14.5); informational, the verdict is the gates'.
  const receipts = snap.target.mode === "scope" ? scopeReceipts(snap.target.root, snap.ledgers.map((l) => l.file), process.env) : null;
  if (receipts?.error) err(`kbz: receipts not audited: ${receipts.error}`);
  if (asJson) {
    json(receipts ? { ...report, receipts: receipts.receipts } : report);
    return report.exit;
  }
  for (const l of snap.ledgers) {
    const rows = report.gates.filter((g) => g.file === l.display);
    out(`${l.display}: ${rows.length} gates`);
    for (const g of rows) {
      const why = g.reason ? ` (${g.reason})` : "";
      out(`  ${STATE_LABEL[g.state]!.padEnd(11)} ${g.qid}${why}: ${g.title}`);
    }
  }
  for (const r of receipts?.receipts ?? []) {
    if (r.issue) out(`  ${"RECEIPT".padEnd(11)} ${r.ledger}: verification-${r.issue} (kbz verify explain ${r.ledger})`);
  }
  for (const item of snap.dispatch?.blocking ?? []) out(`  ${"UNMET".padEnd(11)} ${item}`);
  for (const item of snap.dispatch?.abandoned ?? []) out(`  ${"ABANDONED".padEnd(11)} ${item}`);
  for (const line of verdictLines(reduction, "", snap.target.scope, false)) out(line);
  return report.exit;
}

export const verb: Verb = {
  command: "status [ledger..]",
  describe: "show every gate's state and the verdict (never executes, never writes)",
  builder: (y) => targetOptions(y),
  handler: (argv) => printStatus(snapshotFor(argv), !!argv.json),
};
