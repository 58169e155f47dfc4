// `kbz skill install` as a use case: the skill's files (embedded in the binary) written into an
// agent host's skill folder, idempotently; a folder holding different files is refused.
import { SKILL_AGENTS, SkillInstallRefusal, installFiles, skillDir, type SkillAgent } from "../io/skill/install.ts";
import { SKILL_FILES, SKILL_NAME } from "../skill/files.ts";

export { SKILL_AGENTS, SKILL_NAME, SkillInstallRefusal };
export type { SkillAgent };

/** The folder the skill goes to for `agent` (the project's, or with `global` the user's). */
export function skillFolder(agent: SkillAgent, global: boolean, cwd: string, home: string): string {
  return skillDir(agent, global, cwd, home, SKILL_NAME);
}

/** Write the skill's files into `dir` (inside `base`); which were written and which were already the same. */
export function installSkill(base: string, dir: string): { written: string[]; unchanged: string[] } {
  return installFiles(base, dir, SKILL_FILES);
}
