// Signing a manual gate: human evidence written into its ledger, checked off, under the
// ledger's lock and with the same fresh re-read as check writeback, so a concurrent edit to
// another gate survives and a gate whose definition changed meanwhile is refused. The
// dashboard's `s` key and the CLI's `kbz sign` both call `signGate`.
import { UsageError } from "../../core/errors.ts";
import { gateDigest } from "../../core/ledger/digest.ts";
import { applyGateEdit } from "../../core/ledger/edit.ts";
import { MAX_EVIDENCE } from "../../core/ledger/evidence.ts";
import { isRunnable, stemOf } from "../../core/ledger/model.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { hasUnsafe } from "../../core/text/sanitize.ts";
import { snapshotForRequest } from "../read.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import { readLedgerText } from "../read.ts";

export interface SignRequest {
  root: string;
  scope: string | null;
  /** Qualified gate id, as `kbz status` prints it. */
  qid: string;
  /** Explicit ledger files (kbz sign LEDGER GATE); discovery (scope or legacy) when absent. */
  files?: string[];
  evidence: string;
}

export interface SignResult {
  file: string;
  gateId: string;
  status: "written" | "unchanged";
}

/** The evidence as it will be written (one line), or a reason it cannot be. */
export function signEvidence(text: string): string {
  const v = text.replace(/[\r\n\t]+/g, " ").trim();
  if (v === "") throw new UsageError("evidence text is empty: say what you checked and what you saw");
  if (v.toLowerCase() === "pending") throw new UsageError("'pending' is not evidence: say what you checked and what you saw");
  if (v.startsWith("automatic-evidence=") || v.startsWith("exit=0; shell=")) throw new UsageError("evidence must not look like automatic evidence: write it in your own words");
  if (hasUnsafe(v)) throw new UsageError("evidence contains control, bidi or invisible characters: type it again as plain text");
  if (v.length > MAX_EVIDENCE) throw new UsageError(`evidence is ${v.length} characters; at most ${MAX_EVIDENCE} fit on the EVIDENCE line`);
  return v;
}

export async function signGate(req: SignRequest): Promise<SignResult> {
  const evidence = signEvidence(req.evidence);
  const snap = snapshotForRequest({ root: req.root, scope: req.files?.length ? null : req.scope, files: req.files ?? [] });
  if (snap.problems.length > 0) {
    const p = snap.problems[0]!;
    throw new UsageError(`${p.file}:${p.line}: ${p.message} (fix the ledger, then sign)`);
  }
  const view = snap.gates.find((g) => g.qid === req.qid);
  if (!view) throw new UsageError(`no gate ${req.qid} here (kbz status lists the gate ids)`);
  if (isRunnable(view.gate)) throw new UsageError(`${req.qid} has a CHECK and EXPECT: kbz check runs it; only manual gates are signed`);
  if (view.state === "abandoned") throw new UsageError(`${req.qid} is abandoned: it cannot be signed`);
  const root = snap.target.root;
  const constrained = snap.target.mode !== "explicit";
  const digest = gateDigest(view.gate);
  return withFileLock(root, view.file, () => {
    const decoded = readLedgerText(view.file, constrained ? root : undefined);
    if (!("text" in decoded)) throw new UsageError(decoded.message, { file: view.file, line: decoded.line });
    const fresh = parseLedger(decoded.text, stemOf(view.file));
    if (fresh.errors.length > 0) throw new UsageError(fresh.errors[0]!.message, { file: view.file, line: fresh.errors[0]!.line });
    const gate = fresh.gates.find((g) => g.id === view.gate.id);
    if (!gate || gateDigest(gate) !== digest) throw new UsageError(`${req.qid} changed while signing: look at it again, then sign`);
    const text = applyGateEdit(fresh, gate, { checked: true, evidence });
    if (text === fresh.text) return { file: view.file, gateId: gate.id, status: "unchanged" as const };
    writeAtomic(view.file, text, constrained ? { root } : {});
    return { file: view.file, gateId: gate.id, status: "written" as const };
  });
}
