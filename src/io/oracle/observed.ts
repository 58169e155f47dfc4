// The observed part of each gate's oracle (issue 39; docs/formats.md#oracle): the root-relative
// files the tracer saw a CHECK read that are oracle (tests, fixtures, configs, the tools under
// node_modules/, programs inside the root), kept in the approval store beside the approvals:
//   <store>/kbz/observed/<sha256(real ledger path \0 gate id)>.json  {"schema":1,"ledger","gate","files":[…]}
// It only says which files to bind: the approval's signature covers their digests, so a list that
// lost a file (or gained one) makes the oracle differ from the approved one and the gate needs a
// person again. It never widens what an approval accepts.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { realOf } from "../recordFiles.ts";

const MAX_INDEX_BYTES = 1024 * 1024;

function indexPath(storeDir: string, ledger: string, gate: string): string {
  return path.join(storeDir, "kbz", "observed", `${sha256Hex(`${realOf(ledger)}\0${gate}`)}.json`);
}

/** The observed files of a gate (root-relative keys), or [] when none were recorded. */
export function observedFiles(storeDir: string, ledger: string, gate: string): string[] {
  const file = indexPath(storeDir, ledger, gate);
  try {
    const fd = fs.openSync(
      file,
      fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0),
    );
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > MAX_INDEX_BYTES) return [];
      const v = JSON.parse(fs.readFileSync(fd, "utf8"));
      return v && v.schema === 1 && Array.isArray(v.files)
        ? v.files.filter((f: unknown): f is string => typeof f === "string")
        : [];
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** Record the observed files of a gate (sorted, deduplicated), atomically. */
export function recordObserved(storeDir: string, ledger: string, gate: string, files: readonly string[]): void {
  const file = indexPath(storeDir, ledger, gate);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = { schema: 1, ledger: realOf(ledger), gate, files: [...new Set(files)].sort() };
  writeAtomic(file, JSON.stringify(value) + "\n", { mode: 0o600 });
}
