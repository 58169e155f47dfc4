// Where a command runs: the repository root (given, or found from a folder by the one root rule,
// io/root.ts findRoot, the same the Stop hook uses), the scopes under it and what a run targets.
// The CLI's context.ts and the dashboard ask here; no edge resolves a root itself.
import { canonicalRoot, listScopes, resolveTarget } from "../io/discover.ts";
import { findRoot } from "../io/root.ts";
import type { Target } from "../core/workspace/target.ts";
import { installCoordination } from "../io/coordination/active.ts";
import type { LostLease } from "../io/coordination/port.ts";

/** `given` (canonical) when set, else the root found from `cwd` by the one root rule. */
export function rootOf(given: string | undefined, cwd: string): string {
  if (given !== undefined) return canonicalRoot(given);
  return findRoot(canonicalRoot(cwd));
}

/** The scope ids under `<root>/.unlazy/`, sorted; none when there is no such folder. */
export function scopesOf(root: string): string[] {
  return listScopes(root);
}

/** What a run on `root` targets: explicit ledgers, a scope, or the ledgers found at the root. */
export function targetOf(root: string, files: string[], scope: string | null): Target {
  return resolveTarget({ root, files, scope });
}

/**
 * Install the coordination adapter for a command's root (the files, or the etcd coordinator that
 * --coordinator, KBZ_COORDINATOR or .kbz/settings.json names) before it reads anything; returns
 * the leases this clone lost since its last command.
 */
export async function openCoordination(
  root: string,
  flag: string | undefined,
  logScope: string | null,
): Promise<LostLease[]> {
  return (await installCoordination(root, { flag, logScope })).lost;
}
