// Text renderings shared by several verbs (status, check, verify, dash, the default verb). Each
// returns or prints lines; the JSON side is the envelope (envelope.ts).
import { oracleEditedLine, type ApprovalItem, type CheckResult, type RunReport } from "../ops/check.ts";
import * as path from "node:path";
import type { BoundOracle, ProgramsOracle } from "../core/run/oracle.ts";
import { cwdShown, pathFacts, sandboxLine, shortSignature } from "../core/run/show.ts";
import { GATE_LABEL, reasonAfterLabel, verdictLines } from "../core/ledger/state.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { statusView } from "../ops/status.ts";
import { emit, envelope, type ExitCode } from "./envelope.ts";
import { err, out, printWarnings } from "./output.ts";
import { plural } from "../core/text/plural.ts";
import { kbz } from "../core/text/command.ts";

/**
 * `shown`: the snapshot is only shown (the built-in demo), so the run succeeded whatever its verdict.
 * `all`: every gate; otherwise only the gates that are not met, under their ledger, and the counts.
 */
export function printStatus(snap: Snapshot, asJson: boolean, shown = false, all = true): ExitCode {
  const { report, reduction, notInScope, warnings, receipts } = statusView(snap, process.env);
  printWarnings(warnings);
  if (receipts?.error) err(`kbz: receipts not audited: ${receipts.error}`);
  const fields = { ...report, ...(receipts ? { receipts: receipts.receipts } : {}), notInScope };
  if (asJson) return emit(envelope(report.verdict, shown ? 0 : report.exit, fields));
  let hidden = 0;
  for (const l of snap.ledgers) {
    const rows = report.gates.filter((g) => g.file === l.display);
    const shownRows = all ? rows : rows.filter((g) => g.state !== "met");
    hidden += rows.length - shownRows.length;
    if (shownRows.length === 0 && !all) continue;
    out(`${l.display}: ${plural(rows.length, "gate")}`);
    for (const g of shownRows) {
      const why = g.reason ? ` (${reasonAfterLabel(GATE_LABEL[g.state], g.reason)})` : "";
      out(`  ${GATE_LABEL[g.state].padEnd(11)} ${g.qid}${why}: ${g.title}`);
    }
  }
  for (const r of receipts?.receipts ?? []) {
    if (r.issue)
      out(`  ${"RECEIPT".padEnd(11)} ${r.ledger}: verification-${r.issue} (${kbz("verify explain", r.ledger)})`);
  }
  for (const item of snap.dispatch?.blocking ?? []) out(`  ${"UNMET".padEnd(11)} ${item}`);
  for (const item of snap.removed ?? []) out(`  ${"REMOVED".padEnd(11)} ${item.replace(" REMOVED (", " (")}`);
  for (const item of snap.dispatch?.abandoned ?? []) out(`  ${"ABANDONED".padEnd(11)} ${item}`);
  for (const line of verdictLines(reduction, "", snap.target.scope, false)) out(line);
  if (hidden > 0 && reduction.verdict !== "all-met")
    out(`(${plural(hidden, "met gate")} not listed; --all lists them)`);
  return report.exit;
}

/**
 * The stdout lines for one approval decision (none when it was already approved). Short form: the
 * PATH is left out (printed once, summarised, by pathSummaryLine); verbose is unlazy's transcript.
 */
export function approvalLines(
  item: ApprovalItem,
  verbose = true,
  bySignature = false,
  scope: string | null = null,
): string[] {
  const t = item.task;
  if (item.status === "approved" || (item.status === "failed" && !item.problem?.startsWith("could not record")))
    return [];
  // Issue 39: the edit is a proposal; the work is judged against the approved oracle (docs/checks.md#approved-oracle).
  if (item.status === "judged") return [oracleEditedLine(item.judged!.edited, scope)];
  // Consent covers what was shown (issue 28 item 5): an approval prints the whole oracle it approves.
  const sig = shortSignature(t.signature);
  // An oracle waiting for the person, to the agent: one line; the PERSON line names the command,
  // and the person's own review shows the whole oracle (issue 43; --verbose prints it here too).
  if (item.status === "required" && !verbose)
    return [`APPROVAL REQUIRED ${t.qid} [${sig}]`, ...(item.differs ?? []).map((d) => `    ${d}`)];
  const lines = [
    item.status === "recorded" ? `APPROVING ${t.qid} [${sig}]` : `APPROVAL REQUIRED ${t.qid} [${sig}]`,
    `    CHECK: ${t.oracle.check}`,
    `    EXPECT: ${t.oracle.expect}`,
    `    CWD: ${cwdShown(t)}`,
    `    SHELL: ${t.oracle.shell}`,
  ];
  if (verbose) lines.push(`    PATH: ${pathFacts(t.oracle.path).transcript}`);
  if (t.oracle.sandbox) lines.push(`    SANDBOX: ${sandboxLine(t.oracle.sandbox)}`);
  lines.push(...oracleLines(t.oracle.bound));
  lines.push(...programLines(t.oracle.programs));
  lines.push(...(item.differs ?? []).map((d) => `    ${d}`));
  if (item.noView) lines.push(`    not judged against the approved oracle: ${item.noView}`);
  if (item.status === "required") {
    // Only kbz check takes --approve=<sig>; the other verbs approve what they printed with --approve.
    const flag = bySignature ? `--approve=${sig}` : "--approve";
    // Short form: who approves and where (the agent's own --approve is refused under the person
    // policy, so it is never told to re-run with it), then the same check again (issue 30 trial).
    const person = `a person approves it in their terminal (${kbz("approve", scope ? { scope } : {})}, or ${flag}); then run ${kbz("check", scope ? { scope } : {})} again`;
    lines.push(verbose ? `    NOT RUN: inspect this oracle, then re-run with ${flag}` : `    NOT RUN: ${person}`);
  }
  if (item.status === "recorded") lines.push(verbose ? `    APPROVED: ${item.record}` : `  APPROVED ${t.qid}`);
  return lines;
}

/** The files and ENV names an approval binds beyond the CHECK text (issue 27), one line each kind. */
export function oracleLines(bound: BoundOracle | undefined): string[] {
  if (!bound) return [];
  const lines: string[] = [];
  const files = Object.keys(bound.files);
  if (files.length > 0)
    lines.push(
      `    ORACLE FILES: ${files.map((f) => (bound.files[f] === "missing" ? `${f} (missing)` : f)).join(", ")}`,
    );
  const env = Object.keys(bound.env);
  if (env.length > 0)
    lines.push(`    ENV: ${env.map((n) => (bound.env[n] === "unset" ? `${n} (unset)` : n)).join(", ")}`);
  return lines;
}

/** What the approval binds of PATH (issue 39): the programs as they resolve, PATH folders inside the root, and who observed the files. */
export function programLines(p: ProgramsOracle | undefined): string[] {
  if (!p) return [];
  // Under the default observer (the static closure) with no PATH folder inside the root there is
  // nothing beyond unlazy's oracle lines to say, and unlazy's transcripts stay as they were.
  if (p.observer !== "strace" && p.pathInRoot.length === 0) return [];
  const names = Object.keys(p.resolved);
  const runs = names.map((n) => `${n} ${p.resolved[n]!.split(" ")[0]}`).join(", ");
  const lines = [
    `    PROGRAMS: ${runs || "(none by name)"}; files seen by ${p.observer === "strace" ? "strace" : "the static closure"}`,
  ];
  if (p.pathInRoot.length > 0) lines.push(`    PATH INSIDE THE ROOT: ${p.pathInRoot.join(", ")}`);
  return lines;
}

/** The PATH every CHECK of this run binds, once: entry count and digest (the full list with --verbose). */
export function pathSummaryLine(value: string): string {
  const [digest, entries] = pathFacts(value).fingerprint.split("/");
  return `PATH: ${entries} (sha256 ${digest}; --verbose prints it)`;
}

/** One line for a pass (two with verbose), two for a failure. */
export function resultLines(r: RunReport, verbose = true): string[] {
  const o = r.outcome;
  const head = `${o.ok ? "  PASS" : "  FAIL"} ${r.task.qid}: ${r.task.gate.title}${r.judged ? " (judged against the approved oracle)" : ""}`;
  if (o.ok)
    return verbose
      ? [head, `       exit=0; EXPECT=matched; output=sha256=${o.outputSha256}; bytes=${o.bytes}`]
      : [head];
  const error = o.error ? `${o.error}; ` : "";
  const signal = o.signal ? ` signal=${o.signal}` : "";
  const matched = o.matched ? "matched" : "not matched";
  return [head, `       ${error}exit=${o.exitCode ?? "none"}${signal}; EXPECT=${matched}; output=${o.summary}`];
}

/**
 * What a finished run prints after its approvals: one line per passed gate (two with verbose),
 * two per failure, stale results, the per-ledger gate counts (verbose), then the verdict.
 */
export function compactRunLines(res: CheckResult, verbose: boolean): string[] {
  const lines: string[] = [];
  const showPath = verbose ? () => {} : (v: string) => lines.length === 0 && lines.push(pathSummaryLine(v));
  for (const a of res.approvals) {
    const block = approvalLines(a, verbose);
    if (block.length > 1) showPath(a.task.oracle.path);
    lines.push(...block);
  }
  for (const r of res.runs) lines.push(...resultLines(r, verbose));
  for (const r of res.runs)
    if (r.writeback === "stale")
      lines.push(`  STALE ${r.task.qid}: definition or runtime approval oracle changed; result not written`);
  if (verbose)
    for (const l of res.snapshot.ledgers)
      lines.push(`${path.basename(l.file)}: ${plural(l.ledger?.gates.length ?? 0, "gate")}`);
  return lines;
}
