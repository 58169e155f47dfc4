// The programs kbz runs around a CHECK (issue 42 item 1): bwrap, unshare, mount, git and the
// shells of its wrappers. They run with kbz's rights, outside the sandbox, often before anything
// is approved (the probe), so none is looked up on a PATH an agent can put a folder on (an
// activated `.venv/bin`, direnv's `PATH_add bin`, `node_modules/.bin`): each is found in a fixed
// list of system folders, and only where the file and every folder on its real path belong to
// root and nobody else may write them. They run with a minimal environment (`helperEnv`): the
// CHECK's variables (an `ENV: LD_PRELOAD` a probe runs before any approval) never reach them; the
// sandbox hands those to the CHECK itself (sandbox.ts `sandboxLaunch`).
import * as fs from "node:fs";
import * as path from "node:path";

/** Where kbz looks for the programs it runs around a CHECK, in this order. */
export const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin"] as const;
/** The PATH those programs run with. */
export const SYSTEM_PATH = SYSTEM_DIRS.join(":");

const found = new Map<string, string | null>();

/** True when `p` and every folder above it belong to root and only root may write them. */
function rootOwned(p: string): boolean {
  for (let d = p; ; d = path.dirname(d)) {
    let st: fs.Stats;
    try {
      st = fs.statSync(d);
    } catch {
      return false;
    }
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    if (d === path.dirname(d)) return true;
  }
}

/**
 * The system's `name` (its real path): the first of SYSTEM_DIRS holding an executable regular
 * file of that name that root owns all the way up; null when there is none. Never a PATH lookup.
 */
export function systemTool(name: string): string | null {
  if (process.platform === "win32") return null;
  const known = found.get(name);
  if (known !== undefined) return known;
  let hit: string | null = null;
  for (const dir of SYSTEM_DIRS) {
    let real: string;
    try {
      real = fs.realpathSync(path.join(dir, name));
      if (!fs.statSync(real).isFile()) continue;
      fs.accessSync(real, fs.constants.X_OK);
    } catch {
      continue;
    }
    if (rootOwned(real)) {
      hit = real;
      break;
    }
  }
  found.set(name, hit);
  return hit;
}

/** The POSIX shell kbz's own wrappers run in (never the CHECK's `--shell`). */
export const SYSTEM_SH = "/bin/sh";

/**
 * The environment of a program kbz runs around a CHECK: the system PATH and a C locale, plus
 * what a caller names (git's HOME, for the person's own configuration). Nothing of the CHECK's.
 */
export function helperEnv(keep: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: SYSTEM_PATH, LC_ALL: "C" };
  for (const [k, v] of Object.entries(keep)) if (v !== undefined) env[k] = v;
  return env;
}
