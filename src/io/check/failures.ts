// The last failed run of each gate (issue 31: failed is a state), kbz's record files beside the
// INPUTS digests and probes: one file, `<root>/.kbz/failures.json`:
//   { "schema": 1, "gates": { "<ledger path from the root>\0<id>": { "definition", "failure" } } }
// `failure` says how the run ended: "exit 3", "EXPECT not matched", "timed out after 30s", ….
// A record speaks for a gate only while its definition digest is current and the gate is unmet
// and unchecked (a failed run leaves its box unticked): it names why the gate is unmet, it never
// changes whether it is. A passing run removes the gate's record.
import * as fs from "node:fs";
import * as path from "node:path";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { GateView } from "../../core/snapshot.ts";
import { readRecordFile, updateRecordFile } from "../recordFiles.ts";

export const FAILURES_FILE = path.join(".kbz", "failures.json");
const MAX_FAILURES_BYTES = 1024 * 1024;

export interface FailureRecord {
  definition: string;
  failure: string;
}

/** How a failed run ended, in words: `exit 3`, `EXPECT not matched`, or the runner's error. */
export function failureText(o: { exitCode: number | null; signal: string | null; error: string | null }): string {
  if (o.error) return o.error.length > 80 ? `${o.error.slice(0, 79)}…` : o.error;
  if (o.signal) return `killed by ${o.signal}`;
  if (o.exitCode !== null && o.exitCode !== 0) return `exit ${o.exitCode}`;
  return "EXPECT not matched";
}

function keyOf(root: string, ledgerFile: string, id: string): string {
  const rel = path.relative(root, ledgerFile);
  return `${rel}\0${id}`;
}

function readFailures(file: string): Record<string, FailureRecord> {
  return (readRecordFile(file, MAX_FAILURES_BYTES)?.gates ?? {}) as Record<string, FailureRecord>;
}

/** Record each finished run: `failure` null for a pass (its record goes). Never throws. */
export async function recordRuns(root: string, runs: { file: string; id: string; definition: string; failure: string | null }[]): Promise<void> {
  if (runs.length === 0) return;
  const file = path.join(root, FAILURES_FILE);
  // A pass with no record file to clear writes nothing: most repositories never see a failure.
  if (runs.every((r) => r.failure === null) && !fs.existsSync(file)) return;
  try {
    await updateRecordFile(
      root,
      file,
      (current) => {
        const gates = (current?.gates ?? {}) as Record<string, FailureRecord>;
        for (const r of runs) {
          const key = keyOf(root, r.file, r.id);
          if (r.failure === null) delete gates[key];
          else gates[key] = { definition: r.definition, failure: r.failure };
        }
        return { schema: 1, gates };
      },
      MAX_FAILURES_BYTES,
    );
  } catch {
    // The record only names why an unmet gate is unmet; losing it never changes a verdict.
  }
}

/**
 * Mark the unchecked gates whose last run failed (same definition) as `failed`, with how. One
 * stat when no run ever failed here; one read otherwise.
 */
export function markFailures(root: string, gates: GateView[]): void {
  const file = path.join(root, FAILURES_FILE);
  if (!fs.existsSync(file)) return;
  const records = readFailures(file);
  if (Object.keys(records).length === 0) return;
  for (const v of gates) {
    if (v.state !== "unmet") continue;
    const r = records[keyOf(root, v.file, v.gate.id)];
    if (!r || r.definition !== gateDigest(v.gate)) continue;
    v.state = "failed";
    v.reason = r.failure;
  }
}
