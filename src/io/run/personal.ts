// kbz's own part of the approval store (docs/formats.md#person-policy): `<store>/kbz/` holds the
// consent policy (policy.json), the per-user attestation secret (secret, 0600), the attestation
// records (attest/) and the log of a person's acts (acts.log). Like the approval records it lies
// outside every repository and is private to the user; unlazy never reads it.
import * as fs from "node:fs";
import * as path from "node:path";
import { secretHex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { ApprovalStoreError } from "./approval.ts";

export type Policy = "person" | "agent";
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

/**
 * A small private file of kbz's store, or null when absent, a link, not a regular file, linked
 * twice, over `max` bytes, readable by group or others, or owned by another user. Opened without
 * following links and without blocking (a FIFO in its place never hangs kbz).
 */
export function readPrivate(file: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = euid();
    if (!st.isFile() || st.nlink !== 1 || st.size > max || (st.mode & 0o077) !== 0 || (uid !== null && st.uid !== uid))
      return null;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The store's consent policy: `person` unless a person set `agent` (an unreadable file counts as person). */
export function readPolicy(store: string): Policy {
  const bytes = readPrivate(path.join(store, KBZ_SUBDIR, "policy.json"), 4096);
  if (!bytes) return "person";
  try {
    return JSON.parse(bytes.toString("utf8"))?.policy === "agent" ? "agent" : "person";
  } catch {
    return "person";
  }
}

export function writePolicy(store: string, policy: Policy, given: Given): string {
  const dir = kbzDir(store, true)!;
  const file = path.join(dir, "policy.json");
  writeAtomic(file, JSON.stringify({ schema: 1, policy, setAt: new Date().toISOString(), given }) + "\n", {
    mode: 0o600,
  });
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

/** Append one line to the log of a person's acts: `<ISO> <act> given=<how> <details>`. */
export function logAct(store: string, act: string, given: Given, details: string): void {
  const dir = kbzDir(store, true)!;
  const line = `${new Date().toISOString()} ${act} given=${given} ${details.replace(/[\r\n]+/g, " ")}\n`;
  const fd = fs.openSync(
    path.join(dir, "acts.log"),
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeSync(fd, line);
  } finally {
    fs.closeSync(fd);
  }
}
