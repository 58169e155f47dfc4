// kbz's own git calls (issue 28 item 2): a repository's .git can hold code (core.fsmonitor, hooks,
// config from GIT_* variables) that git would run with kbz's rights. kbz's calls run none of it:
// fsmonitor off, hooks pointed at /dev/null, no optional locks, and no inherited GIT_* variable.
import { createRequire } from "node:module";

export const INERT_GIT = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-optional-locks"];

/** The environment a kbz git call runs with: the caller's, less every GIT_* variable. */
export function gitEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith("GIT_")) out[k] = v;
  return out;
}

/** Run `git <args>` in `cwd` inertly; stdout as text, or null when git failed or is missing. */
export function gitInert(
  cwd: string,
  args: string[],
  opts: { timeoutMs?: number; maxBuffer?: number } = {},
): string | null {
  // Loaded here only: node:child_process costs startup time every command would pay.
  const { spawnSync } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const r = spawnSync("git", [...INERT_GIT, ...args], {
    cwd,
    env: gitEnv(),
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 10_000,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return r.status === 0 ? r.stdout : null;
}
