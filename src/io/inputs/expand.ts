// INPUTS globs (issue 18) expanded against a directory: `*` and `?` within one path segment,
// `**` across segments; a pattern naming a directory means every file under it. Only regular
// files count; a link to a regular file inside the root counts (its target is what the CHECK
// reads; issue 39), a link out of the root or to anything else never does. A pattern that matches
// no regular file at all (nothing, only links out, FIFOs) is named in `unmatched`: the gate cannot
// be met while it covers nothing (inputsUnmatched), and lint says so as an error.
// Bounded, so a pattern like `**` over a huge tree cannot stall status or the Stop hook; a
// segment matches in linear time (core/workspace/glob.ts), never through a backtracking regex.
import * as fs from "node:fs";
import * as path from "node:path";
import { checkDeadline } from "../deadline.ts";
import { matchSegment } from "../../core/workspace/glob.ts";

export const MAX_INPUT_FILES = 5000;
/** Issue 28 item 7: more files than the cap is never a silent cut; the gate is unmet with this. */
export const TOO_MANY_INPUTS = `INPUTS match more than ${MAX_INPUT_FILES} files: narrow them`;

/** Issue 39: an INPUTS entry that covers nothing binds nothing; the gate is unmet with this. */
export function inputsUnmatched(patterns: readonly string[]): string {
  return `INPUTS ${patterns.join(", ")} ${patterns.length === 1 ? "matches" : "match"} no regular file (nothing, or only links, FIFOs or folders): fix the entry or create the file`;
}

/** Why a gate's INPUTS cannot bind a pass (too many files, or an entry covering nothing), or null. */
export function inputsProblem(e: { truncated: boolean; unmatched?: string[] }): string | null {
  if (e.truncated) return TOO_MANY_INPUTS;
  return e.unmatched && e.unmatched.length > 0 ? inputsUnmatched(e.unmatched) : null;
}

const isWild = (seg: string) => seg.includes("*") || seg.includes("?");

function entries(dir: string): fs.Dirent[] {
  checkDeadline(() => `listing the INPUTS folder ${dir}`);
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Files (relative to `base`, `/`-separated, sorted) that the patterns match; `truncated` when
 * they match more than MAX_INPUT_FILES (then `files` is a cut, and the gate is unmet: TOO_MANY_INPUTS).
 */
export function expandInputs(
  base: string,
  patterns: string[],
  root = base,
): { files: string[]; truncated: boolean; unmatched: string[] } {
  const found = new Set<string>();
  let truncated = false;
  let hits = 0;
  let realRoot: string | null = null;
  const add = (rel: string) => {
    hits++;
    if (found.size >= MAX_INPUT_FILES) truncated = true;
    else found.add(rel);
  };
  /** A link counts when it resolves to a regular file inside the root. */
  const linkToFile = (rel: string): boolean => {
    try {
      realRoot ??= fs.realpathSync(root);
      const real = fs.realpathSync(path.join(base, rel));
      return (
        (real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep)) &&
        fs.statSync(real).isFile()
      );
    } catch {
      return false;
    }
  };
  const walkAll = (rel: string) => {
    for (const e of entries(path.join(base, rel))) {
      if (truncated) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walkAll(r);
      else if (e.isFile() || (e.isSymbolicLink() && linkToFile(r))) add(r);
    }
  };
  const match = (rel: string, segs: string[]) => {
    if (truncated) return;
    if (segs.length === 0) {
      let st: fs.Stats;
      try {
        st = fs.lstatSync(path.join(base, rel));
      } catch {
        return;
      }
      if (st.isFile() || (st.isSymbolicLink() && linkToFile(rel))) add(rel);
      else if (st.isDirectory()) walkAll(rel);
      return;
    }
    const [seg, ...rest] = segs as [string, ...string[]];
    if (seg === "**") {
      match(rel, rest);
      for (const e of entries(path.join(base, rel)))
        if (e.isDirectory()) match(rel ? `${rel}/${e.name}` : e.name, segs);
      return;
    }
    if (!isWild(seg)) {
      const r = rel ? `${rel}/${seg}` : seg;
      if (rest.length === 0) return match(r, []);
      let st: fs.Stats | null = null;
      try {
        st = fs.lstatSync(path.join(base, r));
      } catch {}
      if (st?.isDirectory()) match(r, rest);
      return;
    }
    for (const e of entries(path.join(base, rel))) {
      if (!matchSegment(seg, e.name)) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (rest.length === 0 ? e.isFile() || e.isDirectory() || e.isSymbolicLink() : e.isDirectory()) match(r, rest);
    }
  };
  const unmatched: string[] = [];
  for (const p of patterns) {
    const segs = p
      .replace(/\\/g, "/")
      .split("/")
      .filter((s) => s !== "" && s !== ".");
    const before = hits;
    match("", segs);
    if (hits === before && !truncated) unmatched.push(p);
  }
  return { files: [...found].sort(), truncated, unmatched };
}
