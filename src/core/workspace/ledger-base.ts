// Where a ledger's CHECKs run from (io/check/plan.ts baseDir is the one rule; the readers of
// pass records use the same base, see io/oracle/stale.ts).
import * as path from "node:path";

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

/**
 * The folder a gate's CWD is relative to when no `--cwd` was given: the root for discovered and
 * scope ledgers; an explicit ledger outside a scope runs from its own folder.
 */
export function ledgerBase(root: string, file: string, explicit: boolean): string {
  if (!explicit) return root;
  return scopeLedgerRoot(file) ?? path.dirname(file);
}
