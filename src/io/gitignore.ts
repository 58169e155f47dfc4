// The root's .gitignore gets kbz's local-state lines (core/workspace/local-state.ts), the ones
// it lacks, appended under one comment. Atomic (temp, fsync, rename); a .gitignore that is a link
// or not a regular file is left alone and reported. No lock file (it would itself be litter in a
// fresh repository): after writing, the file is read again and a line a concurrent writer lost is
// written again, so two kbz processes both end with every line present.
import * as fs from "node:fs";
import * as path from "node:path";
import { GITIGNORE_HEADER, type IgnoreResult, LOCAL_STATE } from "../core/workspace/local-state.ts";
import { writeAtomic } from "./fs.ts";

const MAX_BYTES = 1024 * 1024;

function present(text: string): Set<string> {
  const have = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const l = raw.trim();
    have.add(l);
    have.add(l.startsWith("/") ? l : `/${l}`);
  }
  return have;
}

function readIgnore(file: string): { text: string } | { skipped: string } {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return { text: "" };
  }
  if (!st.isFile()) return { skipped: ".gitignore is not a regular file; left alone" };
  if (st.size > MAX_BYTES) return { skipped: ".gitignore is over 1 MiB; left alone" };
  return { text: fs.readFileSync(file, "utf8") };
}

/** Append the missing local-state lines to `<root>/.gitignore`. */
export function ignoreLocalState(root: string): IgnoreResult {
  const file = path.join(root, ".gitignore");
  const added: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const read = readIgnore(file);
    if ("skipped" in read) return { file, added, skipped: read.skipped };
    const have = present(read.text);
    const missing = LOCAL_STATE.filter((p) => !have.has(p));
    if (missing.length === 0) return { file, added, skipped: null };
    const head = have.has(GITIGNORE_HEADER) ? [] : [GITIGNORE_HEADER];
    const sep = read.text === "" || read.text.endsWith("\n") ? "" : "\n";
    const gap = read.text === "" || head.length === 0 ? "" : "\n";
    writeAtomic(file, `${read.text}${sep}${gap}${[...head, ...missing].join("\n")}\n`, { mode: 0o644 });
    for (const p of missing) if (!added.includes(p)) added.push(p);
  }
  return { file, added, skipped: null };
}
