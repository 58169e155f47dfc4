// `verify run` (docs/formats.md#receipts): per ledger, in order — reuse a current receipt, or withdraw the
// old one, run the official check in-process exactly as `kbz check --reverify` would (same
// approvals, same evidence), fingerprint before and after, and record the outcome.
import { isRunnable } from "../core/ledger/model.ts";
import { DEFAULT_TIMEOUT_S, runChecks, type CheckResult } from "./checkRun.ts";
import type { Env } from "../io/run/shell.ts";
import { sha256Hex } from "../core/util/hash.ts";
import { inspectReceipt } from "../io/receipts/audit.ts";
import { computeContext, type Context, type Policy } from "../io/receipts/context.ts";
import { VerificationError, verificationText } from "../core/receipts/errors.ts";
import { readLedger } from "../io/receipts/ledger.ts";
import { ledgerKey } from "../io/receipts/paths.ts";
import { putReceipt, withLedgerLock } from "../io/receipts/file.ts";
import type { Verifier } from "../io/receipts/verifier.ts";

export type LedgerResult =
  | { status: "CURRENT_EVIDENCE"; ledger: string; executed: 0 }
  | { status: "ACCEPTED"; ledger: string; executed: 1; reusable: boolean }
  | { status: "MANUAL_REVIEW_REQUIRED"; ledger: string }
  | {
      status: "REVIEW_OR_REPAIR";
      ledger: string;
      exit: number;
      reason: "inputs-changed-during-check" | "check-not-accepted";
      check: CheckResult | null; // null when the checker itself refused to start
      error: string | null; // that refusal, or why the after-snapshot failed
    };

export interface VerifyRunRequest {
  root: string; // canonical
  ledgers: string[]; // root-relative
  policy: Policy;
  approve: boolean;
  reviewed: boolean;
  env: Env;
  /**
   * The CHECKs' directory, relative to the root: verify-once ran gate-check with `--cwd <root>`,
   * so every ledger's CHECKs run from the root unless `--cwd` (or a gate's CWD:) says otherwise.
   */
  cwd?: string;
  timeoutS?: number;
  verifier?: Verifier;
  /** Called once per ledger as soon as its result is known. */
  onResult?: (r: LedgerResult) => void;
}

export async function verifyRun(req: VerifyRunRequest): Promise<LedgerResult[]> {
  const results: LedgerResult[] = [];
  for (const file of req.ledgers) {
    const key = ledgerKey(req.root, file);
    const result = await withLedgerLock(req.root, key, () => verifyOne(req, file, key));
    results.push(result);
    req.onResult?.(result);
  }
  return results;
}

async function verifyOne(req: VerifyRunRequest, file: string, key: string): Promise<LedgerResult> {
  const { root, policy } = req;
  const ctxOpts = { env: req.env, verifier: req.verifier };
  if (inspectReceipt(root, file, { ...ctxOpts, expectedPolicy: policy }).current)
    return { status: "CURRENT_EVIDENCE", ledger: key, executed: 0 };
  const led = readLedger(root, file);
  if (!req.reviewed && led.doc.gates.some((g) => !isRunnable(g)))
    return { status: "MANUAL_REVIEW_REQUIRED", ledger: key };
  const before = computeContext(root, led, policy, ctxOpts);
  // Withdraw the old receipt first: a crash from here on can never leave it looking valid.
  await putReceipt(root, key, { status: "pending", policy });

  let check: CheckResult | null = null;
  let error: string | null = null;
  try {
    check = await runChecks({
      root,
      files: [led.abs],
      reverify: true,
      approve: req.approve,
      jobs: 1,
      cwd: req.cwd ?? ".",
      timeoutS: req.timeoutS ?? DEFAULT_TIMEOUT_S,
      env: req.env,
      // The names the receipt binds reach the CHECK too, as in verify-once.
      passEnv: policy.env,
    });
  } catch (e) {
    error = (e as Error).message;
  }

  let after: Context | null = null;
  let afterLedger = null;
  try {
    afterLedger = readLedger(root, file);
    after = computeContext(root, afterLedger, policy, ctxOpts);
  } catch (e) {
    if (!(e instanceof VerificationError)) throw e;
    error = error ?? verificationText(e);
  }
  const moved = after === null || after.value !== before.value;
  const accepted = check !== null && check.exit === 0 && afterLedger !== null && afterLedger.met && !moved;
  if (accepted) {
    await putReceipt(root, key, {
      status: "accepted",
      policy,
      context: after!.value,
      ledgerHash: sha256Hex(afterLedger!.text),
      fingerprint: after!.fingerprint,
    });
    return { status: "ACCEPTED", ledger: key, executed: 1, reusable: policy.closed };
  }
  await putReceipt(root, key, { status: "rejected", policy });
  return {
    status: "REVIEW_OR_REPAIR",
    ledger: key,
    exit: check?.exit ?? 2,
    reason: moved ? "inputs-changed-during-check" : "check-not-accepted",
    check,
    error,
  };
}
