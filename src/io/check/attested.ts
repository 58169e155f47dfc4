// Under the person policy (docs/formats.md#attestations) a met gate counts only while kbz's own
// attestation in the approval store vouches for it: a core/trace.ts attestation record, checked by
// the one `verify` against the gate's evidence now and the INPUTS and oracle pass records the
// repository holds now (UNATTESTED otherwise). A gate that held an approval or attested evidence
// and is gone from its ledger, or whose ledger is gone, is REMOVED until a person confirms with
// `kbz approvals prune`. Both are read by every reader of a snapshot (status, check, the Stop
// hook, the dashboard): one readdir and one read per attested ledger, one short hash per met gate.
import * as fs from "node:fs";
import * as path from "node:path";
import { isRunnable, stemOf, type Gate, type Ledger } from "../../core/ledger/model.ts";
import type { Snapshot } from "../../core/snapshot.ts";
import type { Target } from "../../core/workspace/target.ts";
import { attestationReason, attestationRecord, attestedEvidence, NO_RECORD, recordDigest, vacuityRecord, verify, type TraceData, type TraceRecord } from "../../core/trace.ts";
import { approvalDirFor } from "../run/approval.ts";
import { decodeAttestation, forget, metListDigest, readRootAttestations, recordedGates, type LedgerAttestations, type MetGate, type RootAttestations } from "../run/attest.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { readPolicy } from "../run/personal.ts";
import { readTrace } from "../trace.ts";

type Env = Record<string, string | undefined>;

function realOf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Does a ledger kbz once attested (now gone) belong to what this target judges? */
function belongs(target: Target, ledger: string): boolean {
  const root = realOf(target.root);
  if (target.mode === "explicit") return target.files.some((f) => realOf(f) === ledger);
  const dir = path.dirname(ledger);
  const base = path.basename(dir) === "gates" ? path.dirname(dir) : dir;
  if (path.basename(ledger) !== "GATES.md" && path.basename(dir) !== "gates") return false;
  if (base === root) return true; // the solo ledgers are judged together with any scope
  const scopeDir = path.dirname(base);
  if (scopeDir !== path.join(root, ".unlazy")) return false;
  // The current scope's ledgers, and those of a scope whose folder is gone altogether.
  return path.basename(base) === target.scope || !fs.existsSync(base);
}

function removedItem(qid: string, where: string): string {
  return `${qid} REMOVED (${where}; a person confirms with kbz approvals prune, or ABANDON it)`;
}

/** The REMOVED items of a snapshot's target. */
function removedGates(snap: Snapshot, atts: RootAttestations, realFile: (file: string) => string): string[] {
  const out: string[] = [];
  const loaded = new Map(snap.ledgers.map((l) => [realFile(l.file), l]));
  for (const [ledger, rec] of atts.ledgers) {
    const ids = recordedGates(rec);
    if (ids.length === 0) continue;
    const entry = loaded.get(ledger);
    const shown = path.relative(snap.target.root, ledger) || ledger;
    if (entry) {
      if (!entry.ledger || entry.problems.length > 0) continue; // an invalid ledger is reported as such
      const have = new Set(entry.ledger.gates.map((g) => g.id));
      for (const id of ids) if (!have.has(id)) out.push(removedItem(`${entry.stem}:${id}`, `deleted from ${shown}`));
    } else if (!fs.existsSync(ledger) && belongs(snap.target, ledger)) {
      for (const id of ids) out.push(removedItem(`${stemOf(ledger)}:${id}`, `${shown} was deleted`));
    }
  }
  return out;
}

/** The INPUTS and oracle pass records of one ledger, by gate id (only those kinds). */
function recordsByGate(records: readonly TraceRecord[] | undefined): Map<string, TraceRecord[]> | null {
  if (!records || records.length === 0) return null;
  const out = new Map<string, TraceRecord[]>();
  for (const r of records) {
    if (r.kind !== "inputs" && r.kind !== "oracle") continue;
    const id = r.subject.slice(r.subject.lastIndexOf("#") + 1);
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  return out;
}

/** The digest of the record of `kind` that speaks for the gate's current evidence, or "-". */
function recordNow(byGate: Map<string, TraceRecord[]> | null, g: Gate, kind: "inputs" | "oracle"): string {
  const r = byGate?.get(g.id)?.find((x) => x.kind === kind && x.key.evidence === g.evidence);
  return r ? recordDigest(r) : NO_RECORD;
}

function metGate(g: Gate, byGate: Map<string, TraceRecord[]> | null): MetGate {
  return { id: g.id, kind: isRunnable(g) ? "pass" : "sign", evidence: g.evidence ?? "", inputs: recordNow(byGate, g, "inputs"), oracle: recordNow(byGate, g, "oracle") };
}

/**
 * Why kbz's attestation does not vouch for this met gate (null when it does). The records the
 * repository holds now count only when they speak for the gate's current evidence (a record of an
 * older pass is no record); each is hashed only when the attestation's evidence matched.
 */
function unattestedReason(file: string, g: Gate, rec: LedgerAttestations | undefined, byGate: Map<string, TraceRecord[]> | null): string | null {
  const kind = isRunnable(g) ? "pass" : "sign";
  const stored = rec ? decodeAttestation(rec.gates[g.id]) : null;
  const record = stored ? attestationRecord(file, g.id, kind, stored) : null;
  const v = verify(record, {
    digest: (n) => (n === "attested" ? attestedEvidence(kind, g.evidence ?? "") : n === "inputs" || n === "oracle" ? recordNow(byGate, g, n) : undefined),
  });
  return attestationReason(v, kind);
}

/**
 * The approval store's attestations of a root, read once per read and shared by the steps below;
 * null under the agent policy (nothing is checked against them there).
 */
export function storeAttestations(root: string, env: Env = process.env): RootAttestations | null {
  const store = approvalDirFor(env);
  return readPolicy(store) === "person" ? readRootAttestations(store, root) : null;
}

/**
 * A read's records with kbz's VACUOUS verdicts from the store added (core/trace.ts vacuityRecord),
 * so the one reader of verdicts (gateVerdicts) sees them beside the repository's: `files` are the
 * read's ledgers (`resolve`: not known to be real paths).
 */
export function withStoreVerdicts(trace: TraceData, files: readonly string[], atts: RootAttestations | null, resolve = false): TraceData {
  const held = atts ? [...atts.ledgers].filter(([, rec]) => rec.vacuous) : [];
  if (held.length === 0) return trace;
  const byReal = new Map(files.map((f) => [resolve ? realOf(f) : f, f]));
  const records = new Map(trace.records);
  for (const [ledger, rec] of held) {
    const file = byReal.get(ledger);
    if (file === undefined) continue;
    records.set(file, [...(records.get(file) ?? []), ...Object.entries(rec.vacuous!).map(([id, s]) => vacuityRecord(file, id, s))]);
  }
  return { records, world: trace.world };
}

/**
 * Mark UNATTESTED gates and list REMOVED ones, under the person policy only. `trace`: the read's
 * records (io/trace.ts); `atts`: the store's attestations when the caller read them (storeAttestations).
 */
export function markAttestations(snap: Snapshot, trace: TraceData, env: Env = process.env, given?: RootAttestations | null): void {
  const atts = given === undefined ? storeAttestations(snap.target.root, env) : given;
  if (!atts) return;
  // Discovered ledgers are real paths already (listed under the canonical root, links refused);
  // only ledgers named on the command line are resolved (a realpath per ledger was a tenth of this).
  const realFile = snap.target.mode === "explicit" ? realOf : (file: string) => file;
  const metByFile = new Map<string, Snapshot["gates"]>();
  for (const v of snap.gates) {
    if (v.state !== "met") continue;
    const list = metByFile.get(v.file);
    if (list) list.push(v);
    else metByFile.set(v.file, [v]);
  }
  for (const [file, met] of metByFile) {
    const rec = atts.ledgers.get(realFile(file));
    const byGate = recordsByGate(trace.records.get(file));
    // One hash for the whole ledger when its met gates are the ones kbz last attested (attest.ts `all`).
    if (rec?.all !== undefined && rec.all === metListDigest(met.map((v) => metGate(v.gate, byGate)))) continue;
    for (const v of met) {
      const reason = unattestedReason(file, v.gate, rec, byGate);
      if (reason === null) continue;
      v.state = "unattested";
      v.reason = reason;
    }
  }
  const removed = removedGates(snap, atts, realFile);
  if (removed.length > 0) snap.removed = removed;
}

/**
 * The scheduler's view (kbz next): per ledger, the met gates kbz's attestations do not vouch for;
 * null under the agent policy (nothing to check). `trace`: the read's records, when the caller
 * has them (else each ledger's are read).
 */
export function unattestedGates(root: string, env: Env = process.env, trace?: TraceData, given?: RootAttestations | null): ((file: string, ledger: Ledger, isMet: (g: Gate) => boolean) => Set<string>) | null {
  const atts = given === undefined ? storeAttestations(root, env) : given;
  if (!atts) return null;
  return (file, ledger, isMet) => {
    const rec = atts.ledgers.get(realOf(file));
    const byGate = recordsByGate((trace ?? readTrace(root, [file], { real: true })).records.get(file));
    const met = ledger.gates.filter(isMet);
    if (rec?.all !== undefined && rec.all === metListDigest(met.map((g) => metGate(g, byGate)))) return new Set<string>();
    return new Set(met.filter((g) => unattestedReason(file, g, rec, byGate) !== null).map((g) => g.id));
  };
}

/** Whether this root has REMOVED gates to report although no ledger is left (status, the Stop hook). */
export function hasAttestedLedgers(root: string, env: Env = process.env): boolean {
  const store = approvalDirFor(env);
  if (readPolicy(store) !== "person") return false;
  return readRootAttestations(store, root).ledgers.size > 0;
}

/**
 * `kbz approvals prune`: a person confirms that the REMOVED gates of this root are gone on
 * purpose; kbz forgets their records. With `only` (qualified ids), just those: the dashboard
 * confirms one REMOVED gate at a time. Returns the qualified ids forgotten.
 */
export async function pruneRemoved(store: string, root: string, only?: ReadonlySet<string>): Promise<string[]> {
  const atts = readRootAttestations(store, root);
  const out: string[] = [];
  for (const [ledger, rec] of atts.ledgers) {
    const ids = recordedGates(rec);
    let gone: string[];
    if (!fs.existsSync(ledger)) gone = ids;
    else {
      let text: string;
      try {
        text = fs.readFileSync(ledger, "utf8");
      } catch {
        continue;
      }
      const parsed = parseLedger(text, stemOf(ledger));
      if (parsed.errors.length > 0) continue; // a half-saved ledger is no reason to forget
      const have = new Set(parsed.gates.map((g) => g.id));
      gone = ids.filter((id) => !have.has(id));
    }
    if (only) gone = gone.filter((id) => only.has(`${stemOf(ledger)}:${id}`));
    if (gone.length === 0) continue;
    await forget(store, root, ledger, gone.length === ids.length ? "all" : gone);
    out.push(...gone.map((id) => `${stemOf(ledger)}:${id}`));
  }
  return out;
}
