// The INPUTS side store (issue 18): kbz's own record of what a passing CHECK observed, so the
// ledger's evidence line keeps unlazy's format. One JSON file per ledger under
// `<root>/.kbz/inputs/`, named by the ledger's real path:
//   { "schema": 1, "ledger": "<real path>", "gates": { "<id>": {
//       "definition": "<sha256>", "evidence": "<the EVIDENCE line written>", "cwd": "<real CHECK dir>",
//       "inputs": ["<glob>", ...], "files": { "<path relative to cwd>": "<sha256>", ... } } } }
// A record speaks for a gate only while its definition digest and evidence line are the ledger's.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";

export const INPUTS_DIR = path.join(".kbz", "inputs");
const MAX_STORE_BYTES = 8 * 1024 * 1024;

export interface InputRecord {
  definition: string;
  evidence: string;
  cwd: string;
  inputs: string[];
  files: Record<string, string>;
}

export interface InputStoreFile {
  schema: 1;
  ledger: string;
  gates: Record<string, InputRecord>;
}

function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

export function inputStorePath(root: string, ledgerFile: string): string {
  return path.join(root, INPUTS_DIR, `${sha256Hex(realOf(ledgerFile)).slice(0, 24)}.json`);
}

/** The ledger's records, or an empty store when there is none or it is unreadable. */
function readInputStore(root: string, ledgerFile: string): InputStoreFile {
  const empty: InputStoreFile = { schema: 1, ledger: realOf(ledgerFile), gates: {} };
  const file = inputStorePath(root, ledgerFile);
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_STORE_BYTES) return empty;
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    if (v?.schema !== 1 || typeof v.gates !== "object" || v.gates === null) return empty;
    return { schema: 1, ledger: empty.ledger, gates: v.gates };
  } catch {
    return empty;
  }
}

/** Record passes of one ledger (under the store file's lock, atomically). */
export async function recordInputs(root: string, ledgerFile: string, records: Record<string, InputRecord>): Promise<void> {
  if (Object.keys(records).length === 0) return;
  const file = inputStorePath(root, ledgerFile);
  await withFileLock(root, file, () => {
    const store = readInputStore(root, ledgerFile);
    Object.assign(store.gates, records);
    writeAtomic(file, JSON.stringify(store, null, 1) + "\n", { root, createParents: true });
  });
}
