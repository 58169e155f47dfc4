// The stable reader (unlazy §5.6): every repository file is read as one unchanged,
// regular, single-link file, never through a link, never blocking on a FIFO.
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../errors.ts";

export const MAX_LEDGER_BYTES = 8 * 1024 * 1024;

export type ReadCode = "ENOENT" | "UNSAFE" | "TOO_LARGE" | "OUTSIDE" | "IO";

const READ_HINTS: Record<ReadCode, string> = {
  ENOENT: "create the file or name an existing one",
  UNSAFE: "replace the link, FIFO, directory or hard link with one regular file, then run the command again",
  TOO_LARGE: "split the file or shorten it",
  OUTSIDE: "keep the file inside the repository root",
  IO: "check the file's permissions and the disk, then run the command again",
};

/** A file kbz would not or could not read. `file` is the path as given to the reader. */
export class ReadError extends KbzError {
  declare readonly code: ReadCode;
  constructor(message: string, code: ReadCode, file: string) {
    super(message, { code, file, hint: READ_HINTS[code] });
  }
}

const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

function sameIdentity(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function unchanged(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return sameIdentity(a, b) && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Same inode, type, size and times: the file as it was (the consistency pass of `kbz next`). */
export function sameFileState(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return unchanged(a, b) && a.mode === b.mode;
}

/** `child` is `parent` or below it. Both absolute; a plain prefix answers most calls without path.relative. */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(path.sep) ? parent : parent + path.sep;
  if (path.sep === "/" && child.startsWith(base) && !child.includes("/..")) return true;
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

export interface StableReadOptions {
  label: string; // "gate ledger", "dispatch state", ...
  maxBytes: number;
  root?: string; // canonical root the file must resolve inside
  /**
   * Canonical paths of parent folders, shared by the reads of one snapshot: the file itself is
   * opened without following links, so its realpath is its folder's realpath plus its name.
   */
  realDirs?: Map<string, string>;
  /**
   * The caller itself compares the name's lstat with the stat handed to `use`, after its whole
   * snapshot is read (kbz next's consistency pass does), so this read skips its own lstat of the
   * name. A file that changes or is swapped mid-read is then caught by the caller's pass.
   */
  nameCheckedByCaller?: boolean;
}

// One buffer reused by every read: a process reading 10,000 ledgers touches one file's worth of
// fresh memory instead of 10,000 (page faults dominate a cold CLI run). A buffer grown for an
// unusually large file is not kept, so a long-lived dashboard does not hold megabytes for it.
let scratch: Buffer | null = null;
const KEEP_SCRATCH_BYTES = 1024 * 1024;

function keepScratch(buf: Buffer | null): void {
  if (scratch === null && buf !== null && buf.length <= KEEP_SCRATCH_BYTES) scratch = buf;
}

function realpathOf(file: string, cache: Map<string, string> | undefined): string {
  if (!cache) return fs.realpathSync(file);
  const dir = path.dirname(file);
  let real = cache.get(dir);
  if (real === undefined) {
    real = fs.realpathSync(dir);
    cache.set(dir, real);
  }
  return path.join(real, path.basename(file));
}

/**
 * The stable read of `file`, handed to `use` as a view that is only valid during the call,
 * with the descriptor's stat taken before the bytes were read.
 */
export function readStableWith<T>(file: string, opts: StableReadOptions, use: (bytes: Buffer, stat: fs.BigIntStats) => T): T {
  const single = `${opts.label} must be one unchanged regular single-link file`;
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      let exists = false;
      try {
        fs.lstatSync(file);
        exists = true;
      } catch {}
      if (exists) throw new ReadError(single, "UNSAFE", file);
      throw new ReadError(`no such ${opts.label}`, "ENOENT", file);
    }
    if (code === "ELOOP" || code === "EISDIR" || code === "ENXIO" || code === "EMLINK") throw new ReadError(single, "UNSAFE", file);
    throw new ReadError(`cannot open ${opts.label}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "IO", file);
  }
  let buf = scratch;
  scratch = null; // a nested read (from `use`) gets its own buffer
  let total = 0;
  let before: fs.BigIntStats;
  try {
    // The descriptor was opened without following a final link, so it is the named file as it
    // was at open time; the name is compared with it once, after the read (below).
    before = fs.fstatSync(fd, { bigint: true });
    if (!before.isFile() || before.nlink !== 1n) throw new ReadError(single, "UNSAFE", file);
    if (before.size > BigInt(opts.maxBytes)) {
      throw new ReadError(`${opts.label} exceeds ${opts.maxBytes} bytes`, "TOO_LARGE", file);
    }
    if (opts.root) {
      const real = realpathOf(file, opts.realDirs);
      if (!isInside(opts.root, real)) throw new ReadError(`${opts.label} is outside the allowed root`, "OUTSIDE", file);
    }
    const size = Number(before.size);
    // Room for one byte more than the size, so a file that grew is noticed in this read.
    const want = Math.min(size + 1, opts.maxBytes + 1);
    if (!buf || buf.length < want) buf = Buffer.allocUnsafe(Math.min(Math.max(want, 64 * 1024, (buf?.length ?? 0) * 2), opts.maxBytes + 1));
    for (;;) {
      if (total === buf.length) {
        if (total > opts.maxBytes) throw new ReadError(`${opts.label} exceeds ${opts.maxBytes} bytes`, "TOO_LARGE", file);
        const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, opts.maxBytes + 1));
        buf.copy(grown, 0, 0, total);
        buf = grown;
      }
      const n = fs.readSync(fd, buf, total, buf.length - total, null);
      if (n === 0) break;
      total += n;
      if (total > opts.maxBytes) throw new ReadError(`${opts.label} exceeds ${opts.maxBytes} bytes`, "TOO_LARGE", file);
      // A short read of a regular file is its end: no second call just to see zero bytes.
      if (total < buf.length && total >= size) break;
    }
    if (BigInt(total) !== before.size) throw new ReadError(`${opts.label} changed before it was read`, "UNSAFE", file);
    // One lstat of the name after the read proves both halves: the name still leads to the
    // inode that was read (not swapped for another file, a link or a directory), and that
    // inode's size and times did not move while it was read (the lstat of the same inode
    // reports what an fstat of the descriptor would).
    if (!opts.nameCheckedByCaller) {
      const named = fs.lstatSync(file, { bigint: true });
      if (!sameIdentity(before, named)) throw new ReadError(single, "UNSAFE", file);
      if (!unchanged(before, named) || named.nlink !== 1n) throw new ReadError(`${opts.label} changed before it was read`, "UNSAFE", file);
    }
  } catch (e) {
    keepScratch(buf);
    if (e instanceof ReadError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ReadError(single, "UNSAFE", file);
    throw new ReadError(`cannot read ${opts.label}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "IO", file);
  } finally {
    fs.closeSync(fd);
  }
  // No second realpath: the name still resolving to the same inode (checked above, or by the
  // caller's pass) already rules out a swapped file or a swapped parent directory.
  try {
    return use(buf!.subarray(0, total), before);
  } finally {
    keepScratch(buf);
  }
}

/** The stable read of `file` as bytes the caller owns. */
export function readStable(file: string, opts: StableReadOptions): Buffer {
  return readStableWith(file, opts, (bytes) => Buffer.from(bytes));
}

/** Byte offset of the first invalid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) (need = 1), (min = 0x80);
    else if (c >= 0xe0 && c <= 0xef) (need = 2), (min = 0x800);
    else if (c >= 0xf0 && c <= 0xf4) (need = 3), (min = 0x10000);
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

export function lineAt(b: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (b[i] === 10) line++;
  return line;
}

const FATAL_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode a ledger's bytes as text, or say exactly what is wrong and where. A leading UTF-8
 * byte-order mark (editors write one) is stripped, so a gate on line 1 is seen; a writeback
 * saves the ledger without it.
 */
export function decodeLedgerText(b: Buffer): { text: string } | { line: number; message: string } {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const nul = b.indexOf(0);
  if (nul >= 0) return { line: lineAt(b, nul), message: "contains a NUL byte; a ledger is UTF-8 text, not binary data" };
  try {
    return { text: FATAL_UTF8.decode(b) };
  } catch {
    const bad = firstInvalidUtf8(b);
    return { line: lineAt(b, bad), message: `invalid UTF-8 at byte ${bad}; a ledger must be UTF-8 text` };
  }
}
