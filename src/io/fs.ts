// Atomic writes (docs/formats.md#writes): exclusive temp file, fsync, rename, fsync of the directory.
// A reader sees the old bytes or the new bytes, never a mix, even if we are killed mid-write.
import * as fs from "node:fs";
import * as path from "node:path";
import { randomHex } from "../core/util/hash.ts";
import { isInside } from "../core/workspace/inside.ts";
import { KbzError } from "../core/errors.ts";

export class WriteError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, {
      kind: "infrastructure",
      code: "write",
      file,
      hint: "make the path a real directory or regular file inside the repository, then run the command again",
    });
  }
}

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** Make `dir` (and missing parents) as real directories; refuse links on the way inside `root`. */
export function ensureRealDir(dir: string, root?: string, mode = 0o700): void {
  const st = lstatOrNull(dir);
  if (st) {
    if (st.isSymbolicLink() || !st.isDirectory()) throw new WriteError("not a real directory", dir);
    if (root && !isInside(root, fs.realpathSync(dir)))
      throw new WriteError("directory resolves outside the repository", dir);
    return;
  }
  ensureRealDir(path.dirname(dir), root, mode);
  try {
    fs.mkdirSync(dir, { mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  ensureRealDir(dir, root, mode);
}

export function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

export interface AtomicWriteOptions {
  root?: string; // when given, the parent must resolve inside it
  mode?: number; // for a new file; an existing file keeps its mode
  createParents?: boolean;
  /**
   * false: skip both fsyncs, for caches only (the last-run cache). Readers still see the old or
   * the new bytes, never a mix; a crash of the machine may lose the write, which a cache allows.
   */
  durable?: boolean;
}

export function writeAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = path.dirname(target);
  if (opts.createParents) ensureRealDir(dir, opts.root);
  const dst = lstatOrNull(dir);
  if (!dst || dst.isSymbolicLink() || !dst.isDirectory()) throw new WriteError("parent is not a real directory", dir);
  if (opts.root) {
    if (!isInside(opts.root, fs.realpathSync(dir)))
      throw new WriteError("refusing to write outside the repository", target);
    const u = lstatOrNull(path.join(opts.root, ".unlazy"));
    if (u && (u.isSymbolicLink() || !u.isDirectory()))
      throw new WriteError("must be a real directory", path.join(opts.root, ".unlazy"));
  }
  const existing = lstatOrNull(target);
  if (existing && (existing.isSymbolicLink() || !existing.isFile()))
    throw new WriteError("refusing to replace a non-regular file", target);
  const mode = existing ? existing.mode & 0o7777 : (opts.mode ?? 0o644);
  sweepOnce(dir);
  const tmp = `${target}.${process.pid}.${randomHex(8)}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    try {
      const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      let off = 0;
      while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
      fs.fchmodSync(fd, mode);
      if (opts.durable !== false) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw e;
  }
  if (opts.durable !== false) syncDir(dir);
}

function syncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY);
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

const TEMP = /^(.+)\.(\d+)\.[0-9a-f]{16}\.tmp$/;

/** A temp file this old, of a writer pid that is gone, is litter (a writer in another PID namespace may look gone: it is never that slow). */
export const STRAY_TEMP_AGE_MS = 10_000;
const swept = new Set<string>();

function writerAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * No litter (issue 28 item 11): the first atomic write of a process into a folder removes the
 * temp files that killed writers left there (`<name>.<pid>.<hex>.tmp`, pid gone, untouched for
 * STRAY_TEMP_AGE_MS). Once per folder and process: a bulk write of many files reads the folder once.
 */
function sweepOnce(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  const old = Date.now() - STRAY_TEMP_AGE_MS;
  sweepStrayTemps(dir, (pid) => writerAlive(pid), old);
}

/**
 * Remove temp files of earlier crashed atomic writes in `dir` (`<name>.<pid>.<hex>.tmp` whose
 * writer pid is no longer alive). Returns the names removed.
 */
export function sweepStrayTemps(dir: string, alive: (pid: number) => boolean, olderThanMs = Infinity): string[] {
  const removed: string[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || alive(Number(m[2]))) continue;
    const file = path.join(dir, name);
    const st = lstatOrNull(file);
    if (!st || !st.isFile() || st.mtimeMs > olderThanMs) continue;
    try {
      fs.unlinkSync(file);
      removed.push(name);
    } catch {}
  }
  return removed;
}
