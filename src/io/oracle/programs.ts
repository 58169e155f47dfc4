// Programs, not PATH strings (issue 39; docs/formats.md#oracle). An approval binds each program the
// CHECK runs as the caller's PATH resolves it (its real path and, inside the root, its digest;
// outside, its identity: device, inode, size and mtime), and every PATH folder inside the root. So a
// caller whose PATH holds one more unrelated folder runs the approved oracle, while a folder in the
// root put first on PATH with its own `node`, or a rewritten program inside the root, is an oracle
// change. PATH folders outside the root are the machine's: what they resolve is bound, not their names.
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../../core/workspace/inside.ts";
import { digestText, fileDigest } from "./digest.ts";

export interface ProgramBinding {
  /** name → "<real path> <sha256 | dev:ino:size:mtime>", or "not found". Sorted by name. */
  programs: Record<string, string>;
  /** The PATH folders inside the root, root-relative (`.` for the root), in PATH order. */
  pathInRoot: string[];
}

function executable(file: string): fs.Stats | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return null;
    if (process.platform !== "win32") fs.accessSync(file, fs.constants.X_OK);
    return st;
  } catch {
    return null;
  }
}

/** Where `name` resolves on `pathValue` (searched from `cwd` for relative entries), as sh does: the first executable. */
export function resolveProgram(name: string, pathValue: string, cwd: string): string | null {
  for (const entry of pathValue.split(path.delimiter)) {
    const dir = path.resolve(cwd, entry || ".");
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

/** The identity kbz binds of a program: inside the root its content digest, outside its file identity. */
export function programIdentity(root: string, abs: string): string {
  let real = abs;
  try {
    real = fs.realpathSync(abs);
  } catch {
    return "missing";
  }
  if (isInside(root, real)) return `${real} ${digestText(fileDigest(real))}`;
  try {
    const st = fs.statSync(real, { bigint: true });
    return `${real} ${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return `${real} missing`;
  }
}

/** PATH entries inside the root (real paths compared), root-relative, in order. */
export function pathFoldersInRoot(root: string, pathValue: string, cwd: string): string[] {
  const out: string[] = [];
  for (const entry of pathValue.split(path.delimiter)) {
    let dir = path.resolve(cwd, entry || ".");
    try {
      dir = fs.realpathSync(dir);
    } catch {}
    if (!isInside(root, dir)) continue;
    const rel = path.relative(root, dir).split(path.sep).join("/") || ".";
    if (!out.includes(rel)) out.push(rel);
  }
  return out;
}

/** The programs `names` as `pathValue` resolves them from `cwd`, and the PATH folders inside the root. */
export function programBinding(root: string, names: readonly string[], pathValue: string, cwd: string): ProgramBinding {
  const programs: Record<string, string> = {};
  for (const name of [...new Set(names)].sort()) {
    const found = resolveProgram(name, pathValue, cwd);
    programs[name] = found ? programIdentity(root, found) : "not found";
  }
  return { programs, pathInRoot: pathFoldersInRoot(root, pathValue, cwd) };
}

/**
 * Whether every program the approved oracle ran still resolves to the same file on `pathValue`,
 * with the same PATH folders inside the root (the approved-oracle view puts the approved scripts
 * back, so the programs they name must be the approved ones, whatever the live scripts name).
 */
export function programsHold(
  root: string,
  approved: { pathInRoot: string[]; resolved: Record<string, string> },
  pathValue: string,
  cwd: string,
): boolean {
  const now = programBinding(root, Object.keys(approved.resolved), pathValue, cwd);
  if (now.pathInRoot.join(":") !== approved.pathInRoot.join(":")) return false;
  return Object.keys(approved.resolved).every((n) => now.programs[n] === approved.resolved[n]);
}
