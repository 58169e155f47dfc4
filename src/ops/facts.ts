// The scheduler's facts of a scope on disk, built one way for every caller: `kbz next`, `kbz
// advance`, the demo and the dashboard's queue. Inside one consistent ScopeReader the verdict
// records (io/trace.ts) and the receipt audit are read as data and handed to the pure builder
// (core/schedule/facts.ts), so the queue and `kbz next` cannot disagree about a STALE or VACUOUS gate.
import { ScopeBusyError } from "../core/plan/errors.ts";
import type { IdOrder } from "../core/plan/order.ts";
import { VerificationError } from "../core/receipts/errors.ts";
import { scheduleFacts, type ReceiptVerdicts } from "../core/schedule/facts.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import type { ScopeInputs } from "../core/workspace/inputs.ts";
import { readConsistent, type ScopeChange } from "../io/scope.ts";
import { managedEvidenceIssue } from "../io/receipts/audit.ts";
import { readReceiptFile, type ReceiptFile } from "../io/receipts/file.ts";
import type { Env } from "../io/run/shell.ts";
import { readTrace } from "../io/trace.ts";
import { attestationsOf, readAttestations } from "../io/check/attested.ts";
import type { RootAttestations } from "../io/run/attest.ts";
import type { TraceData } from "../core/trace.ts";

export interface FactsRequest {
  root: string; // canonical
  scope: string; // valid id
  slots: number;
  order: IdOrder;
  env?: Env; // for receipt audits; default process.env
}

export interface ReadOptions extends FactsRequest {
  /** Called once every input is read, before the consistency pass (tests change files here). */
  beforeConsistencyCheck?: () => void;
}

/** What the scheduler says when an input moved while it read. */
export const CHANGED: Record<ScopeChange, string> = {
  inputs: "inputs changed",
  leases: "leases changed",
  inventory: "leaf inventory changed",
};

/** Pauses between reads of a scope that changed while read: 5 tries within about 1 s. */
export const BUSY_RETRY_MS = [50, 150, 300, 450];

class Changed {
  constructor(readonly what: ScopeChange) {}
}

const pauseSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function receiptFileOrError(root: string): ReceiptFile | VerificationError {
  try {
    return readReceiptFile(root);
  } catch (e) {
    if (e instanceof VerificationError) return e;
    throw e;
  }
}

/** The receipt audit of every ledger of `scope` that holds a receipt: data for the pure builder. */
function receiptVerdicts(inputs: ScopeInputs, receiptFile: ReceiptFile, env: Env): ReceiptVerdicts {
  const issues = new Map<string, string | null | VerificationError>();
  const prefix = `.unlazy/${inputs.scope}/gates/`;
  const ledgerText = scopeLedgerText(inputs);
  for (const key of Object.keys(receiptFile.receipts)) {
    if (!key.startsWith(prefix)) continue;
    try {
      issues.set(key, managedEvidenceIssue(inputs.root, key, { receiptFile, env, ledgerText }));
    } catch (e) {
      if (!(e instanceof VerificationError)) throw e;
      issues.set(key, e);
    }
  }
  return { issues };
}

/**
 * A receipt key's ledger text through the scope's reader (the audit then opens no ledger the
 * read already holds, and the consistency pass covers it); undefined for a key outside the scope.
 */
export function scopeLedgerText(inputs: ScopeInputs): (key: string) => string | null | undefined {
  const prefix = `.unlazy/${inputs.scope}/`;
  return (key) => (key.startsWith(prefix) ? inputs.text(key.slice(prefix.length)) : undefined);
}

/** What one read of a scope holds beside the facts: the records and attestations they were judged by. */
export interface ScopeRead {
  facts: NextSnapshot;
  inputs: ScopeInputs;
  trace: TraceData;
  attestations: RootAttestations | null;
  /** The receipts file as read, or why it could not be. */
  receiptFile: ReceiptFile | VerificationError;
}

/** The facts of one scope and what they were judged by, from a reader the caller holds (the dashboard shares it with its plan view). */
export function scopeRead(inputs: ScopeInputs, o: FactsRequest): ScopeRead {
  const receiptFile = receiptFileOrError(o.root);
  if (!(receiptFile instanceof VerificationError))
    inputs.alsoCheck(() => JSON.stringify(receiptFileOrError(o.root)) !== JSON.stringify(receiptFile));
  const receipts =
    receiptFile instanceof VerificationError
      ? { error: receiptFile }
      : receiptVerdicts(inputs, receiptFile, o.env ?? process.env);
  const trace = readTrace(o.root, inputs.target().files);
  // Under the person policy a met gate kbz has no attestation for is UNATTESTED (as in status).
  const attestations = readAttestations(o.root, o.env ?? process.env);
  const attested = attestationsOf(inputs.target(), attestations);
  const facts = scheduleFacts(inputs, { slots: o.slots, order: o.order, receipts, trace, attested });
  return { facts, inputs, trace, attestations, receiptFile };
}

/**
 * `kbz next`'s facts: every input read once, then proven unchanged (docs/formats.md#plan). A scope
 * that changed while read is read again (BUSY_RETRY_MS); still changing, it is `ScopeBusyError`.
 */
export function readScheduleFacts(o: ReadOptions): NextSnapshot {
  return readSchedule(o, (r) => r.facts);
}

/**
 * The same read, with `then` deciding inside it: what `then` reads through `r.inputs` (a ledger
 * the facts did not need) is covered by the same consistency pass, and what the facts read is
 * not read again.
 */
export function readSchedule<T>(o: ReadOptions, then: (r: ScopeRead) => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return readConsistent(
        o.root,
        o.scope,
        (inputs) => then(scopeRead(inputs, o)),
        (what) => {
          throw new Changed(what);
        },
        { beforeConsistencyCheck: o.beforeConsistencyCheck },
      );
    } catch (e) {
      if (!(e instanceof Changed)) throw e;
      const pause = BUSY_RETRY_MS[attempt];
      if (pause === undefined) throw new ScopeBusyError(CHANGED[e.what]);
      pauseSync(pause);
    }
  }
}
