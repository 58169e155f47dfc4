// `kbz init` as a use case: a starter solo GATES.md, or a scope (.unlazy/ID/ with PLAN.md,
// ACCESS.json, GATES.md and gates/). Each file appears whole under its name or not at all, and an
// existing ledger is never overwritten. Options in, data out (the files written, root-relative).
import * as fs from "node:fs";
import { kbz } from "../core/text/command.ts";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { freshAccess, freshPlan } from "../core/plan/edit.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/ids.ts";
import { canonicalRoot } from "../io/discover.ts";
import { ensureRealDir, lstatOrNull, writeAtomic } from "../io/fs.ts";
import { ignoreLocalState } from "../io/gitignore.ts";
import { findRoot } from "../io/root.ts";
import type { IgnoreResult } from "../core/workspace/local-state.ts";
import { TEMPLATES } from "../skill/files.ts";

/** The leaf template as a solo GATES.md: no OWNS line (nothing to lease) and a task title. */
export function soloLedger(): string {
  return TEMPLATES.leaf.replace(/^# Gates: .*$/m, "# Gates: <what this task delivers>").replace(/^OWNS: .*\n/m, "");
}

/** Atomic and no-clobber: the full file appears under its name at once, or not at all. */
function createNew(target: string, text: string): void {
  const tmp = `${target}.init.tmp`;
  writeAtomic(tmp, text, { mode: 0o644 });
  try {
    fs.linkSync(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new UsageError(`${target} already exists; ${kbz("init")} never overwrites a ledger`);
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Write the starter files under `given` (canonical), then kbz's local-state lines into the root's
 * .gitignore; returns the root, the files written and what .gitignore got.
 */
export function initLedgers(
  given: string,
  scope: string | undefined,
): { root: string; written: string[]; gitignore: IgnoreResult } {
  const root = canonicalRoot(given);
  if (scope !== undefined && !isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  const files: [string, string][] = scope
    ? [
        [path.join(".unlazy", scope, "PLAN.md"), freshPlan(scope)],
        [path.join(".unlazy", scope, "ACCESS.json"), freshAccess()],
        [path.join(".unlazy", scope, "GATES.md"), TEMPLATES.node.split("<scope>").join(scope)],
      ]
    : [["GATES.md", soloLedger()]];
  for (const [rel] of files) {
    if (lstatOrNull(path.join(root, rel)))
      throw new UsageError(`${rel} already exists; ${kbz("init")} never overwrites a ledger`);
  }
  if (scope) ensureRealDir(path.join(root, ".unlazy", scope, "gates"), root, 0o755);
  for (const [rel, text] of files) createNew(path.join(root, rel), text);
  return { root, written: files.map(([rel]) => rel), gitignore: ignoreLocalState(root) };
}

/** `kbz hook install` in a repository: kbz's local-state lines into the .gitignore of the root found from `cwd`. */
export function keepLocalStateOut(cwd: string): IgnoreResult {
  return ignoreLocalState(findRoot(canonicalRoot(cwd)));
}
