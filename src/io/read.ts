// The stable read (docs/formats.md#stable-reads), the floor every reader of a workspace stands on:
// one unchanged, regular, single-link file, never through a link, never blocking on a FIFO, and
// the readers of each kind of workspace file built on it (ledgers, dispatch.json, lease records,
// status.log, scope files). This module imports nothing of io/: the scope read that composes
// these reads (io/scope.ts) stands above the coordination port, and the snapshot assembly is a
// use case (ops/snapshot.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import { ReadError } from "../core/errors.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES } from "../core/text/decode.ts";
import { isInside } from "../core/workspace/inside.ts";
import {
  invalidRecord,
  locksDir,
  MAX_LEASE_BYTES,
  parseLeaseRecord,
  type LeaseRecord,
} from "../core/dispatch/lease-record.ts";
import {
  dispatchPath,
  DispatchStateError,
  emptyDispatch,
  parseDispatch,
  waveLine,
  type DispatchState,
} from "../core/dispatch/waves.ts";
import { ledgerEntry, unreadableEntry, type LedgerEntry } from "../core/snapshot.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import type { Ledger } from "../core/ledger/model.ts";

const RACE_RETRIES = 4;
const MAX_LOG_BYTES = 8 * 1024 * 1024;

// ---- the stable read ----------------------------------------------------------------------

const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

function sameIdentity(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function unchanged(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return sameIdentity(a, b) && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Same inode, type, size and times: the file as it was (the consistency pass). */
export function sameFileState(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return unchanged(a, b) && a.mode === b.mode;
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
export function readStableWith<T>(
  file: string,
  opts: StableReadOptions,
  use: (bytes: Buffer, stat: fs.BigIntStats) => T,
): T {
  return stableRead(file, opts, use, true);
}

/**
 * The stable read without its own after-read lstat of the name: only for ScopeReader
 * (io/scope.ts), and only when it runs the consistency pass (`changed`) after its whole
 * snapshot: that pass compares each name's lstat with the stat handed to `use`, so a file that
 * changed or was swapped mid-read is caught there.
 */
export function readStableForPass<T>(
  file: string,
  opts: StableReadOptions,
  use: (bytes: Buffer, stat: fs.BigIntStats) => T,
): T {
  return stableRead(file, opts, use, false);
}

/** The read itself; `checkName` false defers the name's check to a consistency pass (above). */
function stableRead<T>(
  file: string,
  opts: StableReadOptions,
  use: (bytes: Buffer, stat: fs.BigIntStats) => T,
  checkName: boolean,
): T {
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
    if (code === "ELOOP" || code === "EISDIR" || code === "ENXIO" || code === "EMLINK")
      throw new ReadError(single, "UNSAFE", file);
    throw new ReadError(
      `cannot open ${opts.label}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      "IO",
      file,
    );
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
    if (!buf || buf.length < want)
      buf = Buffer.allocUnsafe(Math.min(Math.max(want, 64 * 1024, (buf?.length ?? 0) * 2), opts.maxBytes + 1));
    for (;;) {
      if (total === buf.length) {
        if (total > opts.maxBytes)
          throw new ReadError(`${opts.label} exceeds ${opts.maxBytes} bytes`, "TOO_LARGE", file);
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
    if (checkName) {
      const named = fs.lstatSync(file, { bigint: true });
      if (!sameIdentity(before, named)) throw new ReadError(single, "UNSAFE", file);
      if (!unchanged(before, named) || named.nlink !== 1n)
        throw new ReadError(`${opts.label} changed before it was read`, "UNSAFE", file);
    }
  } catch (e) {
    keepScratch(buf);
    if (e instanceof ReadError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ReadError(single, "UNSAFE", file);
    throw new ReadError(
      `cannot read ${opts.label}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      "IO",
      file,
    );
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

// ---- ledgers ------------------------------------------------------------------------------

/** A ledger's text, or where and why it is not UTF-8 text. ReadError for a file that cannot be read. */
export function readLedgerText(file: string, root?: string): { text: string } | { line: number; message: string } {
  return readStableWith(file, { label: "gate ledger", maxBytes: MAX_LEDGER_BYTES, root }, decodeLedgerText);
}

/** One ledger of the status snapshot, parsed; read problems become the entry's problems. */
export function loadLedgerFile(
  file: string,
  root: string,
  constrainToRoot: boolean,
  realDirs?: Map<string, string>,
  parse?: (text: string, stem: string) => Ledger,
): LedgerEntry {
  let decoded: ReturnType<typeof decodeLedgerText>;
  try {
    const opts = {
      label: "gate ledger",
      maxBytes: MAX_LEDGER_BYTES,
      root: constrainToRoot ? root : undefined,
      realDirs,
    };
    decoded = readStableWith(file, opts, decodeLedgerText);
  } catch (e) {
    if (e instanceof ReadError)
      return unreadableEntry(file, root, 1, e.code === "ENOENT" ? "no such gate file" : e.message);
    throw e;
  }
  return ledgerEntry(file, root, decoded, parse);
}

// ---- dispatch.json ------------------------------------------------------------------------

export interface LoadedDispatch {
  state: DispatchState;
  text: string | null; // null when the file is absent
}

/**
 * Load a scope's dispatch state with the stable reader. Absent means empty; every other read,
 * parse or validation failure is a DispatchStateError (links and FIFOs included). Unlike unlazy,
 * a file replaced during the read is read again, so a reader racing a committed transition sees
 * the old or the new state instead of a spurious "changed before it was read".
 */
export function loadDispatch(root: string, scope: string): LoadedDispatch {
  const file = dispatchPath(root, scope);
  let text: string | null = null;
  for (let attempt = 1; text === null; attempt++) {
    try {
      text = readStable(file, { label: "dispatch state", maxBytes: MAX_LEDGER_BYTES, root }).toString("utf8");
    } catch (e) {
      if (e instanceof ReadError && e.code === "ENOENT") return { state: emptyDispatch(), text: null };
      // A writer's atomic rename between our open and our identity checks looks exactly like a
      // swap; read again briefly. A link, FIFO or hard link stays unsafe and is reported.
      if (e instanceof ReadError && e.code === "UNSAFE" && attempt < RACE_RETRIES) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + Math.floor(Math.random() * 20));
        continue;
      }
      if (e instanceof ReadError) throw new DispatchStateError(e.message, null, 1, e.file);
      throw e;
    }
  }
  try {
    return { state: parseDispatch(text), text };
  } catch (e) {
    if (e instanceof DispatchStateError) throw new DispatchStateError(e.message, e.wave, waveLine(text, e.wave));
    throw e;
  }
}

/** dispatch.json's text, or null when absent (the files adapter's `dispatchText`). */
export function readDispatchText(root: string, scope: string): string | null {
  try {
    return readStable(dispatchPath(root, scope), {
      label: "dispatch state",
      maxBytes: MAX_LEDGER_BYTES,
      root,
    }).toString("utf8");
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return null;
    throw e;
  }
}

// ---- lease records ------------------------------------------------------------------------

/** Every lease record of the root, sorted by file name. A locks dir that is not real is one invalid record. */
export function readLeaseRecords(root: string): LeaseRecord[] {
  const dir = locksDir(root);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return [];
  }
  if (st.isSymbolicLink() || !st.isDirectory() || !isInside(root, fs.realpathSync(dir))) {
    return [invalidRecord(dir, "the locks directory must be a real directory inside the repository")];
  }
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".lease"))
    .sort()
    .map((n) => readLeaseRecord(path.join(dir, n), root));
}

export function readLeaseRecord(file: string, root: string): LeaseRecord {
  let text: string;
  try {
    text = readStable(file, { label: "lease record", maxBytes: MAX_LEASE_BYTES, root }).toString("utf8");
  } catch (e) {
    if (e instanceof ReadError) return invalidRecord(file, e.message);
    throw e;
  }
  return parseLeaseRecord(file, text);
}

// ---- other scope files --------------------------------------------------------------------

/** A scope file's text (`rel` scope-relative), null when absent; ReadError (file = rel) for anything else. */
export function readScopeText(root: string, scope: string, rel: string): string | null {
  const file = path.join(root, ".unlazy", scope, rel);
  let decoded: ReturnType<typeof decodeLedgerText>;
  try {
    decoded = readStableWith(file, { label: rel, maxBytes: MAX_LEDGER_BYTES, root }, decodeLedgerText);
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return null;
    if (e instanceof ReadError) throw new ReadError(e.message, e.code, rel);
    throw e;
  }
  if (!("text" in decoded)) throw new ReadError(decoded.message, "DECODE", rel, decoded.line);
  return decoded.text;
}

/** status.log's text, or null when absent. */
export function readStatusLog(root: string, scope: string): string | null {
  const file = path.join(root, ".unlazy", scope, "status.log");
  try {
    return readStable(file, { label: "status log", maxBytes: MAX_LOG_BYTES, root }).toString("utf8");
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return null;
    throw e;
  }
}

// ---- the texts a long-lived reader keeps ------------------------------------------------------

/**
 * The texts of one scope's files, carried by a long-lived reader (the dashboard) from one
 * consistent read to the next. A file whose lstat shows the inode, type, size and times it had
 * when its text was stably read is not opened again; any write (in place or by rename) moves
 * one of them, and the file is read again. The consistency pass still checks every file, so a
 * reader with a cache proves the same as one without; it only reads and decodes less. On a
 * 1,000-leaf scope the dashboard's plan phase re-read 1,000 unchanged ledgers on every event.
 */
export class ScopeTextCache {
  private readonly entries = new Map<string, { stat: fs.BigIntStats; text: string; parsed?: Ledger }>();

  /** The cached text of `file` when `now` (its lstat) is the state it was read in. */
  get(file: string, now: fs.BigIntStats | null): { stat: fs.BigIntStats; text: string } | null {
    const hit = this.entries.get(file);
    if (!hit || !now || !sameFileState(hit.stat, now) || now.nlink !== 1n) return null;
    return hit;
  }

  set(file: string, stat: fs.BigIntStats | null, text: string | null): void {
    if (!stat || text === null) {
      this.entries.delete(file);
      return;
    }
    // The same text keeps its parse (the dashboard's status side and plan side share it).
    const old = this.entries.get(file);
    this.entries.set(file, old?.text === text ? { stat, text, parsed: old.parsed } : { stat, text });
  }

  /**
   * The ledger parsed from `text` when it is the text cached for `file`: parsed once, then
   * handed back while the file is unchanged (a 1,000-leaf plan side parsed 1,000 ledgers on
   * every event; their garbage, not their parse time, was what cost resident memory).
   */
  ledger(file: string, text: string, stem: string): Ledger {
    const hit = this.entries.get(file);
    if (!hit || hit.text !== text) return parseLedger(text, stem);
    if (!hit.parsed || hit.parsed.stem !== stem) hit.parsed = parseLedger(text, stem);
    return hit.parsed;
  }

  /** Forget files no read asked for since `keep` was taken (deleted ledgers, another scope). */
  retain(keep: ReadonlySet<string>): void {
    for (const file of this.entries.keys()) if (!keep.has(file)) this.entries.delete(file);
  }
}

/** The lstat of `file` now, null when it is absent. */
export function currentStat(file: string): fs.BigIntStats | null {
  return fs.lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
}
