// Failed runs (issue 31: failed is a state) as verdict records (core/trace.ts failureRecord),
// kbz's record files beside the INPUTS digests, probes and oracle passes: one JSON file per ledger
// under `<root>/.kbz/failures/`, named like the others (io/recordFiles.ts):
//   { "schema": 1, "gates": { "<id>": { "definition", "evidence", "failure", "cwd"?, "inputs"?, "files"? } } }
// `failure` says how the run ended: "exit 3", "EXPECT not matched", "timed out after 30s", ….
// A record speaks for a gate only while its definition digest and evidence line are current and,
// for a gate with INPUTS, its input files are as the run saw them (core/trace.ts gateVerdicts):
// it names why an unchecked gate is unmet, it never changes whether it is. status, `kbz next`
// and the dashboard read it through io/trace.ts readTrace, like every other record. A passing
// run removes the gate's record.
import * as path from "node:path";
import type { FailureStored } from "../../core/trace.ts";
import { readRecordFile, recordFilePath, updateRecordFile } from "../recordFiles.ts";

export const FAILURES_DIR = path.join(".kbz", "failures");

/** How a failed run ended, in words: `exit 3`, `EXPECT not matched`, or the runner's error. */
export function failureText(o: { exitCode: number | null; signal: string | null; error: string | null }): string {
  if (o.error) return o.error.length > 80 ? `${o.error.slice(0, 79)}…` : o.error;
  if (o.signal) return `killed by ${o.signal}`;
  if (o.exitCode !== null && o.exitCode !== 0) return `exit ${o.exitCode}`;
  return "EXPECT not matched";
}

export function failureRecordsPath(root: string, ledgerFile: string): string {
  return recordFilePath(root, FAILURES_DIR, ledgerFile);
}

/** One finished run of a gate of `ledgerFile`: `failure` null for a pass (its record goes). */
export interface RunRecord {
  id: string;
  failure: FailureStored | null;
}

/** Record each finished run of one ledger. Never throws: losing a record never changes a verdict. */
export async function recordRuns(root: string, ledgerFile: string, runs: RunRecord[]): Promise<void> {
  if (runs.length === 0) return;
  const file = failureRecordsPath(root, ledgerFile);
  // A pass with no record file to clear writes nothing: most repositories never see a failure.
  if (runs.every((r) => r.failure === null)) {
    const gates = readRecordFile(file)?.gates ?? {};
    if (!runs.some((r) => r.id in gates)) return;
  }
  try {
    await updateRecordFile(root, file, (current) => {
      const gates = { ...(current?.gates ?? {}) } as Record<string, FailureStored>;
      for (const r of runs) {
        if (r.failure === null) delete gates[r.id];
        else gates[r.id] = r.failure;
      }
      return { schema: 1, gates };
    });
  } catch {
    // The record only names why an unmet gate is unmet.
  }
}
