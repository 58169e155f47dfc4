// Shell resolution and the PATH facts a run binds (docs/formats.md#check-run, docs/formats.md#evidence).
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import { pathFacts, type PathFacts } from "../../core/run/show.ts";
export { pathFacts, type PathFacts };

export type Env = Record<string, string | undefined>;

/**
 * A variable of `env`. Windows' names are case-insensitive (its PATH is usually spelled `Path`),
 * and a copied environment object is not: on win32 any spelling matches, as in the originals'
 * process.env.
 */
export function envValue(env: Env, name: string, platform: string = process.platform): string | undefined {
  if (env[name] !== undefined || platform !== "win32") return env[name];
  const upper = name.toUpperCase();
  const key = Object.keys(env).find((k) => k.toUpperCase() === upper);
  return key === undefined ? undefined : env[key];
}

/** `--shell`, else UNLAZY_SHELL, else the platform default: /bin/sh, or on Windows %ComSpec% (else cmd.exe), as the originals. */
export function requestedShell(flag: string | undefined, env: Env, platform = process.platform): string {
  if (flag) return flag;
  const chosen = envValue(env, "UNLAZY_SHELL", platform);
  if (chosen) return chosen;
  return platform === "win32" ? envValue(env, "ComSpec", platform) || "cmd.exe" : "/bin/sh";
}

function candidates(requested: string, env: Env, platform: string): string[] {
  if (requested.includes("/") || requested.includes("\\") || path.isAbsolute(requested))
    return [path.resolve(requested)];
  const dirs = (envValue(env, "PATH", platform) ?? "").split(path.delimiter).filter(Boolean);
  let names = [requested];
  if (platform === "win32" && path.extname(requested) === "") {
    const exts = (envValue(env, "PATHEXT", platform) || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
    names = [requested, ...exts.flatMap((e) => [requested + e.toLowerCase(), requested + e.toUpperCase()])];
  }
  return dirs.flatMap((d) => names.map((n) => path.join(d, n)));
}

/** The first candidate that is a regular file; a usage error when there is none. */
export function resolveShell(requested: string, env: Env, platform = process.platform): string {
  for (const c of candidates(requested, env, platform)) {
    try {
      if (fs.statSync(c).isFile()) return c;
    } catch {
      // keep looking
    }
  }
  throw new UsageError(`cannot resolve command shell ${JSON.stringify(requested)} from PATH`);
}
