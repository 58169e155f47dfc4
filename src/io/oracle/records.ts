// What oracle each pass ran under (issue 27; docs/formats.md#oracle): kbz's record, beside the
// INPUTS records, of the bound files' digests when a gate passed. A met gate whose record speaks
// for its evidence (same definition digest, same EVIDENCE line) is met only while those files
// still have the recorded digests: an edited checker, test or package.json script un-meets it
// until a person approves the new oracle and it passes again. One JSON file per ledger:
//   .kbz/oracles/<24 hex of sha256(real ledger path)>.json
//   {"schema":1,"ledger":"<real path>","gates":{"<id>":{"definition","evidence","signature","files":{…},"stat":{…},"filesFrom"}}}
// `stat` (optional) holds the identity of each file when its digest was taken: readers skip
// re-hashing a file whose identity is unchanged (io/oracle/identity.ts says why that is safe).
import * as path from "node:path";
import { readRecordFile, realOf, recordFilePath, updateRecordFile } from "../recordFiles.ts";

export const ORACLES_DIR = path.join(".kbz", "oracles");

export interface OraclePassRecord {
  definition: string;
  evidence: string;
  /** The binding signature the approval held (files and ENV values). */
  signature: string;
  files: Record<string, string>;
  /** key → the file's identity when kbz hashed it (io/oracle/identity.ts), for files it may trust. */
  stat?: Record<string, string>;
  /** Set when `files` are exactly those the CHECK names, resolved from this real directory (io/oracle/identity.ts). */
  filesFrom?: string;
  /** The ledger's OWNS: when it has one (issue 39): the work status leaves out when it re-binds the oracle. */
  owns?: string[];
  /** Issue 39: the pass ran in a view of the approved oracle, this approval's (its runtime oracle signature): `files` are its. */
  judged?: string;
}

export interface OracleRecordsFile {
  schema: 1;
  ledger: string;
  gates: Record<string, OraclePassRecord>;
}

export function oracleRecordsPath(root: string, ledgerFile: string): string {
  return recordFilePath(root, ORACLES_DIR, ledgerFile);
}

/** The ledger's pass records; empty when there is none or it is not a small regular file of records. */
export function readOracleRecords(root: string, ledgerFile: string): OracleRecordsFile {
  const gates = readRecordFile(oracleRecordsPath(root, ledgerFile))?.gates ?? {};
  return { schema: 1, ledger: realOf(ledgerFile), gates: gates as OracleRecordsFile["gates"] };
}

/** Record passes of one ledger (under the record file's lock, atomically). */
export async function recordOraclePasses(
  root: string,
  ledgerFile: string,
  records: Record<string, OraclePassRecord>,
): Promise<void> {
  if (Object.keys(records).length === 0) return;
  const file = oracleRecordsPath(root, ledgerFile);
  await updateRecordFile(root, file, (current) => ({
    schema: 1,
    ledger: realOf(ledgerFile),
    gates: { ...current?.gates, ...records },
  }));
}
