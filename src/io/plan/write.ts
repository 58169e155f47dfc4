// Committing an edit to a scope's PLAN.md / ACCESS.json / new leaf ledgers: one lock on PLAN.md,
// a fresh read, the pure edit, the result re-parsed by the scheduler's own reader, then atomic
// writes (new ledgers first, ACCESS next, PLAN last, so PLAN never names a leaf that is missing).
import * as path from "node:path";
import { lstatOrNull, writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import { ReadError } from "../../core/errors.ts";
import { readScopeText } from "../read.ts";
import { checkedPlan } from "../../core/plan/edit.ts";
import { ScheduleInputError } from "../../core/plan/errors.ts";
import type { Plan } from "../../core/plan/table.ts";
import { kbz } from "../../core/text/command.ts";

export interface ScopeTexts {
  plan: Plan;
  planText: string;
  accessText: string | null;
}

export interface ScopeEdit {
  plan?: string;
  access?: string;
  /** Scope-relative path → text of files that must not exist yet. */
  create?: Record<string, string>;
  /** One status.log event describing the change, for the caller to log (nothing for a no-op). */
  log?: string;
}

export const scopeDir = (root: string, scope: string) => path.join(root, ".unlazy", scope);

function readText(root: string, file: string, required: boolean): string | null {
  const shown = path.relative(root, file);
  const [, scope, ...rest] = shown.split(path.sep);
  let text: string | null;
  try {
    text = readScopeText(root, scope!, rest.join("/"));
  } catch (e) {
    if (e instanceof ReadError) throw new ScheduleInputError(e.message, shown, e.line ?? 1);
    throw e;
  }
  if (text === null && required)
    throw new ScheduleInputError(`missing required file (run ${kbz("init", { scope: true })} first)`, shown, 1);
  return text;
}

export function readScopeTexts(root: string, scope: string): ScopeTexts {
  const dir = scopeDir(root, scope);
  const planFile = path.join(dir, "PLAN.md");
  const planText = readText(root, planFile, true)!;
  return {
    planText,
    plan: checkedPlan(planText, path.relative(root, planFile)),
    accessText: readText(root, path.join(dir, "ACCESS.json"), false),
  };
}

/** Apply `edit` under the scope's PLAN lock; returns what the edit returned (after writing it). */
export async function commitScopeEdit<T extends ScopeEdit>(
  root: string,
  scope: string,
  edit: (cur: ScopeTexts) => T,
): Promise<T> {
  const dir = scopeDir(root, scope);
  const planFile = path.join(dir, "PLAN.md");
  return withFileLock(root, planFile, () => {
    const cur = readScopeTexts(root, scope);
    const change = edit(cur);
    if (change.plan !== undefined) checkedPlan(change.plan, path.relative(root, planFile));
    for (const rel of Object.keys(change.create ?? {})) {
      if (lstatOrNull(path.join(dir, rel)))
        throw new ScheduleInputError(
          "already exists; kbz never overwrites a ledger",
          path.relative(root, path.join(dir, rel)),
          1,
        );
    }
    for (const [rel, text] of Object.entries(change.create ?? {}))
      writeAtomic(path.join(dir, rel), text, { root, createParents: true, mode: 0o644 });
    if (change.access !== undefined && change.access !== cur.accessText)
      writeAtomic(path.join(dir, "ACCESS.json"), change.access, { root, mode: 0o644 });
    if (change.plan !== undefined && change.plan !== cur.planText)
      writeAtomic(planFile, change.plan, { root, mode: 0o644 });
    return change;
  });
}
