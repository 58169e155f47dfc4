// What oracle each pass ran under (issue 27; docs/formats.md#oracle): kbz's record, beside the
// INPUTS records, of the bound files' digests when a gate passed. A met gate whose record speaks
// for its evidence (same definition digest, same EVIDENCE line) is met only while those files
// still have the recorded digests: an edited checker, test or package.json script un-meets it
// until a person approves the new oracle and it passes again. One JSON file per ledger:
//   .kbz/oracles/<24 hex of sha256(real ledger path)>.json
//   {"schema":1,"ledger":"<real path>","gates":{"<id>":{"definition","evidence","signature","files":{…}}}}
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";

export const ORACLES_DIR = path.join(".kbz", "oracles");
const MAX_STORE_BYTES = 8 * 1024 * 1024;

export interface OraclePassRecord {
  definition: string;
  evidence: string;
  /** The binding signature the approval held (files and ENV values). */
  signature: string;
  files: Record<string, string>;
}

export interface OracleStoreFile {
  schema: 1;
  ledger: string;
  gates: Record<string, OraclePassRecord>;
}

function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

export function oracleStorePath(root: string, ledgerFile: string): string {
  return path.join(root, ORACLES_DIR, `${sha256Hex(realOf(ledgerFile)).slice(0, 24)}.json`);
}

/** The ledger's pass records; empty when there is none or it is not a small regular file of records. */
export function readOracleStore(root: string, ledgerFile: string): OracleStoreFile {
  const empty: OracleStoreFile = { schema: 1, ledger: realOf(ledgerFile), gates: {} };
  const file = oracleStorePath(root, ledgerFile);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return empty;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_STORE_BYTES) return empty;
    const v = JSON.parse(fs.readFileSync(fd, "utf8"));
    if (v?.schema !== 1 || typeof v.gates !== "object" || v.gates === null) return empty;
    return { schema: 1, ledger: empty.ledger, gates: v.gates };
  } catch {
    return empty;
  } finally {
    fs.closeSync(fd);
  }
}

/** Record passes of one ledger (under the store file's lock, atomically). */
export async function recordOraclePasses(root: string, ledgerFile: string, records: Record<string, OraclePassRecord>): Promise<void> {
  if (Object.keys(records).length === 0) return;
  const file = oracleStorePath(root, ledgerFile);
  await withFileLock(root, file, () => {
    const store = readOracleStore(root, ledgerFile);
    Object.assign(store.gates, records);
    writeAtomic(file, JSON.stringify(store, null, 1) + "\n", { root, createParents: true });
  });
}
