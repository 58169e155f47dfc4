// Probe results (issue 18), kbz's side store beside the INPUTS digests: one JSON file per ledger
// under `<root>/.kbz/probes/`, named like the inputs store:
//   { "schema": 1, "gates": { "<id>": { "definition", "evidence", "verdict": "vacuous"|"observes",
//     "hidden": ["<real path>", ...], "signature": "<probe oracle signature>" } } }
// A record speaks for a gate only while its definition digest and evidence line are current.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";

export const PROBES_DIR = path.join(".kbz", "probes");
const MAX_STORE_BYTES = 8 * 1024 * 1024;

export interface ProbeRecord {
  definition: string;
  evidence: string;
  verdict: "vacuous" | "observes";
  hidden: string[];
  signature: string;
}

function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

export function probeStorePath(root: string, ledgerFile: string): string {
  return path.join(root, PROBES_DIR, `${sha256Hex(realOf(ledgerFile)).slice(0, 24)}.json`);
}

function readProbeStore(file: string): Record<string, ProbeRecord> {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_STORE_BYTES) return {};
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    return v?.schema === 1 && v.gates && typeof v.gates === "object" ? v.gates : {};
  } catch {
    return {};
  }
}

export async function recordProbes(root: string, ledgerFile: string, records: Record<string, ProbeRecord>): Promise<void> {
  const file = probeStorePath(root, ledgerFile);
  await withFileLock(root, file, () => {
    const gates = { ...readProbeStore(file), ...records };
    writeAtomic(file, JSON.stringify({ schema: 1, gates }, null, 1) + "\n", { root, createParents: true });
  });
}
