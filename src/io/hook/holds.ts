// What the Stop hook saw, kept where the agent's repository edits cannot reach it (docs/formats.md#stop-hook,
// "session binding"): every stop the hook counts against a scope is one line in the approval store,
// `<store>/kbz/holds/<24 hex of the real root>/<UTC day>.log`, `<ISO time> <24 hex of sha256(session \0 scope)>`.
// A scope bound to another session is hidden from this session only when that session is live
// on it here (a stop of it was counted there in the last 24 h) and this session is not (a scope
// that held a session keeps holding it); `liveOn` answers both. Only `kbz hook stop` writes these
// lines. The file is append-only: a line can only make a session held, never release one, so
// a forged line proves no more than a fake payload piped into the hook, and needs no MAC.
//
// Cost: a counted stop appends one line (no read, no lock: an O_APPEND write of one line is
// atomic); the file is read only when a binding to another session has to be judged. A day
// file over 1 MiB (a flood of fake payloads) makes every session count as not live: bindings to
// other sessions then hide nothing, the safe side.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/ledger/digest.ts";
import { sessionKey } from "./guard.ts";
import { readPrivate } from "../run/personal.ts";

/** How long after its last counted stop on a scope a session stays live on it: a day. */
export const HELD_MS = 24 * 60 * 60 * 1000;
const MAX_DAY_BYTES = 1024 * 1024;
const LINE = /^(\d{4}-\d{2}-\d{2}T[0-9:.]+Z) ([0-9a-f]{24})$/;

export function holdsDir(store: string, root: string): string {
  return path.join(store, "kbz", "holds", sha256Hex(root).slice(0, 24));
}

const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * Record that the hook counted a stop of `session` (the host's session id) against each of
 * `scopes`. Best effort: a store that cannot be written leaves the stop's answer unchanged.
 */
export function recordHolds(store: string, root: string, scopes: string[], session: string, now = Date.now()): void {
  if (scopes.length === 0) return;
  const at = new Date(now).toISOString();
  const text = scopes.map((s) => `${at} ${sessionKey(session, s)}\n`).join("");
  const file = path.join(holdsDir(store, root), `${dayOf(now)}.log`);
  const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, flags, 0o600);
      try {
        fs.writeSync(fd, text);
      } finally {
        fs.closeSync(fd);
      }
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 0) return;
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      } catch {
        return;
      }
    }
  }
}

/** Who is live on which scope: the latest counted stop per session and scope within HELD_MS. */
export interface Holds {
  /** Whether the hook counted a stop of `session` against `scope` in the last 24 h. */
  liveOn(scope: string, session: string): boolean;
}

const NOBODY: Holds = { liveOn: () => false };

function privateDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    const uid = typeof process.geteuid === "function" ? process.geteuid() : null;
    return st.isDirectory() && (st.mode & 0o022) === 0 && (uid === null || st.uid === uid);
  } catch {
    return false;
  }
}

/**
 * The holds of `root` as of `now`. Never throws: a store that is missing, not private, holds a
 * link or an oversized day file, answers "nobody is live", so that no binding hides anything.
 */
export function readHolds(store: string, root: string, now = Date.now()): Holds {
  const dir = holdsDir(store, root);
  for (const d of [store, path.join(store, "kbz"), path.dirname(dir), dir]) if (!privateDir(d)) return NOBODY;
  const latest = new Map<string, number>();
  for (const day of [dayOf(now - HELD_MS), dayOf(now)]) {
    const file = path.join(dir, `${day}.log`);
    if (!fs.existsSync(file)) continue;
    const bytes = readPrivate(file, MAX_DAY_BYTES);
    if (!bytes) return NOBODY; // a link, a FIFO, shared, or flooded: nothing is live
    for (const line of bytes.toString("utf8").split("\n")) {
      const m = LINE.exec(line);
      if (!m) continue; // a torn or foreign line proves nothing
      const t = Date.parse(m[1]!);
      if (!(t <= now) || now - t > HELD_MS) continue;
      if ((latest.get(m[2]!) ?? -1) < t) latest.set(m[2]!, t);
    }
  }
  forgetOldDays(dir, now);
  return { liveOn: (scope, session) => latest.has(sessionKey(session, scope)) };
}

/** Delete day files older than the window (best effort; only on the rare read path). */
function forgetOldDays(dir: string, now: number): void {
  const oldest = `${dayOf(now - HELD_MS)}.log`;
  try {
    for (const name of fs.readdirSync(dir))
      if (/^\d{4}-\d{2}-\d{2}\.log$/.test(name) && name < oldest) fs.rmSync(path.join(dir, name), { force: true });
  } catch {
    // housekeeping only
  }
}
