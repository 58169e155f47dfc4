// Writeback (docs/formats.md#evidence, docs/formats.md#check-run): under the ledger's lock, re-read and re-parse, refuse
// results whose definition or approval oracle changed meanwhile (STALE), and change only
// the target gates' lines so concurrent edits to other gates survive. A ledger's results
// share one lock and one atomic write, so a killed run leaves it wholly old or new.
import { stemOf, type Gate, type Ledger } from "../../core/ledger/model.ts";
import { gateDigest } from "../../core/ledger/digest.ts";
import { applyGateEdit } from "../../core/ledger/edit.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import type { GateState } from "../../core/ledger/state.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import { readLedgerText } from "../read.ts";
import { oracleSignature, type RuntimeOracle } from "../../core/run/oracle.ts";
import { KbzError } from "../../core/errors.ts";
import { kbz } from "../../core/text/command.ts";

export class WritebackError extends KbzError {
  constructor(message: string, file?: string, line?: number) {
    super(message, { code: "writeback", file, line, hint: `fix the ledger, then run ${kbz("check")} again` });
  }
}

export type WritebackStatus = "written" | "unchanged" | "stale" | "abandoned";

export interface WritebackItem {
  gateId: string;
  digest: string;
  signature: string;
  ok: boolean;
  /** Automatic evidence for a pass. */
  evidence: string | null;
  startState: GateState;
}

export interface WritebackRequest {
  root: string; // canonical; holds the lock directory
  file: string;
  constrained: boolean; // discovered ledgers must stay inside the root
  /** The oracle a fresh gate would run with now. */
  oracleFor: (gate: Gate) => RuntimeOracle;
  reverify: boolean;
  /** This ledger's results, in gate order. */
  items: WritebackItem[];
}

function parseFresh(text: string, file: string, shown: string): Ledger {
  const ledger = parseLedger(text, stemOf(file));
  if (ledger.errors.length > 0) {
    const e = ledger.errors[0]!;
    throw new WritebackError(`fresh ledger became invalid: ${e.message}`, shown, e.line);
  }
  return ledger;
}

function freshLedger(req: WritebackRequest): Ledger {
  const decoded = readLedgerText(req.file, req.constrained ? req.root : undefined);
  if (!("text" in decoded))
    throw new WritebackError(`fresh ledger became invalid: ${decoded.message}`, req.file, decoded.line);
  return parseFresh(decoded.text, req.file, req.file);
}

/** The edit a result calls for, or null when an ordinary unchecked failure leaves the file alone. */
function editFor(item: WritebackItem, gate: Gate, reverify: boolean): { checked: boolean; evidence: string } | null {
  if (item.ok) return { checked: true, evidence: item.evidence! };
  const demote = item.startState === "stale-unmet" || (reverify && item.startState === "met") || gate.checked;
  return demote ? { checked: false, evidence: "pending" } : null;
}

/** What one result does to the fresh ledger ("written" means an edit is due). */
function judge(item: WritebackItem, gate: Gate | undefined, fresh: Ledger, req: WritebackRequest): WritebackStatus {
  if (!gate || gateDigest(gate) !== item.digest || oracleSignature(req.oracleFor(gate)) !== item.signature)
    return "stale";
  if (fresh.abandons.has(gate.id)) return "abandoned";
  const edit = editFor(item, gate, req.reverify);
  if (!edit) return "unchanged";
  return applyGateEdit(fresh, gate, edit) === fresh.text ? "unchanged" : "written";
}

/**
 * Write one ledger's results: one lock, one fresh read and parse, each result judged
 * against the fresh ledger, and one atomic write. Returns a status per item, in order.
 */
export async function writeBack(req: WritebackRequest): Promise<WritebackStatus[]> {
  try {
    return await withFileLock(req.root, req.file, () => {
      const fresh = freshLedger(req);
      // One parse serves every result: edits go bottom-up, and an edit (even an inserted
      // EVIDENCE line) only moves lines below its own gate, which are already done.
      let text = fresh.text;
      const statuses: WritebackStatus[] = new Array(req.items.length);
      const order = req.items
        .map((item, i) => ({ item, i, gate: fresh.gates.find((g) => g.id === item.gateId) }))
        .sort((a, b) => (b.gate?.line ?? 0) - (a.gate?.line ?? 0));
      for (const { item, i, gate } of order) {
        statuses[i] = judge(item, gate, fresh, req);
        if (statuses[i] !== "written") continue;
        text = applyGateEdit({ text }, gate!, editFor(item, gate!, req.reverify)!);
      }
      // Every write stays inside the root, explicit ledgers included (runChecks refuses those first).
      if (text !== fresh.text) writeAtomic(req.file, text, { root: req.root });
      return statuses;
    });
  } catch (e) {
    if (e instanceof WritebackError) throw e;
    if (e instanceof KbzError) throw new WritebackError(e.message, e.file, e.line);
    throw new WritebackError((e as Error).message);
  }
}
