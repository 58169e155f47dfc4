// Receipt issues of a scope's ledgers, for `kbz status --scope`: the same audit the scheduler
// uses (`managedEvidenceIssue`), reported per ledger that has a receipt.
import * as path from "node:path";
import type { Env } from "../run/shell.ts";
import { lstatOrNull } from "../fs.ts";
import { managedEvidenceIssue } from "./audit.ts";
import { VerificationError, verificationText } from "../../core/receipts/errors.ts";
import { ledgerKey } from "./paths.ts";
import { readReceiptFile, receiptOf, receiptFilePath } from "./file.ts";
import { leafLedgerName } from "../../core/plan/leaf-id.ts";

export interface ReceiptIssue {
  ledger: string; // root-relative key
  issue: string | null; // null: current (or accepted without --closed and unchanged)
}

export interface ScopeReceipts {
  receipts: ReceiptIssue[];
  error: string | null; // the receiptFile or an input could not be audited
}

/**
 * The structure checker's view (docs/formats.md#structure-verification, only when it reads with root and scope): VERIFIED
 * leaf id → receipt issue, for leaves whose receipt is not current.
 */
export function leafReceiptIssues(
  root: string,
  scope: string,
  rows: readonly { id: string; state: string }[],
  env: Env,
): Record<string, string> {
  const issues: [string, string][] = [];
  if (lstatOrNull(receiptFilePath(root)) === null) return {};
  const receiptFile = readReceiptFile(root);
  for (const r of rows) {
    if (r.state !== "VERIFIED") continue;
    const issue = managedEvidenceIssue(root, `.unlazy/${scope}/gates/${leafLedgerName(r.id)}`, { receiptFile, env });
    if (issue) issues.push([r.id, issue]);
  }
  return Object.fromEntries(issues);
}

/** null when the repository has no receipt receiptFile at all (scopes that never opted in). */
export function scopeReceipts(root: string, files: string[], env: Env): ScopeReceipts | null {
  if (lstatOrNull(receiptFilePath(root)) === null) return null;
  const receipts: ReceiptIssue[] = [];
  try {
    const receiptFile = readReceiptFile(root);
    for (const abs of files) {
      const rel = path.relative(root, abs).split(path.sep).join("/");
      if (!receiptOf(receiptFile, ledgerKey(root, rel))) continue;
      receipts.push({ ledger: rel, issue: managedEvidenceIssue(root, rel, { receiptFile, env }) });
    }
  } catch (e) {
    if (e instanceof VerificationError) return { receipts, error: verificationText(e) };
    throw e;
  }
  return { receipts, error: null };
}
