// kbz's own part of the approval store (docs/formats.md#person-policy): `<store>/kbz/` holds the
// consent policy (policy.json), the per-user attestation secret (secret, 0600), the attestation
// records (attest/) and the log of a person's acts (acts.log). Like the approval records it lies
// outside every repository and is private to the user; unlazy never reads it.
import * as fs from "node:fs";
import * as path from "node:path";
import { equalConstantTime, hmacSha256Hex, secretHex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { ApprovalStoreError } from "./approval.ts";

/** person (the default), agent (unlazy's model), signed (only approvals and sign-offs signed by an allowed signer count). */
export type Policy = "person" | "agent" | "signed";
export const POLICIES: readonly Policy[] = ["person", "agent", "signed"];
/** How a verdict or a person's act was given: a person at a terminal, the dashboard, or kbz for an agent. */
export type Given = "terminal" | "dashboard" | "agent" | "kbz";

export const KBZ_SUBDIR = "kbz";
const SECRET_BYTES = 32;

function euid(): number | null {
  return typeof process.geteuid === "function" ? process.geteuid() : null;
}

/** A real, private (0700, the user's) directory, or an ApprovalStoreError. */
function assertPrivateDir(dir: string): void {
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new ApprovalStoreError("must be a real directory", dir);
  const uid = euid();
  if (uid !== null && st.uid !== uid) throw new ApprovalStoreError("must be owned by the current user", dir);
  if ((st.mode & 0o077) !== 0) throw new ApprovalStoreError("must not grant group or other permissions", dir);
}

/** `<store>/kbz`, validated; created (with the store) when `create`; null when absent. */
export function kbzDir(store: string, create: boolean): string | null {
  const dir = path.join(store, KBZ_SUBDIR);
  if (create) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new ApprovalStoreError(`cannot create: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, dir);
    }
  }
  try {
    assertPrivateDir(store);
    assertPrivateDir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  return dir;
}

// readPrivate lives in io/run/private.ts (the kept-bytes store reads with it too, without an import circle).
import { readPrivate } from "./private.ts";
export { readPrivate };

export interface PolicyState {
  policy: Policy;
  /** policy.json is there but carries no valid MAC: written by hand (or by an agent), so `person` holds. */
  handEdited: boolean;
}

/** The MAC of a policy file's body: kbz's attestation secret over `kbz.policy\0<body>`. */
function policyMac(secret: Buffer, body: string): string {
  return hmacSha256Hex(secret, ["kbz.policy\0", body]);
}

/**
 * The store's consent policy: `person` unless a person set another through kbz. The file is
 * `{"schema":2,"policy":…,"setAt":…,"given":…,"mac":…}`; the MAC (under the attestation secret)
 * covers the rest, so a policy.json written by hand, or by an agent, leaves `person` in force
 * and says so (handEdited). An unreadable file counts as person.
 */
export function readPolicyState(store: string): PolicyState {
  const bytes = readPrivate(path.join(store, KBZ_SUBDIR, "policy.json"), 4096);
  if (!bytes) return { policy: "person", handEdited: false };
  let v: any;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { policy: "person", handEdited: true };
  }
  const secret = attestSecret(store, false);
  if (!v || typeof v !== "object" || typeof v.mac !== "string" || !secret)
    return { policy: "person", handEdited: true };
  const { mac, ...rest } = v;
  if (!equalConstantTime(mac, policyMac(secret, JSON.stringify(rest)))) return { policy: "person", handEdited: true };
  return { policy: (POLICIES as readonly string[]).includes(rest.policy) ? rest.policy : "person", handEdited: false };
}

export function readPolicy(store: string): Policy {
  return readPolicyState(store).policy;
}

export function writePolicy(store: string, policy: Policy, given: Given): string {
  const dir = kbzDir(store, true)!;
  const file = path.join(dir, "policy.json");
  const secret = attestSecret(store, true)!;
  const body = { schema: 2, policy, setAt: new Date().toISOString(), given };
  writeAtomic(file, JSON.stringify({ ...body, mac: policyMac(secret, JSON.stringify(body)) }) + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

/** The per-user attestation secret; created on first use when `create`, else null when absent. */
export function attestSecret(store: string, create: boolean): Buffer | null {
  const file = path.join(store, KBZ_SUBDIR, "secret");
  const found = readPrivate(file, 1024);
  if (found && found.length >= SECRET_BYTES) return found;
  if (!create) return null;
  kbzDir(store, true);
  try {
    const fd = fs.openSync(
      file,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      0o600,
    );
    try {
      fs.writeSync(fd, secretHex(SECRET_BYTES));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST")
      throw new ApprovalStoreError(`cannot create the attestation secret: ${(e as Error).message}`, file);
  }
  const made = readPrivate(file, 1024);
  if (!made || made.length < SECRET_BYTES)
    throw new ApprovalStoreError("the attestation secret is not a private regular file", file);
  return made;
}

/** The MAC of one acts.log line, chained to the line before it (deleting or reordering lines breaks the chain). */
function actMac(secret: Buffer, prev: string, line: string): string {
  return hmacSha256Hex(secret, ["kbz.acts\0", prev, "\0", line]);
}

const MAC_SUFFIX = / mac=([0-9a-f]{64})$/;

/** The MAC at the end of the log's last line ("" for an empty log). */
function lastMac(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return "";
  }
  try {
    const size = fs.fstatSync(fd).size;
    const n = Math.min(size, 8192);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, size - n);
    const lines = buf.toString("utf8").split("\n").filter(Boolean);
    return MAC_SUFFIX.exec(lines[lines.length - 1] ?? "")?.[1] ?? "";
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Append one line to the log of a person's acts: `<ISO> <act> given=<how> <details> mac=<hex>`,
 * the MAC (under the attestation secret) chained to the line before (verifyActsLog).
 */
export function logAct(store: string, act: string, given: Given, details: string): void {
  const dir = kbzDir(store, true)!;
  const secret = attestSecret(store, true)!;
  const file = path.join(dir, "acts.log");
  const line = `${new Date().toISOString()} ${act} given=${given} ${details.replace(/[\r\n]+/g, " ")}`;
  const fd = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeSync(fd, `${line} mac=${actMac(secret, lastMac(file), line)}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

/** The 1-based numbers of acts.log lines whose MAC does not hold (written or edited by hand, or reordered). */
export function verifyActsLog(store: string): { lines: number; bad: number[] } {
  const bytes = readPrivate(path.join(store, KBZ_SUBDIR, "acts.log"), 64 * 1024 * 1024);
  const secret = attestSecret(store, false);
  if (!bytes) return { lines: 0, bad: [] };
  const lines = bytes.toString("utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const bad: number[] = [];
  let prev = "";
  lines.forEach((l, i) => {
    const m = MAC_SUFFIX.exec(l);
    const body = m ? l.slice(0, l.length - m[0].length) : l;
    if (!m || !secret || !equalConstantTime(m[1]!, actMac(secret, prev, body))) bad.push(i + 1);
    prev = m?.[1] ?? "";
  });
  return { lines: lines.length, bad };
}
