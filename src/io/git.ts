// kbz's own git calls (issue 28 item 2): a repository's .git can hold code (core.fsmonitor, hooks,
// config from GIT_* variables) that git would run with kbz's rights. kbz's calls run none of it:
// fsmonitor off, hooks pointed at /dev/null, no optional locks, and no inherited GIT_* variable.
// Issue 42 item 1: the system's git (io/run/system.ts: by absolute path from root-owned system
// folders, never from PATH) with a minimal environment (the system PATH, HOME and XDG_CONFIG_HOME
// for the person's own configuration, nothing else of the caller's). Item 2: kbz never asks git
// about a worktree's files (a diff, a status): git would run the clean filters a `.gitattributes`
// names; kbz hashes worktree files itself (io/gitBlobs.ts) against the ids git keeps.
import { createRequire } from "node:module";
import { helperEnv, systemTool } from "./run/system.ts";

export const INERT_GIT = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-optional-locks"];

/** The environment a kbz git call runs with: the system PATH, HOME and XDG_CONFIG_HOME; no GIT_* variable. */
export function gitEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  return helperEnv({ HOME: env.HOME, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME });
}

/** Run `git <args>` in `cwd` inertly; stdout as text, or null when git failed or is missing. */
export function gitInert(
  cwd: string,
  args: string[],
  opts: { timeoutMs?: number; maxBuffer?: number } = {},
): string | null {
  // Loaded here only: node:child_process costs startup time every command would pay.
  const { spawnSync } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const git = systemTool("git");
  if (!git) return null;
  const r = spawnSync(git, [...INERT_GIT, ...args], {
    cwd,
    env: gitEnv(),
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 10_000,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return r.status === 0 ? r.stdout : null;
}
