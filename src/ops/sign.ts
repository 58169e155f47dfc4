// `kbz sign` as a use case. Signing a manual gate: human evidence written into its ledger, checked off, under the
// ledger's lock and with the same fresh re-read as check writeback, so a concurrent edit to
// another gate survives and a gate whose definition changed meanwhile is refused. The
// dashboard's `s` key and the CLI's `kbz sign` both call `signGate`.
import * as fs from "node:fs";
import { kbz } from "../core/text/command.ts";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { isInside } from "../core/workspace/inside.ts";
import { nearest } from "../core/plan/leaf-id.ts";
import { logConsent, requirePerson } from "../io/run/consent.ts";
import { identityForAct, signSignoff } from "../io/sign/act.ts";
import { digestInputs, recordInputs } from "../io/inputs/records.ts";
import { attest } from "../io/run/attest.ts";
import { gateCwd, scopeLedgerRoot } from "../io/check/plan.ts";
import { gateDigest } from "../core/ledger/digest.ts";
import { applyGateEdit } from "../core/ledger/edit.ts";
import { MAX_EVIDENCE } from "../core/ledger/evidence.ts";
import { isRunnable, stemOf } from "../core/ledger/model.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import { hasUnsafe } from "../core/text/sanitize.ts";
import { snapshotForRequest } from "./snapshot.ts";
import { writeAtomic } from "../io/fs.ts";
import { withFileLock } from "../io/lock.ts";
import { readLedgerText } from "../io/read.ts";

export interface SignRequest {
  root: string;
  scope: string | null;
  /** Qualified gate id, as `kbz status` prints it. */
  qid: string;
  /** Explicit ledger files (kbz sign LEDGER GATE); discovery (scope or legacy) when absent. */
  files?: string[];
  /** What the person checked; absent, the request is refused after the gate is found (the gate first). */
  evidence?: string;
  /** Replace the evidence of a gate that is already signed (the old text stays in the acts log). */
  replace?: boolean;
  /** The environment (the approval store and the consent policy); process.env when absent. */
  env?: Record<string, string | undefined>;
  /** How the person gives it: the dashboard passes "dashboard". */
  via?: "terminal" | "dashboard";
}

export interface SignResult {
  file: string;
  gateId: string;
  status: "written" | "unchanged";
  /** The gate's INPUTS digested with the signature (path → sha256), when it has INPUTS. */
  inputs: Record<string, string> | null;
  /** The evidence this signature replaced, if any. */
  replaced: string | null;
}

/** The evidence as it will be written (one line), or a reason it cannot be. */
export function signEvidence(text: string): string {
  const v = text.replace(/[\r\n\t]+/g, " ").trim();
  if (v === "") throw new UsageError("evidence text is empty: say what you checked and what you saw");
  if (v.toLowerCase() === "pending")
    throw new UsageError("'pending' is not evidence: say what you checked and what you saw");
  if (v.startsWith("automatic-evidence=") || v.startsWith("exit=0; shell="))
    throw new UsageError("evidence must not look like automatic evidence: write it in your own words");
  if (hasUnsafe(v))
    throw new UsageError("evidence contains control, bidi or invisible characters: type it again as plain text");
  if (v.length > MAX_EVIDENCE)
    throw new UsageError(`evidence is ${v.length} characters; at most ${MAX_EVIDENCE} fit on the EVIDENCE line`);
  return v;
}

/** "no gate X here; did you mean Y? (manual gates: …)", naming the nearest id and the gates a person signs. */
function unknownGate(qid: string, snap: Snapshot): string {
  const manual = snap.gates.filter((g) => !isRunnable(g.gate) && g.state !== "abandoned").map((g) => g.qid);
  const near = nearest(qid, manual);
  const have = manual.length > 0 ? manual.slice(0, 8).join(", ") + (manual.length > 8 ? ", …" : "") : "none";
  return `no gate ${qid} here${near ? `; did you mean ${near}?` : ""} (manual gates: ${have}; ${kbz("status")} lists every gate)`;
}

/** The root rule (as kbz check): a signature is written only into a ledger inside the root. */
function assertInsideRoot(root: string, file: string): void {
  let real = path.resolve(file);
  try {
    real = fs.realpathSync(file);
  } catch {}
  if (!isInside(root, real)) {
    throw new UsageError(
      `${file}: ledger is outside the root ${root}; ${kbz("sign")} writes only inside the root. Run ${kbz("sign")} from its repository (or --root <its repository>)`,
    );
  }
}

export async function signGate(req: SignRequest): Promise<SignResult> {
  const env = req.env ?? process.env;
  // The gate first (issue 44 item 7: an unknown gate was answered with "--evidence: expected …"
  // or a consent refusal, and the person fixed the wrong thing), then the evidence, then the person.
  const snap = snapshotForRequest({
    root: req.root,
    scope: req.files?.length ? null : req.scope,
    files: req.files ?? [],
  });
  for (const l of snap.ledgers) assertInsideRoot(snap.target.root, l.file);
  if (snap.problems.length > 0) {
    const p = snap.problems[0]!;
    throw new UsageError(`${p.file}:${p.line}: ${p.message} (fix the ledger, then sign)`);
  }
  const view = snap.gates.find((g) => g.qid === req.qid);
  if (!view) throw new UsageError(unknownGate(req.qid, snap));
  if (isRunnable(view.gate))
    throw new UsageError(`${req.qid} has a CHECK and EXPECT: ${kbz("check")} runs it; only manual gates are signed`);
  if (view.state === "abandoned") throw new UsageError(`${req.qid} is abandoned: it cannot be signed`);
  if (req.evidence === undefined) throw new UsageError("--evidence: expected what the person checked, in words");
  const consent = requirePerson("sign", { env, via: req.via });
  const evidence = signEvidence(req.evidence);
  // With a signing key (required under the signed policy) the sign-off is signed into the repository too (io/sign/act.ts).
  const id = identityForAct(req.root, consent.policy, env);
  const root = snap.target.root;
  const constrained = true; // the root rule above holds for named ledgers too
  const digest = gateDigest(view.gate);
  const cwd = view.gate.inputs ? gateCwd(signBase(snap, view.file), view.gate) : null;
  const result = await withFileLock(root, view.file, () => {
    const decoded = readLedgerText(view.file, constrained ? root : undefined);
    if (!("text" in decoded)) throw new UsageError(decoded.message, { file: view.file, line: decoded.line });
    const fresh = parseLedger(decoded.text, stemOf(view.file));
    if (fresh.errors.length > 0)
      throw new UsageError(fresh.errors[0]!.message, { file: view.file, line: fresh.errors[0]!.line });
    const gate = fresh.gates.find((g) => g.id === view.gate.id);
    if (!gate || gateDigest(gate) !== digest)
      throw new UsageError(`${req.qid} changed while signing: look at it again, then sign`);
    const old = gate.checked && gate.evidence && gate.evidence.toLowerCase() !== "pending" ? gate.evidence : null;
    if (old !== null && old !== evidence && !req.replace) {
      throw new UsageError(
        `${req.qid} is already signed ("${old.slice(0, 80)}"): pass --replace to sign it again (the old evidence is kept in the log)`,
      );
    }
    // What the person reviewed: the INPUTS as they are now, bound to this signature.
    const digested = cwd ? digestInputs(root, cwd, gate.inputs!) : null;
    if (digested?.truncated)
      throw new UsageError(
        `${req.qid}: its INPUTS match too many files to bind to a signature: narrow them, then sign`,
      );
    const inputs = digested ? digested.files : null;
    const text = applyGateEdit(fresh, gate, { checked: true, evidence });
    const status = text === fresh.text ? ("unchanged" as const) : ("written" as const);
    if (status === "written") writeAtomic(view.file, text, constrained ? { root } : {});
    return {
      file: view.file,
      gateId: gate.id,
      status,
      inputs,
      replaced: old !== null && old !== evidence ? old : null,
    };
  });
  const record =
    result.inputs && cwd
      ? { definition: digest as unknown as string, evidence, cwd, inputs: view.gate.inputs!, files: result.inputs }
      : null;
  if (record) await recordInputs(root, view.file, { [view.gate.id]: record });
  if (id) signSignoff(root, id, view.file, view.gate, evidence, result.inputs, env);
  await attest(consent.store, root, view.file, [
    { gate: view.gate.id, kind: "sign", evidence, inputs: record, oracle: null },
  ]);
  const replaced = result.replaced !== null ? ` replaced ${JSON.stringify(result.replaced)}` : "";
  logConsent(consent, `${path.resolve(view.file)} ${view.gate.id} ${JSON.stringify(evidence)}${replaced}`);
  return result;
}

/** The folder a manual gate's INPUTS are relative to (its CWD's base, as for a CHECK). */
function signBase(snap: Snapshot, file: string): string {
  if (snap.target.mode !== "explicit") return snap.target.root;
  return scopeLedgerRoot(file) ?? path.dirname(file);
}
