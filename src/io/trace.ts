// The current digests of every verdict record (core/trace.ts) that speaks for a set of ledgers:
// the records are read from their stores (.kbz/inputs/, .kbz/probes/: one directory listing each,
// so a repository that never recorded one pays one failed open), and every file they depend on is
// hashed once, in one walk with one cache per run. The result is plain data (TraceData) that the
// pure builders (core/snapshot.ts, core/schedule/facts.ts) check with core/trace.ts verify.
import * as fs from "node:fs";
import * as path from "node:path";
import { inputFileName, inputSetName, inputsRecord, probeRecord, type InputsStored, type ProbeStored, type TraceData, type TraceRecord } from "../core/trace.ts";
import { sha256Hex } from "../core/util/hash.ts";
import { expandInputs } from "./inputs/expand.ts";
import { INPUTS_DIR } from "./inputs/store.ts";
import { PROBES_DIR } from "./check/probeStore.ts";

const MAX_STORE_BYTES = 8 * 1024 * 1024;
const MAX_HASHED_BYTES = 64 * 1024 * 1024;
const STORE_NAME = /^[0-9a-f]{24}\.json$/;

/**
 * The store files of `dir` that speak for `files`, as [ledger file, gates]. A store file is named
 * by its ledger's real path (io/inputs/store.ts inputStorePath); the ledgers come from discovery
 * under the canonical root, so their paths are their real paths (`real`: resolve them, for
 * ledgers named on the command line). The names are hashed only when the folder holds a store
 * file at all.
 */
function storeFiles(dir: string, files: readonly string[], real: boolean): [string, Record<string, unknown>][] {
  let listed: string[];
  try {
    listed = fs.readdirSync(dir).filter((n) => STORE_NAME.test(n));
  } catch {
    return [];
  }
  if (listed.length === 0) return [];
  const present = new Set(listed);
  const out: [string, Record<string, unknown>][] = [];
  for (const ledger of files) {
    const name = `${sha256Hex(real ? realOf(ledger) : ledger).slice(0, 24)}.json`;
    if (!present.has(name)) continue;
    try {
      const file = path.join(dir, name);
      const st = fs.lstatSync(file);
      if (!st.isFile() || st.size > MAX_STORE_BYTES) continue;
      const v = JSON.parse(fs.readFileSync(file, "utf8"));
      if (v?.schema !== 1 || typeof v.gates !== "object" || v.gates === null) continue;
      out.push([ledger, v.gates]);
    } catch {}
  }
  return out;
}

function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** One hash walk: each file hashed once per run, whatever number of records name it. */
export class DigestWalk {
  private readonly hashed = new Map<string, { digest: string; bytes: number } | null>();

  file(abs: string): { digest: string; bytes: number } | null {
    let d = this.hashed.get(abs);
    if (d === undefined) {
      try {
        const bytes = fs.readFileSync(abs);
        d = { digest: sha256Hex(bytes), bytes: bytes.length };
      } catch {
        d = null;
      }
      this.hashed.set(abs, d);
    }
    return d;
  }

  /**
   * The INPUTS of one pass as they are now (relative path → sha256; "too-large" past 64 MiB in
   * all, unreadable files left out): what a pass records and what its record is checked against.
   */
  inputs(cwd: string, inputs: string[]): Record<string, string> {
    const files: Record<string, string> = {};
    let total = 0;
    for (const rel of expandInputs(cwd, inputs).files) {
      const d = this.file(path.join(cwd, rel));
      if (!d) continue;
      total += d.bytes;
      files[rel] = total > MAX_HASHED_BYTES ? "too-large" : d.digest;
    }
    return files;
  }
}

/**
 * The records that speak for `files` (absolute ledger paths; `real`: not known to be real paths)
 * and the current digests they depend on.
 */
export function readTrace(root: string, files: readonly string[], o: { real?: boolean; walk?: DigestWalk } = {}): TraceData {
  const walk = o.walk ?? new DigestWalk();
  const real = o.real ?? false;
  const records = new Map<string, TraceRecord[]>();
  const add = (file: string, r: TraceRecord) => {
    const list = records.get(file);
    if (list) list.push(r);
    else records.set(file, [r]);
  };
  const digests: Record<string, string> = {};
  const members: Record<string, string[]> = {};
  for (const [ledger, gates] of storeFiles(path.join(root, INPUTS_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as InputsStored;
      if (!s || typeof s.cwd !== "string" || !Array.isArray(s.inputs) || typeof s.files !== "object" || s.files === null) continue;
      add(ledger, inputsRecord(ledger, id, s));
      const set = inputSetName(s.cwd, s.inputs);
      if (members[set]) continue;
      const now = walk.inputs(s.cwd, s.inputs);
      members[set] = Object.keys(now).map((rel) => inputFileName(s.cwd, rel));
      for (const [rel, d] of Object.entries(now)) digests[inputFileName(s.cwd, rel)] ??= d;
    }
  }
  for (const [ledger, gates] of storeFiles(path.join(root, PROBES_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as ProbeStored;
      if (!s || typeof s.verdict !== "string" || !Array.isArray(s.hidden)) continue;
      add(ledger, probeRecord(ledger, id, s));
    }
  }
  return { records, current: { digests, members } };
}
