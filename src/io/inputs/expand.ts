// INPUTS globs (issue 18) expanded against a directory: `*` and `?` within one path segment,
// `**` across segments; a pattern naming a directory means every file under it. Only regular
// files count; links are not followed (an input is a file of the repository, not a way out).
// Bounded, so a pattern like `**` over a huge tree cannot stall status or the Stop hook; a
// segment matches in linear time (core/workspace/glob.ts), never through a backtracking regex.
import * as fs from "node:fs";
import * as path from "node:path";
import { checkDeadline } from "../deadline.ts";
import { matchSegment } from "../../core/workspace/glob.ts";

export const MAX_INPUT_FILES = 5000;
/** Issue 28 item 7: more files than the cap is never a silent cut; the gate is unmet with this. */
export const TOO_MANY_INPUTS = `INPUTS match more than ${MAX_INPUT_FILES} files: narrow them`;

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
export function expandInputs(base: string, patterns: string[]): { files: string[]; truncated: boolean } {
  const found = new Set<string>();
  let truncated = false;
  const add = (rel: string) => {
    if (found.size >= MAX_INPUT_FILES) truncated = true;
    else found.add(rel);
  };
  const walkAll = (rel: string) => {
    for (const e of entries(path.join(base, rel))) {
      if (truncated) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walkAll(r);
      else if (e.isFile()) add(r);
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
      if (st.isFile()) add(rel);
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
      if (rest.length === 0 ? e.isFile() || e.isDirectory() : e.isDirectory()) match(r, rest);
    }
  };
  for (const p of patterns) {
    const segs = p
      .replace(/\\/g, "/")
      .split("/")
      .filter((s) => s !== "" && s !== ".");
    match("", segs);
  }
  return { files: [...found].sort(), truncated };
}
