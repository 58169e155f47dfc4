// Text renderings shared by several verbs (status, check, verify, dash, the default verb). Each
// returns or prints lines; the JSON side is the envelope (envelope.ts).
import type { ApprovalItem, RunReport } from "../io/check/run.ts";
import { verdictLines } from "../core/ledger/state.ts";
import { scopeReceipts } from "../io/receipts/scope.ts";
import { statusReport } from "../core/report.ts";
import { sandboxLine } from "../io/run/sandbox.ts";
import { pathFacts } from "../io/run/shell.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { emit, envelope, type ExitCode } from "./envelope.ts";
import { err, out, printWarnings } from "./output.ts";

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
  // Scoped runs also audit verification receipts (docs/formats.md#receipts); informational, the verdict is the gates'.
  const receipts = snap.target.mode === "scope" ? scopeReceipts(snap.target.root, snap.ledgers.map((l) => l.file), process.env) : null;
  if (receipts?.error) err(`kbz: receipts not audited: ${receipts.error}`);
  if (asJson) return emit(envelope(report.verdict, report.exit, receipts ? { ...report, receipts: receipts.receipts } : { ...report }));
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

/** The stdout lines for one approval decision (none when it was already approved). */
export function approvalLines(item: ApprovalItem): string[] {
  const t = item.task;
  if (item.status === "approved" || (item.status === "failed" && !item.problem?.startsWith("could not record"))) return [];
  const lines = [
    `APPROVAL REQUIRED ${t.qid}`,
    `    CHECK: ${t.oracle.check}`,
    `    EXPECT: ${t.oracle.expect}`,
    `    CWD: ${t.oracle.cwd}`,
    `    SHELL: ${t.oracle.shell}`,
    `    PATH: ${pathFacts(t.oracle.path).transcript}`,
  ];
  if (t.oracle.sandbox) lines.push(`    SANDBOX: ${sandboxLine(t.oracle.sandbox)}`);
  if (item.status === "required") lines.push("    NOT RUN: inspect this oracle, then re-run with --approve");
  if (item.status === "recorded") lines.push(`    APPROVED: ${item.record}`);
  return lines;
}

export function resultLines(r: RunReport): string[] {
  const o = r.outcome;
  const head = `${o.ok ? "  PASS" : "  FAIL"} ${r.task.qid}: ${r.task.gate.title}`;
  if (o.ok) return [head, `       exit=0; EXPECT=matched; output=sha256=${o.outputSha256}; bytes=${o.bytes}`];
  const error = o.error ? `${o.error}; ` : "";
  const signal = o.signal ? ` signal=${o.signal}` : "";
  const matched = o.matched ? "matched" : "not matched";
  return [head, `       ${error}exit=${o.exitCode ?? "none"}${signal}; EXPECT=${matched}; output=${o.summary}`];
}

