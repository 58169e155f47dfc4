// Per-target mutex files (docs/formats.md#writes) with one deliberate addition: a lock whose owner
// is provably gone (same host, pid no longer alive) is recovered instead of blocking forever.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomHex } from "../core/util/hash.ts";
import { sha256Hex } from "../core/ledger/digest.ts";
import { ensureRealDir } from "./fs.ts";
import { KbzError } from "../core/errors.ts";

export class LockTimeoutError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, {
      kind: "infrastructure",
      code: "lock-timeout",
      file,
      hint: "another kbz holds the lock; wait for it or remove a stale lock file, then run the command again",
    });
  }
}

export interface LockOwner {
  token: string;
  pid: number;
  host: string;
  target: string;
  at: string;
}

export interface LockOptions {
  timeoutMs?: number; // default 30 s
  /** Called when a dead owner's lock was removed, so the caller can log it. */
  onRecovered?: (owner: LockOwner, lockFile: string) => void;
}

/** realpath of the nearest existing ancestor plus the missing suffix: aliases share one lock. */
export function canonicalTarget(target: string): string {
  let dir = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(dir), ...rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return path.resolve(target);
      rest.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

export function lockPath(root: string, target: string): string {
  return path.join(root, ".unlazy", "locks", `${sha256Hex(canonicalTarget(target)).slice(0, 24)}.filelock`);
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(file: string): LockOwner | null {
  try {
    const o = JSON.parse(fs.readFileSync(file, "utf8"));
    if (o && typeof o.token === "string" && Number.isInteger(o.pid) && typeof o.host === "string")
      return o as LockOwner;
  } catch {}
  return null;
}

function identity(file: string): string | null {
  try {
    const st = fs.lstatSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

function tryRecover(file: string, opts: LockOptions): boolean {
  const before = identity(file);
  const owner = readOwner(file);
  if (!owner || owner.host !== os.hostname() || pidAlive(owner.pid) || owner.pid === process.pid) return false;
  // An owner that released and exited between our read and the pid check leaves its name free
  // for a new, live owner; only a file that is still the one we read may be recovered.
  if (before === null || identity(file) !== before) return false;
  // Move it aside first so two recoverers cannot both delete a fresh lock.
  const aside = `${file}.${randomHex(6)}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return false;
  }
  const moved = readOwner(aside);
  if (!moved || moved.token !== owner.token) {
    try {
      fs.renameSync(aside, file);
    } catch {}
    return false;
  }
  fs.rmSync(aside, { force: true });
  opts.onRecovered?.(owner, file);
  return true;
}

/** Remove `file` when it is a lock whose holder is provably gone; true when removed. */
export function recoverIfGone(file: string): boolean {
  return tryRecover(file, {});
}

export async function withFileLock<T>(
  root: string,
  target: string,
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const file = lockPath(root, target);
  ensureRealDir(path.dirname(file), root);
  return withLockFile(file, target, fn, opts);
}

/** Who holds a lock file, for messages: `pid 123 on host h since <time>`, or why it is unknown. */
export function describeHolder(file: string): string {
  const o = readOwner(file);
  if (!o) return "an unknown holder (the lock file has no readable owner record)";
  const alive = o.host === os.hostname() ? (pidAlive(o.pid) ? "alive" : "gone") : "on another host";
  return `pid ${o.pid} on host ${o.host} (${alive}) since ${o.at}`;
}

/**
 * Hold the mutex file `file` while `fn` runs. A holder that is provably gone (same host, pid
 * dead) is recovered; waiting past the timeout names the file and its holder.
 */
export async function withLockFile<T>(
  file: string,
  target: string,
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const owner: LockOwner = {
    token: randomHex(12),
    pid: process.pid,
    host: os.hostname(),
    target: canonicalTarget(target),
    at: new Date().toISOString(),
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  sweepLockDirOnce(path.dirname(file), file, opts);
  let lastCode = "EEXIST";
  // The owner record is written to a private file first and then hard-linked into place,
  // so a lock file is never seen empty: a holder killed mid-acquire cannot leave a lock
  // whose owner is unknown (and therefore unrecoverable).
  // The pid in the name lets a sweeper remove it even when its writer died before writing it.
  const staged = `${file}.${process.pid}-${owner.token}.new`;
  const fd = fs.openSync(
    staged,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeSync(fd, JSON.stringify(owner));
  } finally {
    fs.closeSync(fd);
  }
  for (;;) {
    try {
      fs.linkSync(staged, file);
      fs.rmSync(staged, { force: true });
      break;
    } catch (e) {
      lastCode = (e as NodeJS.ErrnoException).code ?? "unknown";
      if (lastCode !== "EEXIST") {
        fs.rmSync(staged, { force: true });
        throw e;
      }
      if (tryRecover(file, opts)) continue;
      if (Date.now() >= deadline) {
        fs.rmSync(staged, { force: true });
        throw new LockTimeoutError(
          `timed out waiting for the lock ${file} held by ${describeHolder(file)} (last filesystem error: ${lastCode})`,
          file,
        );
      }
      await new Promise((r) => setTimeout(r, 15 + Math.floor(Math.random() * 26)));
    }
  }
  try {
    return await fn();
  } finally {
    if (readOwner(file)?.token === owner.token) fs.rmSync(file, { force: true });
  }
}

const sweptDirs = new Set<string>();
const LOCK_NAME = /\.(filelock|lock)$/;

/**
 * Issue 42 item 4: the first lock a process takes in a folder sweeps what killed lock takers
 * left there: staged owner records and moved-aside locks (sweepLockLitter), and lock files whose
 * owner is provably gone (same host, pid dead), whatever target they were for: a lock is
 * otherwise recovered only when its own target is locked again, which may be never. Once per
 * folder and process (a readdir; only lock files are opened).
 */
export function sweepLockDirOnce(dir: string, taking: string | null = null, opts: LockOptions = {}): void {
  if (sweptDirs.has(dir)) return;
  sweptDirs.add(dir);
  sweepLockLitter(dir);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  // The lock about to be taken is recovered by the taking itself (which says so).
  for (const name of names) {
    const f = path.join(dir, name);
    if (LOCK_NAME.test(name) && f !== taking) tryRecover(f, opts);
  }
}

const STAGED = /\.(\d+)-[0-9a-f]{24}\.new$/;
const ASIDE = /\.[0-9a-f]{12}\.stale$/;

/**
 * Remove what killed lock takers left in `dir`: staged owner records (`*.new`) and moved-aside
 * stale locks (`*.stale`) whose recorded owner is gone on this host. Returns the names removed.
 */
export function sweepLockLitter(dir: string): string[] {
  const removed: string[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const staged = STAGED.exec(name);
    if (!staged && !ASIDE.test(name)) continue;
    const file = path.join(dir, name);
    if (staged && !pidAlive(Number(staged[1]))) {
      try {
        fs.unlinkSync(file);
        removed.push(name);
      } catch {}
      continue;
    }
    const o = readOwner(file);
    // An unreadable record may be one being written right now; only a provably dead owner's goes.
    if (!o || o.host !== os.hostname() || pidAlive(o.pid)) continue;
    try {
      fs.unlinkSync(file);
      removed.push(name);
    } catch {}
  }
  return removed;
}
