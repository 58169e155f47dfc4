// The Stop hook's progress guard (docs/formats.md#stop-hook): per session and scope, the blocks
// counted without gate progress, so an agent that cannot meet its gates is eventually released
// (loudly) instead of looping forever. The counts and their lock are kbz's: they live in the
// private store, `<store>/kbz/guard/<24 hex of sha256(real root)>/state.json` (0600 in 0700
// directories, like the holds), never in the repository, so nothing the agent makes there (a
// folder, link, FIFO or hard link where unlazy kept `hook-state.json`, a lock naming a live pid,
// a read-only root) can stop the counting or reset it. unlazy's repository files are not read.
//
// A block counts toward the release only when the host shows a new turn: for a stop whose payload
// names a transcript, the transcript grew since the last counted block (the host appends each
// block's feedback to it). Payloads naming different transcripts count apart, so payloads the
// agent pipes into `kbz hook stop` with another transcript, or none, never spend the real one's.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/ledger/digest.ts";
import { KbzError } from "../../core/errors.ts";
import { readPrivate } from "../run/personal.ts";
import { writeAtomic } from "../fs.ts";
import { withLockFile } from "../lock.ts";

export const MAX_SESSIONS = 256;
export const MAX_STATE_BYTES = 1024 * 1024;

export interface SessionEntry {
  hash: string;
  blocks: number;
  updatedAt: string;
  /** Consecutive blocked stops that did not count (an empty assistant message); absent when none. */
  skipped?: number;
  /** The transcript's size at the last counted block (absent: the stop named no transcript). */
  seen?: number;
}

export interface GuardState {
  schema: 1;
  sessions: Record<string, SessionEntry>;
}

const HEX24 = /^[0-9a-f]{24}$/;

/** The folder of one root's counts in the private store. */
export function guardDir(store: string, root: string): string {
  return path.join(store, "kbz", "guard", sha256Hex(root).slice(0, 24));
}

export function sessionKey(sessionId: string, scope: string | null): string {
  return sha256Hex(`${sessionId}\0${scope ?? "unscoped"}`).slice(0, 24);
}

/** Keep only well-formed entries; a damaged sibling is dropped, never fatal. */
export function normalizeState(raw: unknown): GuardState {
  const sessions: Record<string, SessionEntry> = Object.create(null);
  const src = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as { sessions?: unknown }).sessions : null;
  if (src && typeof src === "object" && !Array.isArray(src)) {
    for (const [key, value] of Object.entries(src as Record<string, unknown>)) {
      if (!HEX24.test(key) || !value || typeof value !== "object") continue;
      const e = value as Record<string, unknown>;
      if (typeof e.hash !== "string" || !HEX24.test(e.hash)) continue;
      if (typeof e.blocks !== "number" || !Number.isSafeInteger(e.blocks) || e.blocks < 0) continue;
      if (typeof e.updatedAt !== "string" || Number.isNaN(Date.parse(e.updatedAt))) continue;
      const skipped =
        typeof e.skipped === "number" && Number.isSafeInteger(e.skipped) && e.skipped > 0 ? { skipped: e.skipped } : {};
      const seen = typeof e.seen === "number" && Number.isSafeInteger(e.seen) && e.seen >= 0 ? { seen: e.seen } : {};
      sessions[key] = { hash: e.hash, blocks: e.blocks, updatedAt: e.updatedAt, ...skipped, ...seen };
    }
  }
  return { schema: 1, sessions };
}

/**
 * Options of one count: `restartAfter` n starts a count that already passed n again (a new turn);
 * `uncounted` records a blocked stop without counting it toward the release (a turn that ended with
 * no assistant message), at most MAX_SKIPPED in a row, after which such stops count like any
 * other, so a host with no cap of its own cannot loop forever.
 */
export interface CountOptions {
  restartAfter?: number | null;
  uncounted?: boolean;
  /**
   * The size of the transcript the stop names, null when it names none. With a transcript, a block
   * counts only when it grew since the last counted block (a new turn of the host).
   */
  transcript?: number | null;
}

/** Consecutive uncounted stops after which they count: a model that only ever answers nothing is released too. */
export const MAX_SKIPPED = 6;

/** Count one block for `key`: reset on a new progress hash, keep the 64 most recent sessions. */
export function countBlock(
  state: GuardState,
  key: string,
  hash: string,
  now: Date,
  opts: CountOptions = {},
): { state: GuardState; blocks: number } {
  const prev = state.sessions[key];
  const restart = opts.restartAfter != null && prev !== undefined && prev.blocks > opts.restartAfter;
  const carried = prev && prev.hash === hash && !restart ? prev : null;
  const size = opts.transcript ?? null;
  // No new turn: the transcript did not grow since the last counted block.
  const sameTurn = carried !== null && size !== null && carried.seen !== undefined && size <= carried.seen;
  const skipped = sameTurn ? (carried?.skipped ?? 0) : opts.uncounted ? (carried?.skipped ?? 0) + 1 : 0;
  const counts = !sameTurn && (!opts.uncounted || skipped > MAX_SKIPPED);
  const blocks = (carried?.blocks ?? 0) + (counts ? 1 : 0);
  const seen = counts ? size : (carried?.seen ?? null);
  const entry: SessionEntry = {
    hash,
    blocks,
    updatedAt: now.toISOString(),
    ...(skipped > 0 ? { skipped } : {}),
    ...(seen !== null ? { seen } : {}),
  };
  const all: [string, SessionEntry][] = Object.entries(state.sessions).filter(([k]) => k !== key);
  all.push([key, entry]);
  all.sort((a, b) => Date.parse(b[1].updatedAt) - Date.parse(a[1].updatedAt) || (a[0] < b[0] ? -1 : 1));
  const sessions: Record<string, SessionEntry> = {};
  for (const [k, v] of all.slice(0, MAX_SESSIONS).sort((a, b) => (a[0] < b[0] ? -1 : 1))) sessions[k] = v;
  return { state: { schema: 1, sessions }, blocks };
}

/** The counts could not be kept: the stop still blocks, and says so (never an allow). */
export class GuardError extends KbzError {
  constructor(message: string, file: string) {
    super(message, {
      kind: "infrastructure",
      code: "guard-state",
      file,
      hint: "repair or remove kbz's private store (UNLAZY_APPROVAL_DIR, default ~/.unlazy/approved), then stop again",
    });
  }
}

function euid(): number | null {
  return typeof process.geteuid === "function" ? process.geteuid() : null;
}

/** Make (or check) each folder from the store down to `dir`: real, owned by us, 0700-private. */
function privateDirs(store: string, dir: string): void {
  const chain = [store];
  for (let d = dir; d !== store && d.startsWith(store + path.sep); d = path.dirname(d)) chain.splice(1, 0, d);
  for (const d of chain) {
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(d);
    } catch {
      try {
        fs.mkdirSync(d, { mode: 0o700, recursive: d === store });
        st = fs.lstatSync(d);
      } catch (e) {
        throw new GuardError(
          `cannot make kbz's private folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          d,
        );
      }
    }
    const uid = euid();
    if (st.isSymbolicLink() || !st.isDirectory()) throw new GuardError("kbz's private folder is not a real folder", d);
    if ((st.mode & 0o022) !== 0 || (uid !== null && st.uid !== uid))
      throw new GuardError("kbz's private folder is writable by others or not ours", d);
  }
}

function readState(file: string): GuardState {
  if (!fs.existsSync(file) && !isLink(file)) return normalizeState(null);
  const bytes = readPrivate(file, MAX_STATE_BYTES);
  if (!bytes) throw new GuardError("the progress guard's state is not a private regular file", file);
  try {
    return normalizeState(JSON.parse(bytes.toString("utf8")));
  } catch {
    return normalizeState(null); // a torn or foreign file: the counts start again, they never release
  }
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Count one block under the store's lock, waiting at most `waitMs` (the hook's deadline). */
export async function recordBlock(
  store: string,
  root: string,
  key: string,
  hash: string,
  opts: CountOptions & { waitMs: number },
): Promise<number> {
  const dir = guardDir(store, root);
  privateDirs(store, dir);
  const file = path.join(dir, "state.json");
  return withLockFile(
    path.join(dir, "state.lock"),
    file,
    () => {
      const next = countBlock(readState(file), key, hash, new Date(), opts);
      writeAtomic(file, JSON.stringify(next.state) + "\n", { mode: 0o600 });
      return next.blocks;
    },
    { timeoutMs: Math.max(0, opts.waitMs) },
  );
}

/** Forget this session's entry (the stop was allowed). Best effort: the answer does not depend on it. */
export async function clearSession(store: string, root: string, key: string, waitMs: number): Promise<void> {
  const dir = guardDir(store, root);
  const file = path.join(dir, "state.json");
  try {
    if (!(key in readState(file).sessions)) return; // nothing recorded, nothing to take a lock for
    await withLockFile(
      path.join(dir, "state.lock"),
      file,
      () => {
        const state = readState(file);
        if (!(key in state.sessions)) return;
        delete state.sessions[key];
        writeAtomic(file, JSON.stringify(state) + "\n", { mode: 0o600 });
      },
      { timeoutMs: Math.max(0, waitMs) },
    );
  } catch {
    // Clearing is housekeeping on the allow path; failing to clear must not change the answer.
  }
}
