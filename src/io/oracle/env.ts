// The environment a CHECK runs with (issue 27: the environment is kbz's; docs/formats.md#check-env).
// kbz builds it: an allow-list of names that describe the machine and the person's session,
// kbz's own variables, and the names a gate declares in `ENV:`, whose values the approval binds.
// Everything else (NODE_OPTIONS, LD_PRELOAD, PYTHONPATH, BASH_ENV, ENV, PERL5OPT, RUBYOPT, …,
// every variable that changes what an interpreter loads) is never inherited silently.
import { sha256Hex } from "../../core/util/hash.ts";
import type { Env } from "../run/shell.ts";

/** Inherited as they are, not bound: they describe the machine and the session, not the oracle. */
export const ALLOWED_ENV = [
  "PATH", // bound separately: the oracle holds it whole
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TMPDIR",
  "TZ",
  "CI",
  // Windows needs these to start anything.
  "SystemRoot",
  "SYSTEMROOT",
  "windir",
  "WINDIR",
  "ComSpec",
  "COMSPEC",
  "PATHEXT",
  "SystemDrive",
  "TEMP",
  "TMP",
] as const;

/** kbz's own settings, passed on so a CHECK that runs kbz sees the same store and cache. */
export const KBZ_PASSED_ENV = [
  "UNLAZY_APPROVAL_DIR",
  "UNLAZY_SHELL",
  "KBZ_CACHE_DIR",
  "KBZ_LEASE_TTL",
  "KBZ_CONTAINMENT",
  "XDG_CACHE_HOME",
] as const;

/** kbz's settings that change what a nested `kbz status` judges: passed on and bound when set. */
export const KBZ_BOUND_ENV = ["UNLAZY_SCOPE", "KBZ_COORDINATOR"] as const;

const allowed = new Set<string>([...ALLOWED_ENV, ...KBZ_PASSED_ENV]);

/** The CHECK's environment: the allow-list (with LC_*), kbz's names and the gate's ENV names. */
export function checkEnvironment(env: Env, declared: readonly string[] | null): Env {
  const out: Env = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allowed.has(name) || name.startsWith("LC_")) out[name] = value;
  }
  for (const name of [...KBZ_BOUND_ENV, ...(declared ?? [])]) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** What the approval binds of the environment: each bound name's value digest, or "unset". */
export function boundEnv(env: Env, declared: readonly string[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...(declared ?? [])].sort())
    out[name] = env[name] === undefined ? "unset" : sha256Hex(`${name}=${env[name]}`);
  for (const name of KBZ_BOUND_ENV)
    if (env[name] !== undefined && !(name in out)) out[name] = sha256Hex(`${name}=${env[name]}`);
  return out;
}

/** Names set in `env` that a CHECK does not receive (for `--verbose` and the docs' test). */
export function droppedNames(env: Env, declared: readonly string[] | null): string[] {
  const kept = checkEnvironment(env, declared);
  return Object.keys(env)
    .filter((n) => env[n] !== undefined && !(n in kept))
    .sort();
}
