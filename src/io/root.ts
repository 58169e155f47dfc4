// Where a verb run from a folder finds its repository root (docs/formats.md#root).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { kbz } from "../core/text/command.ts";

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

/**
 * The outermost folder at or above `cwd` (canonical) that holds kbz's files, up to the git top
 * level, never the home directory; `findRoot` when there is none. The Stop hook judges it as well
 * as the nearest root (issue 40 item 5): an empty `sub/.unlazy/` below the real root must not
 * decide a stop made from `sub`.
 */
export function outermostRoot(cwd: string, home: string = os.homedir()): string {
  let found: string | null = null;
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (dir === home && dir !== cwd) break;
    if (holdsWorkspace(dir)) found = dir;
    if (has(dir, ".git") || path.dirname(dir) === dir) break;
  }
  return found ?? findRoot(cwd, home);
}

/**
 * Ledgers at the root (`GATES.md`, `gates/*.md`) that a scoped run does not read: once a scope
 * exists, unlazy's discovery takes the scope alone. They are not part of the scope's verdict, but
 * every reader (status, check, the Stop hook) names them with a warning instead of dropping them
 * silently. Root-relative paths, sorted.
 */
export function ledgersBesideScope(root: string, mode: string): string[] {
  if (mode !== "scope") return [];
  const found: string[] = [];
  if (has(root, "GATES.md")) found.push("GATES.md");
  try {
    for (const n of fs.readdirSync(path.join(root, "gates")).sort()) if (n.endsWith(".md")) found.push(`gates/${n}`);
  } catch {}
  return found;
}

/** The warning text for one ledger beside a scope. */
export function besideScopeWarning(scope: string | null, file: string): string {
  return `root ledger is not part of scope ${scope ?? "?"} and is not in this verdict; run ${kbz("status", file)} to see it`;
}
