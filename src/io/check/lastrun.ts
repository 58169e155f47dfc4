// The last run of each gate: exit, error and the tail of its output, for the dashboard's gate
// detail view. A cache, never a ledger or evidence: kept in the user's cache folder
// ($KBZ_CACHE_DIR, else $XDG_CACHE_HOME/kbz, else ~/.cache/kbz), one small file per gate,
// bounded in size and count; a failed write is ignored (the check's verdict never depends on it).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { OUTPUT_TAIL_CHARS } from "../run/execute.ts";
import type { Env } from "../run/shell.ts";

/** Characters of output kept per gate (the end of it: where failures say why). */
export const TAIL_CHARS = OUTPUT_TAIL_CHARS;
/** Gates remembered; the oldest records go first. */
export const MAX_RECORDS = 512;
const MAX_RECORD_BYTES = 4 * TAIL_CHARS + 4096;

export interface LastRun {
  schema: 1;
  file: string; // absolute ledger path
  gateId: string;
  qid: string;
  at: string; // ISO time the run finished
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  durationMs: number;
  /** Bytes of the whole canonical output (stdout, then stderr). */
  bytes: number;
  /** Its last TAIL_CHARS characters. */
  tail: string;
  truncated: boolean;
}

export function runCacheDir(env: Env): string {
  if (env.KBZ_CACHE_DIR) return path.resolve(env.KBZ_CACHE_DIR, "runs");
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(env.HOME || os.homedir(), ".cache");
  return path.join(base, "kbz", "runs");
}

function recordFile(dir: string, file: string, gateId: string): string {
  return path.join(dir, `${sha256Hex(`${path.resolve(file)}\0${gateId}`).slice(0, 32)}.json`);
}

export interface RunToRecord {
  file: string;
  gateId: string;
  qid: string;
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  durationMs: number;
  bytes: number;
  output: string;
}

/** Remember a finished run; never throws. */
export function saveLastRun(env: Env, run: RunToRecord, now = new Date()): void {
  const dir = runCacheDir(env);
  const truncated = run.output.length > TAIL_CHARS || run.bytes > Buffer.byteLength(run.output);
  const record: LastRun = {
    schema: 1,
    file: path.resolve(run.file),
    gateId: run.gateId,
    qid: run.qid,
    at: now.toISOString(),
    ok: run.ok,
    exitCode: run.exitCode,
    signal: run.signal,
    error: run.error,
    durationMs: run.durationMs,
    bytes: run.bytes,
    tail: truncated ? run.output.slice(-TAIL_CHARS) : run.output,
    truncated,
  };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = recordFile(dir, run.file, run.gateId);
    const added = !fs.existsSync(file);
    // Written once per gate run, so kept cheap: no fsync (a crash may lose a cache record, never
    // mix two: readers see the old or the new file), and no listing of the folder unless this
    // write added a record (replacing one cannot push the count over the bound).
    writeAtomic(file, JSON.stringify(record) + "\n", { mode: 0o600, durable: false });
    if (added) prune(dir);
  } catch {
    // A cache that cannot be written only means the detail view has no output to show.
  }
}

function prune(dir: string): void {
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  if (names.length <= MAX_RECORDS) return;
  const aged = names.map((n) => ({ n, t: fs.statSync(path.join(dir, n)).mtimeMs })).sort((a, b) => a.t - b.t);
  for (const { n } of aged.slice(0, names.length - MAX_RECORDS)) fs.rmSync(path.join(dir, n), { force: true });
}

/** The last recorded run of this gate, or null (none, unreadable, or another gate's). */
export function readLastRun(env: Env, file: string, gateId: string): LastRun | null {
  const target = recordFile(runCacheDir(env), file, gateId);
  try {
    const st = fs.lstatSync(target);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return null;
    const r = JSON.parse(fs.readFileSync(target, "utf8")) as LastRun;
    if (r?.schema !== 1 || r.file !== path.resolve(file) || r.gateId !== gateId || typeof r.tail !== "string")
      return null;
    return r;
  } catch {
    return null;
  }
}
