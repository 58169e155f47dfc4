// The scheduler's facts of a scope on disk: one consistent ScopeReader handed to the pure builder
// (core/schedule/facts.ts), with the receipt store and its audit. Reads nothing itself; io/read.ts does.
import { ScopeBusyError } from "../core/plan/errors.ts";
import type { IdCompare } from "../core/plan/order.ts";
import { managedEvidenceIssue } from "./receipts/audit.ts";
import { readStore } from "./receipts/store.ts";
import type { Env } from "./run/shell.ts";
import * as path from "node:path";
import { scheduleFacts, type ReceiptAudit } from "../core/schedule/facts.ts";
import { inputStaleness } from "./inputs/stale.ts";
import { withOracleStaleness } from "./oracle/stale.ts";
import { noProbes, vacuousGates } from "./check/probeStore.ts";
import { gateState } from "../core/ledger/state.ts";
import type { Gate, Ledger } from "../core/ledger/model.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { readConsistent, type ScopeChange } from "./read.ts";

export interface ReadOptions {
  root: string; // canonical
  scope: string; // valid id
  slots: number;
  compare: IdCompare;
  env?: Env; // for receipt audits; default process.env
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

/**
 * `kbz next`'s facts: every input read once, then proven unchanged (docs/formats.md#plan). A scope
 * that changed while read is read again (BUSY_RETRY_MS); still changing, it is `ScopeBusyError`.
 */
export function readScheduleFacts(o: ReadOptions): NextSnapshot {
  for (let attempt = 0; ; attempt++) {
    try {
      return readScheduleOnce(o);
    } catch (e) {
      if (!(e instanceof Changed)) throw e;
      const pause = BUSY_RETRY_MS[attempt];
      if (pause === undefined) throw new ScopeBusyError(CHANGED[e.what]);
      pauseSync(pause);
    }
  }
}

function readScheduleOnce(o: ReadOptions): NextSnapshot {
  const receipts = receiptAudit(o.root, o.env ?? process.env);
  const probed = !noProbes(o.root); // one stat, as status: most repositories never ran a probe
  return readConsistent(
    o.root,
    o.scope,
    (inputs) =>
      scheduleFacts(inputs, {
        slots: o.slots,
        compare: o.compare,
        receipts,
        inputStale: (rel, l) => {
          const file = path.join(o.root, ".unlazy", o.scope, rel);
          const met = (g: Gate) => gateState(g, l) === "met";
          return new Set(withOracleStaleness(inputStaleness(o.root, file, l, met), o.root, file, path.join(".unlazy", o.scope, rel), o.root, l).keys());
        },
        ...(probed ? { vacuity: (rel: string, l: Ledger) => vacuousGates(o.root, path.join(o.root, ".unlazy", o.scope, rel), l) } : {}),
      }),
    (what) => {
      throw new Changed(what);
    },
    { beforeConsistencyCheck: o.beforeConsistencyCheck },
  );
}

/** The receipt store of `root` and the audit `kbz verify audit` runs, for the scheduler's VERIFIED rows. */
export function receiptAudit(root: string, env: Env): ReceiptAudit {
  return { store: () => readStore(root), issue: (rel, store) => managedEvidenceIssue(root, rel, { store, env }) };
}
