// Path containment, decided on absolute paths alone (no file system access).
import * as path from "node:path";

/** `child` is `parent` or below it. Both absolute; a plain prefix answers most calls without path.relative. */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(path.sep) ? parent : parent + path.sep;
  if (path.sep === "/" && child.startsWith(base) && !child.includes("/..")) return true;
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * The folder holding the `.unlazy` that contains `file`'s `.unlazy/<scope>/` directory, or null
 * when the ledger is not inside a scope. Lexical: the path as named, after resolving `..`.
 */
export function scopeLedgerRoot(file: string): string | null {
  const parts = path.resolve(file).split(path.sep);
  // .unlazy/<scope>/<...>/<ledger>: at least a scope folder and a file name after `.unlazy`.
  for (let i = parts.length - 3; i >= 0; i--) {
    if (parts[i] === ".unlazy") return parts.slice(0, i).join(path.sep) || path.sep;
  }
  return null;
}

/** The folder a ledger's CHECKs run in by default when the ledger is named: its scope's root, else its folder. */
export function ledgerBase(file: string): string {
  return scopeLedgerRoot(file) ?? path.dirname(path.resolve(file));
}
