// Probe results (issue 18), kbz's record files beside the INPUTS digests: one JSON file per ledger
// under `<root>/.kbz/probes/`, named like the INPUTS records:
//   { "schema": 1, "gates": { "<id>": { "definition", "evidence", "verdict": "vacuous"|"observes",
//     "hidden": ["<real path>", ...], "signature": "<probe oracle signature>" } } }
// A record speaks for a gate only while its definition digest and evidence line are current.
import * as path from "node:path";
import { recordFilePath, updateRecordFile } from "../recordFiles.ts";

export const PROBES_DIR = path.join(".kbz", "probes");

export interface ProbeRecord {
  definition: string;
  evidence: string;
  verdict: "vacuous" | "observes";
  hidden: string[];
  signature: string;
}

export function probeRecordsPath(root: string, ledgerFile: string): string {
  return recordFilePath(root, PROBES_DIR, ledgerFile);
}

export async function recordProbes(
  root: string,
  ledgerFile: string,
  records: Record<string, ProbeRecord>,
): Promise<void> {
  const file = probeRecordsPath(root, ledgerFile);
  await updateRecordFile(root, file, (current) => ({ schema: 1, gates: { ...current?.gates, ...records } }));
}
