// Signed records in the repository (docs/formats.md#signed-records): written by a person's
// approval or sign-off when git's user.signingKey is set, read by the `signed` policy (status, the
// Stop hook) and by `kbz ci`. What a record binds and how it is compared is core/signed/record.ts;
// the signature is OpenSSH's (io/sign/ssh.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../../core/errors.ts";
import type { Gate } from "../../core/ledger/model.ts";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { RuntimeOracle } from "../../core/run/oracle.ts";
import {
  formatPayload,
  formatRecord,
  inputChanges,
  MAX_RECORD_BYTES,
  oracleChanges,
  parseRecord,
  recordRelPath,
  signoffDefinition,
  type PortableOracle,
  type SignedKind,
  type SignedPayload,
  type SignedRecord,
} from "../../core/signed/record.ts";
import { writeAtomic } from "../fs.ts";
import { signerName, signingKey, sshSign } from "./ssh.ts";

type Env = Record<string, string | undefined>;

function rel(root: string, p: string): string {
  const r = path.relative(root, p);
  return r === "" ? "." : r.startsWith("..") || path.isAbsolute(r) ? p : r.split(path.sep).join("/");
}

/** The ledger as records name it: root-relative with `/`. */
export function ledgerKey(root: string, file: string): string {
  let real = file;
  try {
    real = fs.realpathSync(file);
  } catch {}
  return rel(realRoot(root), real);
}

const roots = new Map<string, string>();
function realRoot(root: string): string {
  let r = roots.get(root);
  if (r === undefined) {
    try {
      r = fs.realpathSync(root);
    } catch {
      r = root;
    }
    roots.set(root, r);
  }
  return r;
}

/** The oracle of a gate as a clean checkout elsewhere compares it (core/signed/record.ts PortableOracle). */
export function portableOracle(root: string, gate: Gate, o: RuntimeOracle): PortableOracle {
  const r = realRoot(root);
  const s = o.sandbox;
  return {
    check: o.check,
    expect: o.expect,
    cwd: rel(r, o.cwd),
    timeoutMs: o.timeoutMs,
    shell: path.basename(o.shell),
    files: { ...(o.bound?.files ?? {}) },
    programs: {},
    env: [...(gate.env ?? [])].sort(),
    sandbox: s
      ? {
          network: s.network,
          writable: s.writable.map((w) => rel(r, w)),
          hidden: (s.hidden ?? []).map((h) => rel(r, h)),
        }
      : null,
  };
}

export interface SignIdentity {
  key: string;
  signer: string;
}

/** The person's signing identity when git's user.signingKey names an SSH key (and user.email is set), else null. */
export function signingIdentity(root: string, env: Env = process.env): SignIdentity | null {
  const key = signingKey(root, env);
  if (!key) return null;
  const signer = signerName(root, env);
  if (!signer)
    throw new KbzError(
      "git's user.signingKey is set but user.email is not: the signature names its signer by user.email",
      {
        kind: "input",
        code: "signing",
        hint: "git config --global user.email you@example.com (the same principal as in your allowed signers)",
      },
    );
  return { key, signer };
}

/** Sign `payload` and write it to its place under `.kbz/signed/`; returns the root-relative path. */
export function writeSignedRecord(
  root: string,
  payload: SignedPayload,
  id: SignIdentity,
  env: Env = process.env,
): string {
  const message = formatPayload(payload);
  const signature = sshSign(id.key, message, env);
  const relPath = recordRelPath(payload.ledger, payload.gate, payload.kind);
  const abs = path.join(root, relPath);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  writeAtomic(abs, formatRecord(message, signature), { root });
  return relPath;
}

/** A runnable gate's approval payload: its whole oracle as the person saw it. */
export function approvalPayload(
  root: string,
  file: string,
  gate: Gate,
  oracle: RuntimeOracle,
  signer: string,
): SignedPayload {
  return {
    kind: "approval",
    ledger: ledgerKey(root, file),
    gate: gate.id,
    title: gate.title,
    definition: gateDigest(gate) ?? "",
    oracle: portableOracle(root, gate, oracle),
    signer,
    signedAt: new Date().toISOString(),
  };
}

/** A manual gate's sign-off payload: what it says, the evidence and the INPUTS the person reviewed. */
export function signoffPayload(
  root: string,
  file: string,
  gate: Gate,
  evidence: string,
  inputs: Record<string, string> | null,
  signer: string,
): SignedPayload {
  return {
    kind: "sign-off",
    ledger: ledgerKey(root, file),
    gate: gate.id,
    title: gate.title,
    definition: signoffDefinition(gate.title, gate.inputs),
    evidence,
    inputs,
    signer,
    signedAt: new Date().toISOString(),
  };
}

/** The record of a gate, parsed (a malformed one throws SignedFormatError at its line), or null when there is none. */
export function readSignedRecord(
  root: string,
  ledger: string,
  gate: string,
  kind: SignedKind,
): { rel: string; record: SignedRecord } | null {
  const relPath = recordRelPath(ledger, gate, kind);
  const abs = path.join(root, relPath);
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new KbzError(`cannot read the signed record: ${code ?? (e as Error).message}`, {
      kind: "input",
      code: "signed-format",
      file: relPath,
      line: 1,
      hint: "a signed record is a regular file, not a link",
    });
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile())
      throw new KbzError("a signed record must be a regular file", {
        kind: "input",
        code: "signed-format",
        file: relPath,
        line: 1,
      });
    if (st.size > MAX_RECORD_BYTES)
      throw new KbzError(`a signed record is at most ${MAX_RECORD_BYTES} bytes`, {
        kind: "input",
        code: "signed-format",
        file: relPath,
        line: 1,
      });
    return { rel: relPath, record: parseRecord(fs.readFileSync(fd, "utf8"), relPath) };
  } finally {
    fs.closeSync(fd);
  }
}

/** A record that matches the checkout and still needs its signature verified. */
export interface ToVerify {
  rel: string;
  message: string;
  signature: string;
  signer: string;
}

/**
 * A record found for the gate: what to verify, and what changed since it was signed (empty when it
 * matches). The signature is verified first: a record whose signature fails says nothing.
 */
export type RecordCheck = { ok: true; verify: ToVerify; changes: string[] } | { ok: false; reason: string };

/**
 * Does the gate's record in the repository speak for the gate as the checkout has it? Everything
 * but the signature: its place, its gate, the oracle or the reviewed INPUTS (`changes`). `now` is the
 * checkout's oracle (runnable) or INPUTS digests (manual).
 */
export function checkRecord(
  root: string,
  file: string,
  gate: Gate,
  now: { oracle: PortableOracle } | { inputs: Record<string, string> | null },
): RecordCheck {
  const ledger = ledgerKey(root, file);
  const kind: SignedKind = "oracle" in now ? "approval" : "sign-off";
  const found = readSignedRecord(root, ledger, gate.id, kind);
  const relPath = recordRelPath(ledger, gate.id, kind);
  if (!found) return { ok: false, reason: `no signed ${kind} (${relPath})` };
  const p = found.record.payload;
  if (p.ledger !== ledger || p.gate !== gate.id || p.kind !== kind)
    return {
      ok: false,
      reason: `${relPath} is a record of ${p.ledger}:${p.gate} (${p.kind}), not of this gate: copied from another gate`,
    };
  if (found.record.signature === null) return { ok: false, reason: `${relPath} is unsigned` };
  const changes: string[] = [];
  if ("oracle" in now) {
    changes.push(...oracleChanges(p.oracle!, now.oracle));
    if (changes.length === 0 && p.definition !== gateDigest(gate)) changes.push("the gate's definition changed");
  } else {
    if (p.definition !== signoffDefinition(gate.title, gate.inputs))
      changes.push(`the gate's text or INPUTS changed since the sign-off (signed "${p.title}")`);
    changes.push(...inputChanges(p.inputs ?? null, now.inputs));
  }
  return {
    ok: true,
    verify: { rel: relPath, message: found.record.message, signature: found.record.signature, signer: p.signer },
    changes,
  };
}
