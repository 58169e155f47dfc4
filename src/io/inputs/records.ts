// The INPUTS record files (issue 18): kbz's own record of what a passing CHECK observed, so the
// ledger's evidence line keeps unlazy's format. One JSON file per ledger under
// `<root>/.kbz/inputs/`, named by the ledger's real path:
//   { "schema": 1, "ledger": "<real path>", "gates": { "<id>": {
//       "definition": "<sha256>", "evidence": "<the EVIDENCE line written>", "cwd": "<real CHECK dir>",
//       "inputs": ["<glob>", ...], "files": { "<path relative to cwd>": "<sha256>", ... } } } }
// A record speaks for a gate only while its definition digest and evidence line are the ledger's.
// Issue 28: every input is hashed whole, streamed in 1 MiB chunks (no size past which a change
// goes unseen, bounded memory); inputs are read with the ledgers' rules (regular files inside the
// root, opened non-blocking and without following a link); the record's `cwd` is never trusted
// (io/trace.ts checkDir: it must be a directory inside the root).
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Stream } from "../../core/util/hash.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { checkDeadline } from "../deadline.ts";
import { readRecordFile, realOf, recordFilePath, updateRecordFile } from "../recordFiles.ts";
import { expandInputs } from "./expand.ts";

export const INPUTS_DIR = path.join(".kbz", "inputs");
const CHUNK = 1024 * 1024;

export interface InputRecord {
  definition: string;
  evidence: string;
  cwd: string;
  inputs: string[];
  files: Record<string, string>;
}

export interface InputRecordsFile {
  schema: 1;
  ledger: string;
  gates: Record<string, InputRecord>;
}

export function inputRecordsPath(root: string, ledgerFile: string): string {
  return recordFilePath(root, INPUTS_DIR, ledgerFile);
}

/** The ledger's records, or no records when there is none or it is unreadable. */
export function readInputRecords(root: string, ledgerFile: string): InputRecordsFile {
  const gates = readRecordFile(inputRecordsPath(root, ledgerFile))?.gates ?? {};
  return { schema: 1, ledger: realOf(ledgerFile), gates: gates as InputRecordsFile["gates"] };
}

const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
let chunk: Buffer | null = null;

/**
 * sha256 of one input, streamed; null when it is not a regular file whose folder is inside
 * `root` (a FIFO, a device, a link, a folder swapped for a link to elsewhere) or cannot be read.
 */
export function digestFile(root: string, file: string, dirs = new Map<string, string | null>()): string | null {
  const dir = path.dirname(file);
  let dirReal = dirs.get(dir);
  if (dirReal === undefined) {
    try {
      dirReal = fs.realpathSync(dir);
    } catch {
      dirReal = null;
    }
    if (dirReal !== null && !isInside(root, dirReal)) dirReal = null;
    dirs.set(dir, dirReal);
  }
  if (dirReal === null) return null;
  let target = path.join(dirReal, path.basename(file));
  // Issue 39: a link to a file inside the root is followed (its target is the input); one out is not.
  try {
    if (fs.lstatSync(target).isSymbolicLink()) {
      const real = fs.realpathSync(target);
      if (!isInside(root, real)) return null;
      target = real;
    }
  } catch {
    return null;
  }
  let fd: number;
  try {
    fd = fs.openSync(target, OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return null;
    const h = sha256Stream();
    chunk ??= Buffer.allocUnsafe(CHUNK);
    for (;;) {
      checkDeadline(() => `hashing the input ${path.basename(file)}`);
      const n = fs.readSync(fd, chunk, 0, CHUNK, null);
      if (n <= 0) break;
      h.update(chunk.subarray(0, n));
    }
    return h.digest();
  } catch (e) {
    if ((e as { code?: string }).code === "deadline") throw e;
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * sha256 of each input file now (relative paths → digest); unreadable files are left out.
 * `truncated`: the INPUTS match more files than the cap (the gate cannot be met: TOO_MANY_INPUTS).
 */
export function digestInputs(
  root: string,
  cwd: string,
  inputs: string[],
): { files: Record<string, string>; truncated: boolean } {
  const files: Record<string, string> = {};
  const expanded = expandInputs(cwd, inputs);
  if (expanded.truncated) return { files, truncated: true };
  const realRoot = realOf(root);
  const dirs = new Map<string, string | null>();
  for (const rel of expanded.files) {
    const digest = digestFile(realRoot, path.join(cwd, rel), dirs);
    if (digest !== null) files[rel] = digest;
  }
  return { files, truncated: false };
}

/** Record passes of one ledger (under the record file's lock, atomically). */
export async function recordInputs(
  root: string,
  ledgerFile: string,
  records: Record<string, InputRecord>,
): Promise<void> {
  if (Object.keys(records).length === 0) return;
  const file = inputRecordsPath(root, ledgerFile);
  await updateRecordFile(root, file, (current) => ({
    schema: 1,
    ledger: realOf(ledgerFile),
    gates: { ...current?.gates, ...records },
  }));
}
