// kbz verify: acceptance receipts that are reused only while their inputs are unchanged
// (docs/formats.md#receipts). `run` checks once and records; `audit` and `explain` only read.
import * as path from "node:path";
import { kbz } from "../core/text/command.ts";
import { isDeliberate, type KbzError, UsageError } from "../core/errors.ts";
import { verdictLines } from "../core/ledger/state.ts";
import { cwdShown, pathFacts } from "../core/run/show.ts";
import { VerificationError, verificationText } from "../core/receipts/errors.ts";
import type { CheckResult } from "../ops/check.ts";
import {
  auditReceipts,
  explainLedger,
  verifyLedgers,
  verifyCwd,
  verifyLedgersOnce,
  verifyPolicy,
  type Inspection,
  type LedgerResult,
  type Policy,
} from "../ops/verify.ts";
import { approvalLines, resultLines } from "./render.ts";
import type { ExitCode, Verb } from "./index.ts";
import { rootFor } from "./context.ts";
import { emit, envelope, fail, USAGE_HINT } from "./envelope.ts";
import { err, out } from "./output.ts";
import { positionals } from "./options.ts";
import { plural } from "../core/text/plural.ts";

interface VerifyArgs {
  action?: string;
  ledger?: string[];
  "--"?: string[];
  inputs?: string;
  env?: string;
  closed?: boolean;
  approve?: boolean;
  reviewed?: boolean;
  portable?: boolean;
  cwd?: string;
  root?: string;
  json?: boolean;
}

const ACTIONS = ["run", "audit", "explain"];
const RUN_ONLY = ["inputs", "env", "closed", "approve", "reviewed", "portable", "cwd"] as const;
/** verify-once kept the last 3500 characters of the checker's output as the diagnostic. */
const DIAGNOSTIC_CHARS = 3500;

function ledgersOf(argv: VerifyArgs, root: string): string[] {
  return verifyLedgers(root, positionals(argv));
}

function policyOf(argv: VerifyArgs, root: string): Policy {
  return verifyPolicy(root, positionals(argv), {
    ...(argv.inputs === undefined ? {} : { inputs: String(argv.inputs).split(",") }),
    env: String(argv.env ?? "")
      .split(",")
      .filter((s) => s !== ""),
    closed: !!argv.closed,
    portable: !!argv.portable,
  });
}

/** The checker's transcript as `kbz check --reverify` would print it, last 3500 characters. */
function diagnostic(r: Extract<LedgerResult, { status: "REVIEW_OR_REPAIR" }>): string {
  const lines: string[] = [];
  const res: CheckResult | null = r.check;
  if (res) {
    for (const a of res.approvals) lines.push(...approvalLines(a), ...(a.problem ? [`kbz: ${a.problem}`] : []));
    for (const run of res.runs) {
      const o = run.task.oracle;
      lines.push(
        `  RUN  ${run.task.qid} shell=${o.shell} cwd=${cwdShown(run.task)} PATH=${pathFacts(o.path).transcript}`,
      );
    }
    for (const run of res.runs) lines.push(...resultLines(run), ...(run.writeError ? [`kbz: ${run.writeError}`] : []));
    for (const l of res.snapshot.ledgers)
      lines.push(`${path.basename(l.file)}: ${plural(l.ledger?.gates.length ?? 0, "gate")}`);
    for (const p of res.problems) lines.push(`${p.file}:${p.line}: ${p.message}`);
    lines.push(...verdictLines(res.reduction, res.note, res.snapshot.target.scope));
  }
  if (r.error) lines.push(`kbz: ${r.error}`);
  const text = lines.join("\n") + "\n";
  return text.length > DIAGNOSTIC_CHARS ? text.slice(-DIAGNOSTIC_CHARS) : text;
}

function resultJson(r: LedgerResult): Record<string, unknown> {
  if (r.status !== "REVIEW_OR_REPAIR") return { ...r };
  return { status: r.status, ledger: r.ledger, exit: r.exit, reason: r.reason, diagnostic: diagnostic(r) };
}

function printResult(r: LedgerResult): void {
  switch (r.status) {
    case "CURRENT_EVIDENCE":
      return out(`CURRENT_EVIDENCE ${r.ledger}: receipt reused, nothing executed`);
    case "ACCEPTED":
      return out(
        `ACCEPTED ${r.ledger}: checked once; ${r.reusable ? "receipt reusable while its inputs stay unchanged" : "not reusable (run without --closed)"}`,
      );
    case "MANUAL_REVIEW_REQUIRED":
      return out(`MANUAL_REVIEW_REQUIRED ${r.ledger}: review its manual gates, then run again with --reviewed`);
    case "REVIEW_OR_REPAIR":
      out(`REVIEW_OR_REPAIR ${r.ledger}: ${r.reason} (check exit ${r.exit})`);
      for (const line of diagnostic(r).replace(/\n$/, "").split("\n")) out(`  ${line}`);
  }
}

async function run(argv: VerifyArgs, root: string, asJson: boolean): Promise<ExitCode> {
  const policy = policyOf(argv, root);
  const ledgers = ledgersOf(argv, root);
  const cwd = argv.cwd === undefined ? undefined : verifyCwd(root, argv.cwd);
  const results = await verifyLedgersOnce({
    root,
    ledgers,
    policy,
    approve: !!argv.approve,
    reviewed: !!argv.reviewed,
    cwd,
    env: process.env,
    onResult: asJson ? undefined : printResult,
  });
  const exit: ExitCode = results.every((r) => r.status === "ACCEPTED" || r.status === "CURRENT_EVIDENCE") ? 0 : 1;
  if (asJson)
    return emit(
      envelope(exit === 0 ? "accepted" : "needs-review", exit, {
        action: "run",
        policy,
        results: results.map(resultJson),
      }),
    );
  return exit;
}

function audit(argv: VerifyArgs, root: string, asJson: boolean): ExitCode {
  const ledgers = ledgersOf(argv, root);
  const results: Inspection[] = auditReceipts(root, ledgers, process.env);
  const stale = results.filter((r) => !r.current).length;
  const status = stale === 0 ? "CURRENT_EVIDENCE" : "STALE_EVIDENCE";
  const exit: ExitCode = stale === 0 ? 0 : 1;
  if (asJson) return emit(envelope(status, exit, { action: "audit", status, results }));
  for (const r of results)
    out(r.current ? `CURRENT ${r.key}` : `STALE   ${r.key}: ${r.reason} (${kbz("verify explain", r.key)} says why)`);
  out(
    stale === 0
      ? `CURRENT_EVIDENCE (${results.length} current)`
      : `STALE_EVIDENCE (${stale} of ${results.length} stale)`,
  );
  return exit;
}

function explain(argv: VerifyArgs, root: string, asJson: boolean): ExitCode {
  const ledgers = ledgersOf(argv, root);
  if (ledgers.length !== 1) throw new UsageError("explain takes exactly one ledger");
  const e = explainLedger(root, ledgers[0]!, process.env);
  const exit: ExitCode = e.current ? 0 : 1;
  if (asJson) return emit(envelope(e.current ? "current" : "stale", exit, { action: "explain", ...e }));
  if (e.current) out(`${e.key}: receipt is current; nothing it is bound to changed since acceptance`);
  else {
    out(`${e.key}: receipt not reusable (${e.reason}) because:`);
    for (const c of e.changes) out(`  - ${c.text}`);
  }
  return exit;
}

/**
 * verify-once's INVALID for a usage or input failure: a receipt's own failure in its wording
 * (`<file>:<line>: …` for file content, else `kbz: …`), any other as every verb prints it; with
 * --json one object.
 */
function invalid(e: KbzError, asJson: boolean): ExitCode {
  const verification = e instanceof VerificationError ? e : null;
  // verify-once's INVALID object keys (status, reason, file/line/path/detail) stay inside the envelope.
  if (asJson)
    return fail(e, true, { status: "INVALID", reason: verification?.reason ?? e.message, ...verification?.where });
  if (!verification) return fail(e, false);
  err(
    verification.where.file !== undefined ? verificationText(verification) : `kbz: ${verificationText(verification)}`,
  );
  if (e.hint && e.hint !== USAGE_HINT) err(`  hint: ${e.hint}`);
  return 2;
}

export async function handleVerify(argv: VerifyArgs): Promise<ExitCode> {
  const asJson = !!argv.json;
  try {
    const action = argv.action;
    if (action === undefined || !ACTIONS.includes(action)) throw new UsageError("run, audit or explain required");
    if (action !== "run" && RUN_ONLY.some((o) => argv[o] !== undefined))
      throw new UsageError(`${action} accepts only --root, --json and ledgers`);
    const root = rootFor(argv);
    // Ledgers are relative to --root; without it, to the folder kbz was started in.
    if (argv.root === undefined && root !== rootFor({ root: process.cwd() })) {
      argv.ledger = positionals(argv).map((f) => path.relative(root, path.resolve(f)));
      argv["--"] = [];
    }
    if (action === "run") return await run(argv, root, asJson);
    return action === "audit" ? audit(argv, root, asJson) : explain(argv, root, asJson);
  } catch (e) {
    if (isDeliberate(e) && (e.kind === "usage" || e.kind === "input")) return invalid(e, asJson);
    throw e;
  }
}

export const verb: Verb = {
  command: "verify [action] [ledger..]",
  describe: "check once, keep a receipt, reuse it while its inputs are unchanged",
  builder: (y) =>
    y
      .positional("action", { type: "string", describe: "run, audit or explain" })
      .positional("ledger", { type: "string", array: true, describe: "ledger paths" })
      .option("inputs", {
        type: "string",
        describe: "run: files/folders the checks read, a,b (default: OWNS and reads)",
        requiresArg: true,
      })
      .option("closed", { type: "boolean", describe: "run: the inputs are complete (receipt reusable)" })
      .option("env", { type: "string", describe: "run: env names the checks read, a,b", requiresArg: true })
      .option("approve", { type: "boolean", describe: "run: approve pending oracles first" })
      .option("reviewed", { type: "boolean", describe: "run: the manual gates were reviewed; accept them" })
      .option("cwd", { type: "string", describe: "run: the CHECKs' folder, relative to --root", requiresArg: true })
      .option("portable", { type: "boolean", describe: "run: leave PATH out of the binding" })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilogue(
        `run: the checks as ${kbz("check", { reverify: true })} (same approvals and evidence); --closed makes the receipt reusable.\n` +
          "audit: read-only current-evidence check; never runs or approves.\n" +
          "explain: which input, gate, environment value, contract revision or verifier changed.\n" +
          "More: docs/scopes.md (receipts).\n" +
          "exit codes (as verify-once): 0 accepted/current; 1 unmet, stale, manual review or review-or-repair; 2 invalid input or infrastructure.",
      ),
  handler: (argv) => handleVerify(argv as VerifyArgs),
};
