// What of kbz's files is this machine's state (never committed) and what a repository commits.
// `kbz init` and `kbz hook install` write LOCAL_STATE into the root's .gitignore (io/gitignore.ts)
// and say COMMIT_LINE. A new per-machine file or folder is added here, and only here.

import { kbz } from "../text/command.ts";

/** Root-anchored .gitignore patterns of kbz's local state (docs/formats.md#gitignore). */
export const LOCAL_STATE: readonly string[] = [
  "/.kbz/inputs/", // INPUTS digests of passes and signatures on this machine
  "/.kbz/oracles/", // the oracle each pass ran under
  "/.kbz/failures/", // kbz's own record of failed runs
  "/.kbz/probes/", // vacuity probe records
  "/.unlazy/locks/", // leases and file locks
  "/.unlazy/verification-receipts.json", // receipts of `kbz verify run`
  "/.unlazy/*/dispatch.json", // waves in flight
  "/.unlazy/*/status.log", // the waves' audit log
  "/.unlazy/*/hook-state.json", // the Stop hook's block counter per scope
  "/.unlazy-hook-state.json", // the same for solo ledgers
  "/.claude/settings.local.json", // Claude Code's per-machine settings (kbz's default hook place)
];

/**
 * What a repository commits: the ledgers and each scope's plan (the work is judged by them), and
 * the settings kbz keeps beside them. `kbz hook install` names them with LOCAL_STATE (issue 43).
 */
export const COMMITTED: readonly string[] = [
  "GATES.md",
  "gates/",
  ".unlazy/*/PLAN.md",
  ".unlazy/*/ACCESS.json",
  ".unlazy/*/GATES.md",
  ".unlazy/*/gates/",
  ".unlazy/*/STRUCTURE.json",
  ".kbz/settings.json",
];

/** What a run did to the root's .gitignore. */
export interface IgnoreResult {
  file: string;
  /** The patterns this run appended (none when all were there). */
  added: string[];
  /** Why the file was left alone, or null. */
  skipped: string | null;
}

/** The comment line kbz writes above its block. */
export const GITIGNORE_HEADER = `# kbz: this machine's state (${kbz("init")} / ${kbz("hook install")}; docs/formats.md#gitignore)`;

/** The one line both verbs print: what to commit, what not. */
export function commitLine(added: number, skipped: string | null): string {
  const ignore =
    skipped !== null
      ? `not kbz's local state (${skipped})`
      : added > 0
        ? `not kbz's local state (.gitignore: ${added} line(s) added)`
        : "not kbz's local state (.gitignore has it)";
  return `git: commit the ledgers, PLAN.md, ACCESS.json, .kbz/settings.json, the skill and shared hook settings; ${ignore}`;
}
