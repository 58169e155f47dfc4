// Where a verb run from a folder finds its repository root (docs/formats.md#root).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

function has(dir: string, name: string): boolean {
  try {
    fs.lstatSync(path.join(dir, name));
    return true;
  } catch {
    return false;
  }
}

function isDir(dir: string, name: string): boolean {
  try {
    return fs.lstatSync(path.join(dir, name)).isDirectory();
  } catch {
    return false;
  }
}

/** A `gates/` folder counts only if it holds ledgers, so a source folder named gates does not. */
function hasLedgerFolder(dir: string): boolean {
  try {
    return fs.readdirSync(path.join(dir, "gates")).some((n) => n.endsWith(".md"));
  } catch {
    return false;
  }
}

/** A folder that holds kbz's files: `.unlazy/`, `GATES.md` or `gates/*.md`. */
export function holdsWorkspace(dir: string): boolean {
  return isDir(dir, ".unlazy") || has(dir, "GATES.md") || hasLedgerFolder(dir);
}

/**
 * The root for a run started in `cwd` (canonical): the nearest folder at or above it that holds
 * `.unlazy/`, `GATES.md` or `gates/*.md`; else the git top level; else `cwd`. The walk stops at
 * the git top level and never reaches the home directory, whose `.unlazy/` holds approvals.
 */
export function findRoot(cwd: string, home: string = os.homedir()): string {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (dir === home && dir !== cwd) return cwd;
    if (holdsWorkspace(dir)) return dir;
    if (has(dir, ".git")) return dir;
    if (path.dirname(dir) === dir) return cwd;
  }
}
