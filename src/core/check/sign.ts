// Signing a manual gate: a person's evidence written into its ledger and the box ticked, in one
// atomic write under the ledger's lock after a fresh re-read, so a concurrent edit to another
// gate survives. Runnable gates are refused: only kbz check ticks those. `kbz sign` and the
// dashboard's `s` key both call `signGate`.
import * as path from "node:path";
import { FileProblemsError, UsageError } from "../errors.ts";
import { applyGateEdit } from "../ledger/edit.ts";
import { isRunnable, type Gate, type Ledger } from "../ledger/model.ts";
import { parseLedger } from "../ledger/parse.ts";
import { loadLedgerFile } from "../../io/read.ts";
import { writeAtomic } from "../workspace/fs.ts";
import { withFileLock } from "../workspace/lock.ts";

export interface SignRequest {
  root: string; // canonical; holds the lock directory
  file: string; // the ledger, absolute
  /** `G4`, or qualified `leaf-1.1:G4` (the prefix is ignored). */
  gate: string;
  evidence: string;
}

export interface SignResult {
  qid: string;
  file: string; // as shown (relative to the root)
  evidence: string;
  status: "signed" | "unchanged";
}

/** A refusal of the request itself (runnable, abandoned, would break the ledger); exit 2. */
export class SignRefused extends UsageError {}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

/** The evidence as it will be written, or the reason it cannot be. */
export function signEvidence(text: string): string {
  const evidence = String(text ?? "").trim();
  if (evidence === "" || evidence.toLowerCase() === "pending") throw new UsageError("--evidence: expected what the person checked, in words (not blank, not pending)");
  if (CONTROL.test(evidence) || evidence.length > 500) throw new UsageError("--evidence: expected one line of at most 500 printable characters");
  if (evidence.startsWith("automatic-evidence=") || evidence.startsWith("exit=0; shell=")) {
    throw new UsageError("--evidence: expected the person's words, not text that looks like automatic evidence");
  }
  return evidence;
}

function load(file: string, root: string) {
  const entry = loadLedgerFile(file, root, false);
  if (!entry.ledger || entry.problems.length > 0) throw new FileProblemsError(entry.problems);
  return entry as typeof entry & { ledger: Ledger };
}

export async function signGate(req: SignRequest): Promise<SignResult> {
  const evidence = signEvidence(req.evidence);
  const file = path.resolve(req.file);
  const gateId = String(req.gate).replace(/^.*:/, "");
  const entry = load(file, req.root);
  const find = (l: Ledger): Gate => {
    const g = l.gates.find((x) => x.id === gateId);
    if (!g) throw new UsageError(`GATE: no gate ${gateId} in ${entry.display} (have: ${l.gates.map((x) => x.id).join(", ") || "none"})`);
    if (isRunnable(g)) throw new SignRefused(`${entry.stem}:${gateId} is runnable (it has CHECK/EXPECT): kbz check ticks it when its CHECK passes; only manual gates are signed`);
    if (l.abandons.has(g.id)) throw new SignRefused(`${entry.stem}:${gateId} is abandoned; remove its ABANDON: line first`);
    return g;
  };
  find(entry.ledger);
  const changed = await withFileLock(req.root, file, () => {
    const fresh = load(file, req.root).ledger;
    const text = applyGateEdit(fresh, find(fresh), { checked: true, evidence });
    if (parseLedger(text, entry.stem).errors.length > 0) throw new SignRefused(`signing ${gateId} would make ${entry.display} invalid; nothing written`);
    if (text === fresh.text) return false;
    writeAtomic(file, text);
    return true;
  });
  return { qid: `${entry.stem}:${gateId}`, file: entry.display, evidence, status: changed ? "signed" : "unchanged" };
}
