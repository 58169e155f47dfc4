// Writing a set of text files into a directory an agent reads (skills), atomically per file and
// idempotently: unchanged files are not touched, and every target is checked before any write.
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureRealDir, lstatOrNull, writeAtomic } from "../fs.ts";
import { KbzError } from "../../core/errors.ts";

export type SkillAgent = "claude" | "codex" | "cursor" | "gemini";
export const SKILL_AGENTS: readonly SkillAgent[] = ["claude", "codex", "cursor", "gemini"];

/**
 * Where each agent discovers skills, project-level or in the home directory with `global`.
 * Claude Code reads only `.claude/skills` (code.claude.com/docs/en/skills). Codex
 * (developers.openai.com/codex/skills), Cursor (cursor.com/docs/skills) and Gemini CLI
 * (gemini-cli docs/cli/skills.md) all read the shared `.agents/skills`, in the project and in
 * `~`, so one copy there serves the three.
 */
export function skillDir(agent: SkillAgent, global: boolean, cwd: string, home: string, name: string): string {
  const base = global ? home : cwd;
  return path.join(base, agent === "claude" ? ".claude" : ".agents", "skills", name);
}

export class SkillInstallRefusal extends KbzError {
  constructor(message: string, file?: string) {
    super(message, {
      code: "skill-refused",
      file,
      hint: "move the file or directory out of the way, then run the command again",
    });
  }
}

export interface SkillInstallOutcome {
  dir: string;
  written: string[];
  unchanged: string[];
}

function sameContent(file: string, text: string): boolean {
  try {
    return fs.readFileSync(file, "utf8") === text;
  } catch {
    return false;
  }
}

/** Install `files` under `dir`, which lies inside `base` (the project or the home directory). */
export function installFiles(
  base: string,
  dir: string,
  files: ReadonlyArray<readonly [string, string]>,
): SkillInstallOutcome {
  // Refuse before writing anything: a link or a non-file where one of our files goes, or a
  // linked directory between `base` and it, would redirect the write somewhere else.
  for (const [rel] of files) {
    const target = path.join(dir, rel);
    for (let d = path.dirname(target); d !== base && d.startsWith(base + path.sep); d = path.dirname(d)) {
      const st = lstatOrNull(d);
      if (st && (st.isSymbolicLink() || !st.isDirectory())) throw new SkillInstallRefusal("not a real directory", d);
    }
    const st = lstatOrNull(target);
    if (st && (st.isSymbolicLink() || !st.isFile() || st.nlink !== 1)) {
      throw new SkillInstallRefusal("refusing to replace: it is not a regular single-link file", target);
    }
  }
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const [rel, text] of files) {
    const target = path.join(dir, rel);
    if (sameContent(target, text)) {
      unchanged.push(rel);
      continue;
    }
    ensureRealDir(path.dirname(target), undefined, 0o755);
    writeAtomic(target, text, { mode: 0o644 });
    written.push(rel);
  }
  return { dir, written, unchanged };
}
