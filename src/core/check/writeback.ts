// Writeback of one result (unlazy §2.6, §3.1.10): under the ledger's lock, re-read and
// re-parse, refuse results whose definition or approval oracle changed meanwhile (STALE),
// and change only the target gate's lines so concurrent edits to other gates survive.
import { stemOf, type Gate, type Ledger } from "../ledger/model.ts";
import { gateDigest } from "../ledger/digest.ts";
import { applyGateEdit } from "../ledger/edit.ts";
import { parseLedger } from "../ledger/parse.ts";
import type { GateState } from "../ledger/state.ts";
import { writeAtomic } from "../workspace/fs.ts";
import { withFileLock } from "../workspace/lock.ts";
import { MAX_LEDGER_BYTES, decodeLedgerText, readStable } from "../workspace/read.ts";
import { oracleSignature, type RuntimeOracle } from "../run/oracle.ts";

export class WritebackError extends Error {}

export type WritebackStatus = "written" | "unchanged" | "stale" | "abandoned";

export interface WritebackRequest {
  root: string; // canonical; holds the lock directory
  file: string;
  constrained: boolean; // discovered ledgers must stay inside the root
  gateId: string;
  digest: string;
  signature: string;
  /** The oracle the fresh gate would run with now. */
  oracleFor: (gate: Gate) => RuntimeOracle;
  ok: boolean;
  /** Automatic evidence for a pass. */
  evidence: string | null;
  startState: GateState;
  reverify: boolean;
}

function freshLedger(req: WritebackRequest): Ledger {
  const bytes = readStable(req.file, { label: "gate ledger", maxBytes: MAX_LEDGER_BYTES, root: req.constrained ? req.root : undefined });
  const decoded = decodeLedgerText(bytes);
  if (!("text" in decoded)) throw new WritebackError(`fresh ledger became invalid: line ${decoded.line}: ${decoded.message}`);
  const ledger = parseLedger(decoded.text, stemOf(req.file));
  if (ledger.errors.length > 0) {
    const e = ledger.errors[0]!;
    throw new WritebackError(`fresh ledger became invalid: line ${e.line}: ${e.message}`);
  }
  return ledger;
}

/** The edit a result calls for, or null when an ordinary unchecked failure leaves the file alone. */
function editFor(req: WritebackRequest, gate: Gate): { checked: boolean; evidence: string } | null {
  if (req.ok) return { checked: true, evidence: req.evidence! };
  const demote = req.startState === "stale-unmet" || (req.reverify && req.startState === "met") || gate.checked;
  return demote ? { checked: false, evidence: "pending" } : null;
}

export async function writeBack(req: WritebackRequest): Promise<WritebackStatus> {
  try {
    return await withFileLock(req.root, req.file, () => {
      const ledger = freshLedger(req);
      const gate = ledger.gates.find((g) => g.id === req.gateId);
      if (!gate || gateDigest(gate) !== req.digest || oracleSignature(req.oracleFor(gate)) !== req.signature) return "stale";
      if (ledger.abandons.has(gate.id)) return "abandoned";
      const edit = editFor(req, gate);
      if (!edit) return "unchanged";
      const text = applyGateEdit(ledger, gate, edit);
      if (text === ledger.text) return "unchanged";
      writeAtomic(req.file, text, req.constrained ? { root: req.root } : {});
      return "written";
    });
  } catch (e) {
    if (e instanceof WritebackError) throw e;
    throw new WritebackError((e as Error).message);
  }
}
