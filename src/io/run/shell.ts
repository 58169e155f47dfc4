// Shell resolution and the PATH facts a run binds (docs/formats.md#check-run, docs/formats.md#evidence).
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import { pathFacts, type PathFacts } from "../../core/run/show.ts";
export { pathFacts, type PathFacts };

import { envValue, findProgram, type Env } from "../program.ts";
export { envValue, type Env };

/** `--shell`, else UNLAZY_SHELL, else the platform default: /bin/sh, or on Windows %ComSpec% (else cmd.exe), as the originals. */
export function requestedShell(flag: string | undefined, env: Env, platform = process.platform): string {
  if (flag) return flag;
  const chosen = envValue(env, "UNLAZY_SHELL", platform);
  if (chosen) return chosen;
  return platform === "win32" ? envValue(env, "ComSpec", platform) || "cmd.exe" : "/bin/sh";
}

/** A name with a slash is itself (resolved against the process cwd), else the program on PATH; a usage error when there is none. */
export function resolveShell(requested: string, env: Env, platform = process.platform): string {
  if (requested.includes("/") || requested.includes("\\") || path.isAbsolute(requested)) {
    const p = path.resolve(requested);
    try {
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // reported below
    }
  } else {
    const found = findProgram(requested, env, platform);
    if (found) return found;
  }
  throw new UsageError(`cannot resolve command shell ${JSON.stringify(requested)} from PATH`);
}
