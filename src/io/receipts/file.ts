// `.unlazy/verification-receipts.json` (docs/formats.md#receipts): read strictly, written atomically
// (temp + fsync + rename) under the receiptFile lock, so a killed writer leaves the old or the new
// receiptFile and concurrent runs never lose each other's receipts.
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import { ReadError } from "../../core/errors.ts";
import { readStable } from "../read.ts";
import type { Fingerprint, Policy } from "./context.ts";
import { VerificationError } from "../../core/receipts/errors.ts";

/** `running` is what the original leaves behind an interrupted run; kbz reads it as `pending`. */
export type ReceiptStatus = "pending" | "running" | "accepted" | "rejected";

export interface Receipt {
  status: ReceiptStatus;
  /** Absent only on an unfinished receipt (not accepted) where the original left a `running` record without one. */
  policy?: Policy;
  context?: string; // accepted only
  ledgerHash?: string; // accepted only
  /** kbz's addition: per-part digests for `kbz verify explain` (absent in receipts the original wrote). */
  fingerprint?: Fingerprint;
}

export interface ReceiptFile {
  schema: 1;
  receipts: Record<string, Receipt>;
}

export const RECEIPTS_FILE = ".unlazy/verification-receipts.json";
const MAX_RECEIPT_FILE_BYTES = 256 * 1024 * 1024;
const HEX64 = /^[0-9a-f]{64}$/;
const STATUSES = new Set(["pending", "running", "accepted", "rejected"]);
/** Waiting for another run of the same ledger covers its whole check, not just a receiptFile write. */
export const LEDGER_LOCK_MS = 15 * 60_000;

export function receiptFilePath(root: string): string {
  return path.join(root, ...RECEIPTS_FILE.split("/"));
}

const invalid = (detail: string): never => {
  throw new VerificationError("invalid verification registry", { file: RECEIPTS_FILE, detail });
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

function checkReceipt(key: string, r: unknown): Receipt {
  if (!isObject(r) || typeof r.status !== "string" || !STATUSES.has(r.status))
    invalid(`receipt ${JSON.stringify(key)} has no valid status`);
  const rec = r as Record<string, unknown>;
  const p = rec.policy;
  // An unfinished receipt without a policy (the original's `running` record of an interrupted
  // run) is a review item, as verify-once reads it, not an invalid receiptFile: nothing reuses it.
  const unfinishedWithout = p === undefined && rec.status !== "accepted";
  if (
    !unfinishedWithout &&
    (!isObject(p) ||
      !strings(p.inputs) ||
      !strings(p.env) ||
      typeof p.closed !== "boolean" ||
      (p.portable !== undefined && p.portable !== true))
  ) {
    invalid(`receipt ${JSON.stringify(key)} has no valid policy`);
  }
  if (
    rec.status === "accepted" &&
    !(
      typeof rec.context === "string" &&
      HEX64.test(rec.context) &&
      typeof rec.ledgerHash === "string" &&
      HEX64.test(rec.ledgerHash)
    )
  ) {
    invalid(`accepted receipt ${JSON.stringify(key)} needs context and ledgerHash`);
  }
  if (rec.fingerprint !== undefined && !isObject(rec.fingerprint))
    invalid(`receipt ${JSON.stringify(key)} has an invalid fingerprint`);
  return rec as unknown as Receipt;
}

export function parseReceiptFile(text: string): ReceiptFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return invalid(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(data) || data.schema !== 1 || !isObject(data.receipts))
    return invalid("expected {schema: 1, receipts: {…}}");
  for (const [key, r] of Object.entries(data.receipts)) checkReceipt(key, r);
  return data as unknown as ReceiptFile;
}

/** The receiptFile, or an empty one when the file is absent; anything unreadable or malformed is an error. */
export function readReceiptFile(root: string): ReceiptFile {
  const file = receiptFilePath(root);
  let bytes: Buffer;
  try {
    bytes = readStable(file, { label: "verification registry", maxBytes: MAX_RECEIPT_FILE_BYTES, root });
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return { schema: 1, receipts: {} };
    if (e instanceof ReadError) return invalid(e.message);
    throw e;
  }
  return parseReceiptFile(bytes.toString("utf8"));
}

export function receiptOf(receiptFile: ReceiptFile, key: string): Receipt | null {
  return Object.hasOwn(receiptFile.receipts, key) ? receiptFile.receipts[key]! : null;
}

export function serializeReceiptFile(receiptFile: ReceiptFile): string {
  return JSON.stringify(receiptFile, null, 2) + "\n";
}

/** Replace one ledger's receipt: lock, re-read, set, write atomically. Other receipts are kept as read. */
export async function putReceipt(root: string, key: string, receipt: Receipt): Promise<void> {
  const file = receiptFilePath(root);
  await withFileLock(root, file, () => {
    const receiptFile = readReceiptFile(root);
    // Entries, not assignments: a ledger named `__proto__` must stay an ordinary key.
    const entries = Object.entries(receiptFile.receipts).filter(([k]) => k !== key);
    entries.push([key, receipt]);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    writeAtomic(file, serializeReceiptFile({ schema: 1, receipts: Object.fromEntries(entries) }), {
      root,
      createParents: true,
    });
  });
}

/** Serialize runs of one ledger (docs/formats.md#receipts) without blocking runs of other ledgers. */
export function withLedgerLock<T>(root: string, key: string, fn: () => Promise<T>): Promise<T> {
  return withFileLock(root, `${receiptFilePath(root)}-${sha256Hex(key)}`, fn, { timeoutMs: LEDGER_LOCK_MS });
}
