// Evidence bound to inputs (issue 18): a met gate that declares INPUTS stays met only while
// the side store holds a record of this very pass (same definition digest, same evidence line,
// same INPUTS) and every input still has the digest recorded then.
import { gateDigest } from "../../core/ledger/digest.ts";
import type { Gate, Ledger } from "../../core/ledger/model.ts";
import { changedInput, readInputStore } from "./store.ts";

/** Why each met gate with INPUTS is stale now (gate id → reason); empty when none is. */
export function inputStaleness(root: string, file: string, ledger: Ledger, isMet: (g: Gate) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  const bound = ledger.gates.filter((g) => g.inputs && isMet(g));
  if (bound.length === 0) return out;
  const store = readInputStore(root, file);
  for (const g of bound) {
    const rec = store.gates[g.id];
    if (!rec || rec.definition !== gateDigest(g) || rec.evidence !== g.evidence) {
      out.set(g.id, "STALE (no input digest recorded for this evidence; run kbz check --reverify)");
    } else if (JSON.stringify(rec.inputs) !== JSON.stringify(g.inputs)) {
      out.set(g.id, "STALE (INPUTS changed since the pass)");
    } else {
      const changed = changedInput(rec);
      if (changed) out.set(g.id, `STALE (input changed: ${changed})`);
    }
  }
  return out;
}
