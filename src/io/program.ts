// The one lookup of a program by name on a PATH (test/core/one-of-each.test.ts finds a second).
// Only absolute PATH folders count: a relative entry would resolve against the working
// directory, which is the repository an agent writes. On Windows a bare name also tries each
// PATHEXT extension and names are case-insensitive; elsewhere the file must be executable.
// kbz's own helpers (bwrap, git for the sandbox) come from fixed system folders instead
// (io/run/system.ts), never from a CHECK's PATH.
import * as fs from "node:fs";
import * as path from "node:path";

export type Env = Record<string, string | undefined>;

/** `name` of `env`; on win32 any spelling of the name matches (its PATH is usually `Path`). */
export function envValue(env: Env, name: string, platform: string = process.platform): string | undefined {
  if (env[name] !== undefined || platform !== "win32") return env[name];
  const upper = name.toUpperCase();
  const key = Object.keys(env).find((k) => k.toUpperCase() === upper);
  return key === undefined ? undefined : env[key];
}

/** Where `name` would be looked for on `env`'s PATH, in order. */
export function programCandidates(name: string, env: Env, platform: string = process.platform): string[] {
  const win = platform === "win32";
  const delimiter = win ? ";" : path.delimiter;
  const dirs = (envValue(env, "PATH", platform) ?? "")
    .split(delimiter)
    .filter((d) => d !== "" && (path.isAbsolute(d) || (win && path.win32.isAbsolute(d))));
  let names = [name];
  if (win && path.extname(name) === "") {
    const exts = (envValue(env, "PATHEXT", platform) || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
    names = [name, ...exts.flatMap((e) => [name + e.toLowerCase(), name + e.toUpperCase()])];
  }
  return dirs.flatMap((d) => names.map((n) => path.join(d, n)));
}

/** The first regular (and, off Windows, executable) file named `name` on `env`'s PATH, or null. */
export function findProgram(name: string, env: Env, platform: string = process.platform): string | null {
  for (const c of programCandidates(name, env, platform)) {
    try {
      if (!fs.statSync(c).isFile()) continue;
      if (platform !== "win32") fs.accessSync(c, fs.constants.X_OK);
      return c;
    } catch {
      // not here: keep looking
    }
  }
  return null;
}
