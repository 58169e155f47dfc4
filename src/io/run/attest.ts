// Attestation records (docs/formats.md#attestations): every pass kbz writes and every signature
// also leaves a record in the approval store, outside the repository, keyed with the user's
// secret (HMAC-SHA256). Under the person policy a met gate counts only while such a record
// matches its definition, evidence and INPUTS digests; evidence typed into a ledger by hand, or
// written by unlazy, Kill_bezzangyi or another machine, is UNATTESTED until kbz verifies it.
// One file per ledger: `<store>/kbz/attest/<24 hex of the root>/<24 hex of the ledger>.json`, whose
// first line is the HMAC of the rest (one JSON object): one MAC per ledger, checked before parsing.
import * as fs from "node:fs";
import * as path from "node:path";
import { createHmac, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../../core/util/hash.ts";
import { sweepStrayTemps, writeAtomic } from "../fs.ts";
import { pidAlive, withLockFile } from "../lock.ts";
import { attestSecret, kbzDir, type Given } from "./personal.ts";

const MAX_FILE_BYTES = 16 * 1024 * 1024;

export interface Attestation {
  /** "pass": kbz ran the CHECK and it passed; "sign": a person signed a manual gate. */
  kind: "pass" | "sign";
  /** The gate's definition digest (null for a manual gate). */
  definition: string | null;
  /** The EVIDENCE line as written. */
  evidence: string;
  /** The approval signature of the oracle that ran (null for a signature). */
  oracle: string | null;
  /** sha256 over the INPUTS digests recorded with the pass or signature (null without INPUTS). */
  inputs: string | null;
  given: Given;
  at: string;
}

export interface LedgerAttestations {
  schema: 1;
  root: string;
  ledger: string;
  gates: Record<string, Attestation>;
  /** Gates that hold an approval (id → when it was first recorded), so a deleted gate is noticed. */
  approved: Record<string, string>;
}

function realOf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

const key24 = (p: string) => sha256Hex(p).slice(0, 24);

export function attestDir(store: string, root: string): string {
  return path.join(store, "kbz", "attest", key24(realOf(root)));
}

function attestFile(store: string, root: string, ledger: string): string {
  return path.join(attestDir(store, root), `${key24(realOf(ledger))}.json`);
}

/** The digest of an INPUTS record's files (path → sha256), in path order. */
export function inputsDigest(files: Record<string, string> | null | undefined): string | null {
  if (!files) return null;
  const sorted = Object.keys(files).sort().map((k) => [k, files[k]]);
  return sha256Hex(JSON.stringify(sorted));
}

function macOf(secret: Buffer, body: string): string {
  return createHmac("sha256", secret).update("kbz.attestation\0").update(body).digest("hex");
}

/** The file's text: the MAC line, then the body. */
function sealed(secret: Buffer, f: LedgerAttestations): string {
  const body = JSON.stringify(f);
  return `${macOf(secret, body)}\n${body}\n`;
}

/** The body of a file whose MAC verifies under `secret` (null when it does not, or no secret). */
function unsealed(text: string, secret: Buffer | null): string | null {
  const nl = text.indexOf("\n");
  if (nl !== 64 || !secret) return null;
  const body = text.slice(nl + 1).replace(/\n$/, "");
  const want = Buffer.from(macOf(secret, body), "hex");
  const got = Buffer.from(text.slice(0, 64), "hex");
  return got.length === want.length && timingSafeEqual(got, want) ? body : null;
}

function parse(text: string | null): LedgerAttestations | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text);
    if (v?.schema !== 1 || typeof v.root !== "string" || typeof v.ledger !== "string" || typeof v.gates !== "object" || !v.gates) return null;
    return { schema: 1, root: v.root, ledger: v.ledger, gates: v.gates, approved: v.approved && typeof v.approved === "object" ? v.approved : {} };
  } catch {
    return null;
  }
}

function readFileIfPrivate(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || st.size > MAX_FILE_BYTES || (st.mode & 0o077) !== 0) return null;
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

export interface AttestEntry {
  gate: string;
  kind: Attestation["kind"];
  definition: string | null;
  evidence: string;
  oracle: string | null;
  inputs: string | null;
}

type Change = (file: LedgerAttestations, secret: Buffer) => void;

async function update(store: string, root: string, ledger: string, change: Change): Promise<void> {
  kbzDir(store, true);
  const secret = attestSecret(store, true)!;
  const realRoot = realOf(root);
  const realLedger = realOf(ledger);
  const dir = attestDir(store, realRoot);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = attestFile(store, realRoot, realLedger);
  sweepStrayTemps(dir, pidAlive); // temp files of writers killed mid-write
  await withLockFile(`${file}.lock`, file, () => {
    const text = readFileIfPrivate(file);
    // A file whose MAC does not verify (another secret, an edit) is started afresh.
    const current = parse(text !== null ? unsealed(text, secret) : null) ?? { schema: 1 as const, root: realRoot, ledger: realLedger, gates: {}, approved: {} };
    change(current, secret);
    // A cache-like write (no fsync): a crash may lose a record, which only asks for a re-verification.
    writeAtomic(file, sealed(secret, current), { mode: 0o600, durable: false });
  });
}

/** Record passes or signatures of gates of one ledger. */
export async function attest(store: string, root: string, ledger: string, entries: AttestEntry[], given: Given): Promise<void> {
  if (entries.length === 0) return;
  await update(store, root, ledger, (f) => {
    const at = new Date().toISOString();
    for (const e of entries) f.gates[e.gate] = { kind: e.kind, definition: e.definition, evidence: e.evidence, oracle: e.oracle, inputs: e.inputs, given, at };
  });
}

/** Note that gates of a ledger hold an approval (for REMOVED). */
export async function noteApproved(store: string, root: string, ledger: string, gates: string[]): Promise<void> {
  if (gates.length === 0) return;
  await update(store, root, ledger, (f) => {
    for (const g of gates) f.approved[g] ??= new Date().toISOString();
  });
}

/** Forget gates (a person confirmed their removal with `kbz approvals prune`); a ledger file with none left is removed. */
export async function forget(store: string, root: string, ledger: string, gates: string[] | "all"): Promise<void> {
  const file = attestFile(store, root, ledger);
  if (!fs.existsSync(file)) return;
  await update(store, root, ledger, (f) => {
    const ids = gates === "all" ? [...new Set([...Object.keys(f.gates), ...Object.keys(f.approved)])] : gates;
    for (const g of ids) {
      delete f.gates[g];
      delete f.approved[g];
    }
  });
  const left = parse(unsealed(readFileIfPrivate(file) ?? "", attestSecret(store, false)));
  if (left && Object.keys(left.gates).length === 0 && Object.keys(left.approved).length === 0) fs.rmSync(file, { force: true });
}

/** What status and the Stop hook read: every ledger's records under one root whose MAC verifies. */
export interface RootAttestations {
  ledgers: Map<string, LedgerAttestations>;
  valid(ledger: string, gate: string): Attestation | null;
}

const EMPTY: RootAttestations = { ledgers: new Map(), valid: () => null };

export function readRootAttestations(store: string, root: string): RootAttestations {
  let dir: string;
  let names: string[];
  try {
    dir = attestDir(store, root);
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return EMPTY;
  }
  const secret = attestSecret(store, false);
  const realRoot = realOf(root);
  const ledgers = new Map<string, LedgerAttestations>();
  for (const n of names) {
    const text = readFileIfPrivate(path.join(dir, n));
    const f = parse(text !== null ? unsealed(text, secret) : null);
    if (f && f.root === realRoot) ledgers.set(f.ledger, f);
  }
  return {
    ledgers,
    valid: (ledger, gate) => ledgers.get(ledger)?.gates[gate] ?? null,
  };
}
