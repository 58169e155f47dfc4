// kbz's gate record files under `.kbz/` (INPUTS digests, probe verdicts, oracle bindings, failed
// runs): JSON objects `{ "schema": 1, …, "gates": { "<key>": record } }`. The per-ledger ones
// live one file per ledger, named by the ledger's real path:
//   <root>/.kbz/<kind>/<24 hex of sha256(real ledger path)>.json
// They are kbz's own notes beside the ledgers, so they are read leniently: a missing, linked,
// special, oversized or malformed file holds no records. Writes are atomic under the file's lock.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../core/util/hash.ts";
import { writeAtomic } from "./fs.ts";
import { withFileLock } from "./lock.ts";

const MAX_RECORD_BYTES = 8 * 1024 * 1024;
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

export interface RecordFile {
  schema: 1;
  gates: Record<string, unknown>;
  [key: string]: unknown;
}

/** A path's real path, or the path resolved when it does not exist (yet). */
export function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** The file name a ledger's records take, from the ledger's real path. */
export function recordFileName(realLedger: string): string {
  return `${sha256Hex(realLedger).slice(0, 24)}.json`;
}

/** Where the records of `ledgerFile` live under `dir` (e.g. `.kbz/inputs`) of `root`. */
export function recordFilePath(root: string, dir: string, ledgerFile: string): string {
  return path.join(root, dir, recordFileName(realOf(ledgerFile)));
}

/** The records in `file`, or null when it holds none (see the top of this file). */
export function readRecordFile(file: string, maxBytes = MAX_RECORD_BYTES): RecordFile | null {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const v = JSON.parse(fs.readFileSync(fd, "utf8"));
    return v?.schema === 1 && typeof v.gates === "object" && v.gates !== null && !Array.isArray(v.gates)
      ? (v as RecordFile)
      : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Rewrite `file` under its lock: `update` gets its current records (null when none) and returns the new file. */
export async function updateRecordFile(
  root: string,
  file: string,
  update: (current: RecordFile | null) => RecordFile,
  maxBytes = MAX_RECORD_BYTES,
): Promise<void> {
  await withFileLock(root, file, () => {
    writeAtomic(file, JSON.stringify(update(readRecordFile(file, maxBytes)), null, 1) + "\n", {
      root,
      createParents: true,
    });
  });
}
