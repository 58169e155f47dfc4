// The reuse rule (docs/formats.md#receipts) and the scheduler's view of it (docs/formats.md#receipts). Read-only: no
// execution, no approval, no writes. Reasons are checked in the spec's order; the first wins.
import { sha256Hex } from "../../core/util/hash.ts";
import { receiptRecord, verify } from "../../core/trace.ts";
import { computeContext, type ContextOptions, type Policy } from "./context.ts";
import { readLedger } from "./ledger.ts";
import { ledgerKey } from "./paths.ts";
import { readReceiptFile, receiptOf, type ReceiptFile } from "./file.ts";

export type ReceiptReason =
  | "missing-receipt"
  | "unfinished-verification"
  | "fresh-observation-required"
  | "changed-policy"
  | "changed-ledger-or-evidence"
  | "changed-inputs-or-verifier";

export type Inspection = { current: true; key: string } | { current: false; reason: ReceiptReason; key: string };

export interface AuditOptions extends ContextOptions {
  receiptFile?: ReceiptFile; // already read (the scheduler reads it once)
  expectedPolicy?: Policy; // `run` insists on its own policy; `audit` accepts any closed one
}

/** Plain JSON, insertion order: the policy's key order is part of its identity (docs/formats.md#ids). */
export const samePolicy = (a: Policy, b: Policy) => JSON.stringify(a) === JSON.stringify(b);

export function inspectReceipt(root: string, file: string, opts: AuditOptions): Inspection {
  const key = ledgerKey(root, file);
  const stale = (reason: ReceiptReason): Inspection => ({ current: false, reason, key });
  const receipt = receiptOf(opts.receiptFile ?? readReceiptFile(root), key);
  if (!receipt) return stale("missing-receipt");
  // An unfinished receipt, with or without a policy (the original's `running` record has none).
  const policy = receipt.status === "accepted" ? receipt.policy : undefined;
  if (policy === undefined) return stale("unfinished-verification");
  if (policy.closed !== true) return stale("fresh-observation-required");
  if (opts.expectedPolicy && !samePolicy(opts.expectedPolicy, policy)) return stale("changed-policy");
  const led = readLedger(root, file, opts.ledgerText);
  // One trace record (core/trace.ts): keyed on the ledger text, depending on the context, which
  // is computed only when the ledger matched (verify asks for key names first).
  const current = {
    digest: (n: string) =>
      n === "ledger"
        ? led.met
          ? sha256Hex(led.text)
          : "unmet"
        : n === "context"
          ? computeContext(root, led, policy, opts).value
          : undefined,
  };
  const v = verify(receiptRecord(key, receipt), current);
  if (v.status === "missing") return stale("changed-ledger-or-evidence");
  if (v.status === "stale") return stale("changed-inputs-or-verifier");
  return { current: true, key };
}

/**
 * What the scheduler (and a scoped status) reports for a ledger: nothing without a receipt
 * (scopes that never opted in are unaffected); for a non-closed acceptance only the ledger
 * check; otherwise the reuse rule's reason.
 */
export function managedEvidenceIssue(root: string, file: string, opts: AuditOptions): ReceiptReason | null {
  const receiptFile = opts.receiptFile ?? readReceiptFile(root);
  // No receipts at all (the common case for a scheduler run): nothing can be managed or stale.
  if (Object.keys(receiptFile.receipts).length === 0) return null;
  const receipt = receiptOf(receiptFile, ledgerKey(root, file));
  if (!receipt) return null;
  if (receipt.status === "accepted" && receipt.policy?.closed === false) {
    const led = readLedger(root, file, opts.ledgerText);
    return led.met && sha256Hex(led.text) === receipt.ledgerHash ? null : "changed-ledger-or-evidence";
  }
  const r = inspectReceipt(root, file, { ...opts, receiptFile });
  return r.current ? null : r.reason;
}
