// Attestation records (docs/formats.md#attestations): every pass kbz writes and every signature
// also leaves a record in the approval store, outside the repository, under the user's secret
// (HMAC-SHA256). Under the person policy a met gate counts only while such a record matches it
// (core/trace.ts attestationRecord, checked by the one `verify`): the digest of its kind and
// EVIDENCE line, and the digests of the INPUTS and oracle pass records kbz wrote with the pass
// in the repository (.kbz/inputs/, .kbz/oracles/). Evidence typed into a ledger by hand, written
// by unlazy, Kill_bezzangyi or another machine, or a pass whose oracle record was deleted or
// edited, is UNATTESTED until kbz verifies it again.
//
// Stored compactly: digests only, never the evidence text (a 10,000-gate repository keeps about
// 0.4 MB, where whole records took 2.6 MB that every status and Stop hook read and MAC'd).
// One file per root: `<store>/kbz/attest/<24 hex of the root>.json`, the MAC of the body on the
// first line, the body (one JSON object, every ledger's records by real path) on the second: one
// read and one MAC per status or Stop hook, checked before parsing (one file per ledger cost
// status 200 opens, reads and MACs at 200 ledgers, about 4 % of it). Files of the previous layout
// (`<24 hex of the root>/<24 hex of the ledger>.json`, one per ledger) are still read, and folded
// into the root's file by its next write.
import * as fs from "node:fs";
import * as path from "node:path";
import { equalConstantTime, hmacSha256Hex, sha256Hex } from "../../core/util/hash.ts";
import {
  attestedEvidence,
  attestedLedgerDigest,
  decodeAttestation,
  inputsRecord,
  metListDigest,
  NO_RECORD,
  oracleRecord,
  recordDigest,
  type AttestationStored,
  type MetGate,
  type InputsStored,
  type OracleStored,
  type VacuityStored,
} from "../../core/trace.ts";
import { gateState } from "../../core/ledger/state.ts";
import { isRunnable, stemOf } from "../../core/ledger/model.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES } from "../../core/text/decode.ts";
import { sweepStrayTemps, writeAtomic } from "../fs.ts";
import { pidAlive, withLockFile } from "../lock.ts";
import { attestSecret, kbzDir, readPrivate } from "./personal.ts";

const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** A ledger's records inside a root's file (schema 3), and a per-ledger file of the previous layout (schema 2). */
const SCHEMA = 2;
const ROOT_SCHEMA = 3;

/**
 * One ledger's attestations. `gates`: gate id → `"<evidence>"`, or `"<evidence> <inputs> <oracle>"`
 * when the pass or signature had an INPUTS or oracle record (each 32 hex digits, "-" for none).
 * `approved`: the gates that hold an approval, so a deleted gate is noticed (REMOVED).
 */
export interface LedgerAttestations {
  schema: typeof SCHEMA;
  root: string;
  ledger: string;
  gates: Record<string, string>;
  approved: string[];
  /**
   * The speed trick of this module: the digest of the ledger's whole list of met gates as it was
   * when kbz last attested into this file (metListDigest), written only when every met gate was
   * attested. A reader whose met gates give the same digest knows each one's attestation holds
   * without checking them one by one (one hash per ledger instead of one per gate, which cost
   * status a tenth of its time at 10,000 gates); any difference falls back to the per-gate check.
   */
  all?: string;
  /**
   * The digest of the ledger's whole text when kbz last wrote into this file (core/trace.ts
   * attestedLedgerDigest, the cheaper form of the same trick), when every met gate was attested
   * and every gate this file speaks for was in the ledger: a reader whose text gives the same
   * digest skips the met list and the REMOVED walk.
   */
  text?: string;
  /**
   * Gates a probe found VACUOUS (core/trace.ts VacuityStored), kept here rather than in the
   * repository so that no file an agent can edit or delete clears the verdict (issue 27).
   */
  vacuous?: Record<string, VacuityStored>;
}

/** A root's file: every ledger's records, by real ledger path (the per-ledger bodies without root and ledger). */
interface RootAttestationFile {
  schema: typeof ROOT_SCHEMA;
  root: string;
  ledgers: Record<string, Omit<LedgerAttestations, "schema" | "root" | "ledger">>;
}

function realOf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

const key24 = (p: string) => sha256Hex(p).slice(0, 24);

/** The folder of a root's per-ledger files of the previous layout. */
function legacyDir(store: string, realRoot: string): string {
  return path.join(store, "kbz", "attest", key24(realRoot));
}

function rootFile(store: string, realRoot: string): string {
  return path.join(store, "kbz", "attest", `${key24(realRoot)}.json`);
}

/** The stored form of one gate's attestation. */
function encode(a: AttestationStored): string {
  return a.inputs === NO_RECORD && a.oracle === NO_RECORD ? a.evidence : `${a.evidence} ${a.inputs} ${a.oracle}`;
}

function macOf(secret: Uint8Array, body: string): string {
  return hmacSha256Hex(secret, ["kbz.attestation\0", body]);
}

/** The file's text: the MAC line, then the body. */
function sealed(secret: Uint8Array, f: RootAttestationFile): string {
  const body = JSON.stringify(f);
  return `${macOf(secret, body)}\n${body}\n`;
}

/** The body of a file whose MAC verifies under `secret` (null when it does not, or no secret). */
function unsealed(text: string, secret: Uint8Array | null): string | null {
  const nl = text.indexOf("\n");
  if (nl !== 64 || !secret) return null;
  const body = text.slice(nl + 1).replace(/\n$/, "");
  return equalConstantTime(text.slice(0, 64), macOf(secret, body)) ? body : null;
}

/**
 * One ledger's records from a verified body: a per-ledger file of the previous layout (`v`
 * with root and ledger), or an entry of a root's file (`at` gives them). A file of the first
 * format (schema 1, whole records with the evidence text) keeps its approved and attested gate
 * ids, so a deleted gate is still REMOVED, but no gate's attestation: those are re-verified once.
 */
function ledgerOf(v: any, at?: { root: string; ledger: string }): LedgerAttestations | null {
  const root = at?.root ?? v?.root;
  const ledger = at?.ledger ?? v?.ledger;
  if (typeof root !== "string" || typeof ledger !== "string" || typeof v?.gates !== "object" || !v.gates) return null;
  if (!at && v.schema === 1) {
    const ids = [
      ...Object.keys(v.gates),
      ...Object.keys(v.approved && typeof v.approved === "object" ? v.approved : {}),
    ];
    return { schema: SCHEMA, root, ledger, gates: {}, approved: [...new Set(ids)].sort() };
  }
  if (!at && v.schema !== SCHEMA) return null;
  const approved = Array.isArray(v.approved) ? v.approved.filter((g: unknown) => typeof g === "string") : [];
  const vacuous = vacuityOf(v.vacuous);
  return {
    schema: SCHEMA,
    root,
    ledger,
    gates: v.gates,
    approved,
    ...(typeof v.all === "string" ? { all: v.all } : {}),
    ...(typeof v.text === "string" ? { text: v.text } : {}),
    ...(vacuous ? { vacuous } : {}),
  };
}

function parseJson(text: string | null): any {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The ledgers of a verified root file's body, by real ledger path (empty when it is not one of `realRoot`). */
function ledgersOf(v: any, realRoot: string): Map<string, LedgerAttestations> {
  const out = new Map<string, LedgerAttestations>();
  if (v?.schema !== ROOT_SCHEMA || v.root !== realRoot || typeof v.ledgers !== "object" || !v.ledgers) return out;
  for (const [ledger, body] of Object.entries(v.ledgers)) {
    const f = ledgerOf(body, { root: realRoot, ledger });
    if (f) out.set(ledger, f);
  }
  return out;
}

/** The well-formed VACUOUS verdicts of a verified body, or undefined when none. */
function vacuityOf(v: unknown): Record<string, VacuityStored> | undefined {
  if (!v || typeof v !== "object") return undefined;
  const out: Record<string, VacuityStored> = {};
  for (const [id, s] of Object.entries(v as Record<string, Partial<VacuityStored>>)) {
    if (s && typeof s.definition === "string" && typeof s.oracle === "string" && Array.isArray(s.hidden))
      out[id] = { definition: s.definition, oracle: s.oracle, hidden: s.hidden.filter((h) => typeof h === "string") };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A file's body, read once: parsed, with `verified` when its MAC verifies under `secret`. A body
 * whose MAC does not verify is only ever used for the gate ids it names (REMOVED). Null when the
 * file is absent, not private, or holds no body.
 */
function readBody(file: string, secret: Uint8Array | null): { body: any; verified: boolean } | null {
  const bytes = readPrivate(file, MAX_FILE_BYTES);
  if (!bytes) return null;
  const text = bytes.toString("utf8");
  const sealedBody = unsealed(text, secret);
  const body = parseJson(sealedBody ?? text.slice(text.indexOf("\n") + 1));
  return body ? { body, verified: sealedBody !== null } : null;
}

/** The per-ledger files of the previous layout under a root: their names, what verified, and the bodies that did not. */
function readLegacy(
  store: string,
  realRoot: string,
  secret: Uint8Array | null,
): { files: string[]; ledgers: Map<string, LedgerAttestations>; unverified: any[] } {
  const dir = legacyDir(store, realRoot);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return { files: [], ledgers: new Map(), unverified: [] };
  }
  const ledgers = new Map<string, LedgerAttestations>();
  const unverified: any[] = [];
  const files = names.map((n) => path.join(dir, n));
  for (const file of files) {
    const read = readBody(file, secret);
    if (!read) continue;
    if (!read.verified) {
      unverified.push(read.body);
      continue;
    }
    const f = ledgerOf(read.body);
    if (f && f.root === realRoot) ledgers.set(f.ledger, f);
  }
  return { files, ledgers, unverified };
}

export interface AttestEntry {
  gate: string;
  kind: "pass" | "sign";
  /** The EVIDENCE line as written. */
  evidence: string;
  /** The INPUTS record written with this pass or signature (.kbz/inputs/), or null. */
  inputs: InputsStored | null;
  /** The oracle pass record written with this pass (.kbz/oracles/), or null. */
  oracle: OracleStored | null;
}

/** What is stored for an entry: the digests of its evidence and of the records written with it. */
export function attestationOf(e: AttestEntry): AttestationStored {
  return {
    evidence: attestedEvidence(e.kind, e.evidence),
    inputs: e.inputs ? recordDigest(inputsRecord("", e.gate, e.inputs)) : NO_RECORD,
    oracle: e.oracle ? recordDigest(oracleRecord("", e.gate, e.oracle)) : NO_RECORD,
  };
}

/**
 * The ledger-wide digests after a write (LedgerAttestations.all and .text), over the ledger as it
 * is now: both only when each met gate's attestation matches its EVIDENCE line, `text` only when
 * also every gate the file speaks for is in the ledger (so a reader whose text matches has
 * nothing REMOVED). Either is dropped otherwise, and readers check gate by gate.
 */
function seal(ledger: string, f: LedgerAttestations): void {
  delete f.all;
  delete f.text;
  let decoded: ReturnType<typeof decodeLedgerText>;
  try {
    const st = fs.statSync(ledger);
    if (!st.isFile() || st.size > MAX_LEDGER_BYTES) return;
    decoded = decodeLedgerText(fs.readFileSync(ledger));
  } catch {
    return;
  }
  if (!("text" in decoded)) return;
  const parsed = parseLedger(decoded.text, stemOf(ledger));
  if (parsed.errors.length > 0) return;
  const met: MetGate[] = [];
  for (const g of parsed.gates) {
    if (gateState(g, parsed) !== "met") continue;
    const kind = isRunnable(g) ? "pass" : "sign";
    const a = decodeAttestation(f.gates[g.id]);
    if (!a || a.evidence !== attestedEvidence(kind, g.evidence ?? "")) return;
    met.push({ id: g.id, kind, evidence: g.evidence ?? "", inputs: a.inputs, oracle: a.oracle });
  }
  f.all = metListDigest(met);
  const have = new Set(parsed.gates.map((g) => g.id));
  if (recordedGates(f).every((id) => have.has(id))) f.text = attestedLedgerDigest(parsed);
}

type Change = (file: LedgerAttestations) => void;

/**
 * Change one ledger's records in its root's file, under the root file's lock. The previous
 * layout's per-ledger files of this root are folded in and removed. A file whose MAC does not
 * verify (another secret, an edit) is started afresh, but the gate ids it names stay noted as
 * approved: a claim that a gate existed can only make it REMOVED.
 */
async function update(store: string, root: string, ledger: string, change: Change): Promise<void> {
  kbzDir(store, true);
  const secret = attestSecret(store, true)!;
  const realRoot = realOf(root);
  const realLedger = realOf(ledger);
  const dir = path.join(store, "kbz", "attest");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = rootFile(store, realRoot);
  sweepStrayTemps(dir, pidAlive); // temp files of writers killed mid-write
  await withLockFile(`${file}.lock`, file, () => {
    const read = readBody(file, secret);
    const ledgers = read?.verified ? ledgersOf(read.body, realRoot) : unverifiedLedgers(read?.body, realRoot);
    const legacy = readLegacy(store, realRoot, secret);
    for (const [l, f] of legacy.ledgers) if (!ledgers.has(l)) ledgers.set(l, f);
    for (const body of legacy.unverified) noteUnverified(ledgers, body, realRoot);
    const current = ledgers.get(realLedger) ?? {
      schema: SCHEMA,
      root: realRoot,
      ledger: realLedger,
      gates: {},
      approved: [],
    };
    change(current);
    seal(realLedger, current);
    if (recordedGates(current).length > 0 || current.vacuous) ledgers.set(realLedger, current);
    else ledgers.delete(realLedger);
    const body: RootAttestationFile = { schema: ROOT_SCHEMA, root: realRoot, ledgers: {} };
    for (const [l, { schema: _s, root: _r, ledger: _l, ...rest }] of ledgers) body.ledgers[l] = rest;
    // A cache-like write (no fsync): a crash may lose a record, which only asks for a re-verification.
    if (ledgers.size > 0) writeAtomic(file, sealed(secret, body), { mode: 0o600, durable: false });
    else fs.rmSync(file, { force: true });
    // Folded in (or not to be trusted): the previous layout's files go once the root's file holds them.
    for (const f of legacy.files) fs.rmSync(f, { force: true });
    if (legacy.files.length > 0) fs.rmSync(legacyDir(store, realRoot), { recursive: true, force: true });
  });
}

/** The gate ids a root file that does not verify names, kept as approved (never as attested). */
function unverifiedLedgers(v: any, realRoot: string): Map<string, LedgerAttestations> {
  const out = new Map<string, LedgerAttestations>();
  if (v?.schema === ROOT_SCHEMA && v.ledgers && typeof v.ledgers === "object") {
    for (const [ledger, body] of Object.entries(v.ledgers))
      noteUnverified(out, { ...(body as object), root: realRoot, ledger, schema: SCHEMA }, realRoot);
  }
  return out;
}

/** Note the gate ids of an unverified per-ledger body as approved in `into` (for REMOVED). */
function noteUnverified(into: Map<string, LedgerAttestations>, v: any, realRoot: string): void {
  const f = ledgerOf(v);
  if (!f || f.ledger === "" || f.root !== realRoot) return;
  const ids = recordedGates(f);
  if (ids.length === 0) return;
  const have = into.get(f.ledger) ?? { schema: SCHEMA, root: realRoot, ledger: f.ledger, gates: {}, approved: [] };
  have.approved = [...new Set([...have.approved, ...ids])].sort();
  into.set(f.ledger, have);
}

/**
 * Record passes or signatures of gates of one ledger. `given` (how a person gave a signature) is
 * logged with the act in acts.log, not here: a record's actor follows from its kind.
 */
export async function attest(store: string, root: string, ledger: string, entries: AttestEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await update(store, root, ledger, (f) => {
    for (const e of entries) f.gates[e.gate] = encode(attestationOf(e));
  });
}

/**
 * Keep a probe's verdicts of gates of one ledger: a VACUOUS one is kept, an observing one (null)
 * clears the gate's earlier verdict.
 */
export async function recordVacuity(
  store: string,
  root: string,
  ledger: string,
  verdicts: Record<string, VacuityStored | null>,
): Promise<void> {
  if (Object.keys(verdicts).length === 0) return;
  await update(store, root, ledger, (f) => {
    const kept = { ...f.vacuous };
    for (const [id, v] of Object.entries(verdicts)) {
      if (v) kept[id] = v;
      else delete kept[id];
    }
    if (Object.keys(kept).length > 0) f.vacuous = kept;
    else delete f.vacuous;
  });
}

/** Note that gates of a ledger hold an approval (for REMOVED). */
export async function noteApproved(store: string, root: string, ledger: string, gates: string[]): Promise<void> {
  if (gates.length === 0) return;
  await update(store, root, ledger, (f) => {
    f.approved = [...new Set([...f.approved, ...gates])].sort();
  });
}

/** Every gate id a ledger's file speaks for (attested or approved). */
export function recordedGates(f: LedgerAttestations): string[] {
  return [...new Set([...Object.keys(f.gates), ...f.approved])].sort();
}

/** Forget gates (a person confirmed their removal with `kbz approvals prune`); a ledger with none left is dropped from its root's file. */
export async function forget(store: string, root: string, ledger: string, gates: string[] | "all"): Promise<void> {
  await update(store, root, ledger, (f) => {
    const gone = new Set(gates === "all" ? recordedGates(f) : gates);
    for (const g of gone) {
      delete f.gates[g];
      delete f.vacuous?.[g];
    }
    if (f.vacuous && Object.keys(f.vacuous).length === 0) delete f.vacuous;
    f.approved = f.approved.filter((g) => !gone.has(g));
  });
}

/** What status and the Stop hook read: every ledger's records under one root whose MAC verifies, by real ledger path. */
export interface RootAttestations {
  ledgers: Map<string, LedgerAttestations>;
}

export function readRootAttestations(store: string, root: string): RootAttestations {
  const secret = attestSecret(store, false);
  if (!secret) return { ledgers: new Map() };
  const realRoot = realOf(root);
  const read = readBody(rootFile(store, realRoot), secret);
  const ledgers = read?.verified ? ledgersOf(read.body, realRoot) : new Map<string, LedgerAttestations>();
  // The previous layout, until the root's next write folds it in; the root's file speaks first.
  for (const [l, f] of readLegacy(store, realRoot, secret).ledgers) if (!ledgers.has(l)) ledgers.set(l, f);
  return { ledgers };
}
