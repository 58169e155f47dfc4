// The Stop hook's progress guard (docs/formats.md#stop-hook): a small state file counting
// consecutive blocks without gate progress, per session and scope, so an agent that cannot
// meet its gates is eventually released instead of looping forever. It lies in the repository
// (unlazy's format), so it decides nothing about who holds a scope: that is io/hook/holds.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/ledger/digest.ts";
import type { Target } from "../../core/workspace/target.ts";
import { ReadError } from "../../core/errors.ts";
import { readStable } from "../read.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";

export const MAX_SESSIONS = 64;
export const MAX_STATE_BYTES = 1024 * 1024;
export const STATE_LOCK_TIMEOUT_MS = 10_000;

export interface SessionEntry {
  hash: string;
  blocks: number;
  updatedAt: string;
  /** Consecutive blocked stops that did not count (an empty assistant message); absent when none. */
  skipped?: number;
}

export interface GuardState {
  schema: 1;
  sessions: Record<string, SessionEntry>;
}

const HEX24 = /^[0-9a-f]{24}$/;

/** Root-level state with discovery errors (never inside an unsafe scope path), else per scope. */
export function statePath(target: Target): string {
  if (target.discoveryErrors.length === 0 && target.scope) {
    return path.join(target.root, ".unlazy", target.scope, "hook-state.json");
  }
  return path.join(target.root, ".unlazy-hook-state.json");
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
      sessions[key] = { hash: e.hash, blocks: e.blocks, updatedAt: e.updatedAt, ...skipped };
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
  const skipped = opts.uncounted ? (carried?.skipped ?? 0) + 1 : 0;
  const counts = !opts.uncounted || skipped > MAX_SKIPPED;
  const blocks = (carried?.blocks ?? 0) + (counts ? 1 : 0);
  const entry: SessionEntry = { hash, blocks, updatedAt: now.toISOString(), ...(skipped > 0 ? { skipped } : {}) };
  const all: [string, SessionEntry][] = Object.entries(state.sessions).filter(([k]) => k !== key);
  all.push([key, entry]);
  all.sort((a, b) => Date.parse(b[1].updatedAt) - Date.parse(a[1].updatedAt) || (a[0] < b[0] ? -1 : 1));
  const sessions: Record<string, SessionEntry> = {};
  for (const [k, v] of all.slice(0, MAX_SESSIONS).sort((a, b) => (a[0] < b[0] ? -1 : 1))) sessions[k] = v;
  return { state: { schema: 1, sessions }, blocks };
}

function readState(file: string, root: string): GuardState {
  let bytes: Buffer;
  try {
    bytes = readStable(file, { label: "hook state", maxBytes: MAX_STATE_BYTES, root });
  } catch (e) {
    // Missing or oversized state starts empty; a linked or FIFO state must not be replaced.
    if (e instanceof ReadError && (e.code === "ENOENT" || e.code === "TOO_LARGE")) return normalizeState(null);
    throw e;
  }
  try {
    return normalizeState(JSON.parse(bytes.toString("utf8")));
  } catch {
    return normalizeState(null);
  }
}

/** Steps 8.1-8.4 under a 10 s lock: read, normalise, count, write atomically. */
export async function recordBlock(target: Target, key: string, hash: string, opts: CountOptions = {}): Promise<number> {
  const file = statePath(target);
  return withFileLock(
    target.root,
    file,
    () => {
      const next = countBlock(readState(file, target.root), key, hash, new Date(), opts);
      writeAtomic(file, JSON.stringify(next.state, null, 2) + "\n", { root: target.root, mode: 0o600 });
      return next.blocks;
    },
    { timeoutMs: STATE_LOCK_TIMEOUT_MS },
  );
}

/** Forget this session's entry; delete the file when it was the last one. Best effort. */
export async function clearSession(target: Target, key: string): Promise<void> {
  const file = statePath(target);
  try {
    fs.lstatSync(file);
  } catch {
    return; // nothing recorded, nothing to take a lock for
  }
  try {
    await withFileLock(
      target.root,
      file,
      () => {
        const state = readState(file, target.root);
        if (!(key in state.sessions)) return;
        delete state.sessions[key];
        if (Object.keys(state.sessions).length === 0) fs.unlinkSync(file);
        else writeAtomic(file, JSON.stringify(state, null, 2) + "\n", { root: target.root, mode: 0o600 });
      },
      { timeoutMs: STATE_LOCK_TIMEOUT_MS },
    );
  } catch {
    // Clearing is housekeeping on the allow path; failing to clear must not change the answer.
  }
}
