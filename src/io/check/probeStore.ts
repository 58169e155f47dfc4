// Probe results (issue 18), kbz's side store beside the INPUTS digests: one JSON file per ledger
// under `<root>/.kbz/probes/`, named like the inputs store:
//   { "schema": 1, "gates": { "<id>": { "definition", "evidence", "verdict": "vacuous"|"observes",
//     "hidden": ["<real path>", ...], "signature": "<probe oracle signature>" } } }
// A record speaks for a gate only while its definition digest and evidence line are current.
import * as fs from "node:fs";
import * as path from "node:path";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { Ledger } from "../../core/ledger/model.ts";
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

/** Gates of a ledger whose current pass was found VACUOUS: id → hidden paths (root-relative). */
export function vacuousGates(root: string, ledgerFile: string, ledger: Ledger): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const records = readProbeStore(probeStorePath(root, ledgerFile));
  for (const g of ledger.gates) {
    const r = records[g.id];
    if (!r || r.verdict !== "vacuous" || r.definition !== gateDigest(g) || r.evidence !== (g.evidence ?? "")) continue;
    out.set(g.id, r.hidden.map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h)));
  }
  return out;
}

/** Cheap pre-check: no probe has ever been recorded in this repository. */
export function noProbes(root: string): boolean {
  try {
    return !fs.statSync(path.join(root, PROBES_DIR)).isDirectory();
  } catch {
    return true;
  }
}
