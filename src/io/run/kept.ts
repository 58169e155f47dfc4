// The approved bytes (issue 39 part B; docs/formats.md#kept-oracle): when a person approves an
// oracle, the bytes of every bound file inside the root are kept, content-addressed, in the
// approval store (`<store>/kbz/kept/<sha256>`, 0600), and the approval record lists them
// (`kept`: root-relative path → "<sha256> <mode>" or "missing"). `kbz check` rebuilds the
// approved oracle from them when an agent edits it (io/run/oracleView.ts), and every approve
// screen diffs the live file against them. The whole folder has one cap (KEPT_CAP_BYTES, or
// KBZ_KEPT_CAP in bytes): an approval whose new bytes would pass it is refused before anything
// is written.
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../../core/errors.ts";
import { kbz } from "../../core/text/command.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import type { RuntimeOracle } from "../../core/run/oracle.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { writeAtomic } from "../fs.ts";
import { readPrivate } from "./private.ts";
import { MAX_ORACLE_FILE_BYTES } from "../oracle/digest.ts";
import type { Env } from "./shell.ts";

/** 64 MiB: a few hundred approvals of a typical test tree; each file is at most 8 MiB (MAX_ORACLE_FILE_BYTES). */
export const KEPT_CAP_BYTES = 64 * 1024 * 1024;
const BLOB = /^[0-9a-f]{64}$/;

/** path (root-relative, `/`-separated) → "<sha256> <octal mode>" or "missing". */
export type Kept = Record<string, string>;

export class KeptCapError extends KbzError {
  constructor(need: number, used: number, cap: number) {
    super(
      `refusing the approval: keeping the approved oracle's bytes needs ${need} more bytes, and the kept bytes (${used}) would pass the cap of ${cap} bytes; nothing was written`,
      {
        code: "kept-cap",
        kind: "input",
        hint: `remove approvals no longer needed (${kbz("approvals prune")}), name fewer or smaller oracle files (ORACLE:), or raise KBZ_KEPT_CAP (bytes)`,
      },
    );
  }
}

export function keptCap(env: Env): number {
  const raw = env.KBZ_KEPT_CAP;
  const n = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : KEPT_CAP_BYTES;
}

/** The file a bound key names: `package.json#scripts.test` → package.json; null outside the root. */
export function keyPath(key: string): string | null {
  if (path.isAbsolute(key)) return null;
  return key.replace(/#scripts\.[^/]*$/, "");
}

export function keptDir(store: string): string {
  return path.join(store, "kbz", "kept");
}

const sha256 = (bytes: Uint8Array): string => sha256Hex(bytes);

/** Read a bound file as it is now: bytes and mode, "missing", or null (a directory, device, link out of the root, over 8 MiB). */
function readLive(root: string, rel: string): { bytes: Buffer; mode: number } | "missing" | null {
  const abs = path.join(root, rel);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "missing" : null;
  }
  if (!st.isFile() || st.size > MAX_ORACLE_FILE_BYTES) return null;
  try {
    if (!isInside(root, fs.realpathSync(abs))) return null;
    return { bytes: fs.readFileSync(abs), mode: st.mode & 0o777 };
  } catch {
    return null;
  }
}

/**
 * Keep the bytes of every bound file of `oracle` inside `root` and return the manifest, or throw
 * KeptCapError before writing anything. A file whose bytes no longer have the digest the person
 * approved is refused too (it changed while they were looking).
 */
export function keepOracle(store: string, root: string, oracle: RuntimeOracle, env: Env): Kept {
  const files = oracle.bound?.files ?? {};
  const kept: Kept = {};
  const blobs = new Map<string, Buffer>();
  for (const [key, digest] of Object.entries(files)) {
    const rel = keyPath(key);
    if (rel === null || rel in kept) continue;
    const live = readLive(root, rel);
    if (live === null) continue;
    if (live === "missing") {
      kept[rel] = "missing";
      continue;
    }
    const sha = sha256(live.bytes);
    if (rel === key && /^[0-9a-f]{64}$/.test(digest) && digest !== sha) {
      throw new KbzError(`${rel} changed while its approval was given; nothing was approved`, {
        code: "kept-changed",
        kind: "input",
        file: rel,
        hint: "review the oracle again and approve what is there now",
      });
    }
    kept[rel] = `${sha} ${live.mode.toString(8)}`;
    blobs.set(sha, live.bytes);
  }
  if (blobs.size === 0) return kept;
  const dir = keptDir(store);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fresh = [...blobs].filter(([sha]) => !fs.existsSync(path.join(dir, sha)));
  const need = fresh.reduce((n, [, b]) => n + b.length, 0);
  if (need > 0) {
    const used = keptBytes(store);
    const cap = keptCap(env);
    if (used + need > cap) throw new KeptCapError(need, used, cap);
  }
  for (const [sha, bytes] of fresh) writeAtomic(path.join(dir, sha), bytes, { mode: 0o600 });
  return kept;
}

/** Bytes held in the kept folder now. */
export function keptBytes(store: string): number {
  let total = 0;
  try {
    for (const name of fs.readdirSync(keptDir(store))) {
      if (!BLOB.test(name)) continue;
      try {
        total += fs.lstatSync(path.join(keptDir(store), name)).size;
      } catch {}
    }
  } catch {}
  return total;
}

/** One kept file's bytes, verified against its name; null when absent or not intact. */
export function keptBytesOf(store: string, sha: string): Buffer | null {
  if (!BLOB.test(sha)) return null;
  const bytes = readPrivate(path.join(keptDir(store), sha), MAX_ORACLE_FILE_BYTES);
  return bytes && sha256(bytes) === sha ? bytes : null;
}

/** "<sha> <mode>" → its parts; "missing" → null. */
export function keptEntry(value: string): { sha: string; mode: number } | null {
  const m = /^([0-9a-f]{64}) ([0-7]{1,4})$/.exec(value);
  return m ? { sha: m[1]!, mode: parseInt(m[2]!, 8) } : null;
}

/** Remove kept bytes no approval record names any more (kbz approvals prune); returns how many. */
export function pruneKept(store: string, named: Set<string>): number {
  let removed = 0;
  try {
    for (const name of fs.readdirSync(keptDir(store))) {
      if (!BLOB.test(name) || named.has(name)) continue;
      try {
        fs.unlinkSync(path.join(keptDir(store), name));
        removed++;
      } catch {}
    }
  } catch {}
  return removed;
}
