// `kbz scope` as use cases: the scopes and every lease held, claiming a leaf ledger's OWNS paths
// (a retry of a claim this leaf already holds is no conflict), releasing leases, appending to a
// scope's status log and binding an agent session to a scope, each through the one coordination port
// (io/coordination/). Options in, data out; cli/scope.ts prints.
import * as fs from "node:fs";
import * as path from "node:path";
import { FileProblemsError, KbzError, kindOf } from "../core/errors.ts";
import type { InvalidLease, LeaseRecord, Lease } from "../core/dispatch/lease-record.ts";
import type { LedgerEntry } from "../core/snapshot.ts";
import { listScopes } from "../io/discover.ts";
import { normalizeClaimGlobs, type ClaimConflict, type ClaimResult } from "../io/dispatch/leases.ts";
import { statusLogPath } from "../io/dispatch/statuslog.ts";
import { loadLedgerFile } from "../io/read.ts";
import { coordination, coordinationFor } from "../io/coordination/active.ts";
import { logEvent, stamped } from "../io/coordination/events.ts";
import type { LostLease } from "../io/coordination/port.ts";
import { infra, RefusedError } from "./refused.ts";

export type { ClaimConflict, LeaseRecord };

/** `scope list`: the scopes under `.unlazy/` and every lease held (invalid records included). */
export function scopesAndLeases(root: string): { scopes: string[]; leases: LeaseRecord[] } {
  return { scopes: listScopes(root), leases: coordination(root).leases() };
}

/** The lease this leaf already holds for exactly these OWNS paths (a retried claim), if any. */
function heldAlready(conflicts: ClaimConflict[], scope: string, leaf: string, owns: string[]): LeaseRecord | null {
  if (conflicts.length !== 1 || conflicts[0]!.kind !== "identity") return null;
  const holder = conflicts[0]!.holder;
  if (holder.invalid || holder.scope !== scope || holder.leaf !== leaf) return null;
  let wanted: string[];
  try {
    wanted = normalizeClaimGlobs(owns);
  } catch {
    return null;
  }
  const same = wanted.length === holder.globs.length && wanted.every((g) => holder.globs.includes(g));
  return same ? holder : null;
}

export interface Claimed {
  result: ClaimResult;
  /** Refused only because this leaf already holds exactly these paths (a retry): no conflict. */
  held: LeaseRecord | null;
  /** The paths the leaf ledger declares (OWNS). */
  owns: string[];
  /** The status log could not take the claim line (the claim stands). */
  logWarning: string | null;
}

/** `scope claim`: lease the leaf ledger's OWNS paths; the claim joins the scope's log. */
export async function claimLeaf(root: string, scope: string, leaf: string, file: string): Promise<Claimed> {
  const entry: LedgerEntry = loadLedgerFile(file, root, true);
  if (entry.problems.length > 0 || !entry.ledger) throw new FileProblemsError(entry.problems);
  if (entry.ledger.owns.length === 0)
    throw new FileProblemsError([
      { file: entry.display, line: 1, message: "declares no OWNS paths; add an OWNS: line before the first gate" },
    ]);
  const owns = entry.ledger.owns;
  const result = await infra(() => coordinationFor(root).claim(scope, leaf, owns));
  if (result.ok) {
    const logWarning = await logEvent(coordinationFor(root), scope, `claim ${leaf}: ${result.lease.globs.join(", ")}`);
    return { result, held: null, owns, logWarning };
  }
  return { result, held: heldAlready(result.conflicts, scope, leaf, owns), owns, logWarning: null };
}

/** `scope release --invalid`: remove corrupt lease records that block every claim. */
export function releaseInvalid(root: string): Promise<{ removed: InvalidLease[]; notes: string[] }> {
  return infra(() => coordinationFor(root).removeInvalid());
}

export interface Released {
  released: Lease[];
  alreadyLost: LostLease[];
  notes: string[];
  logWarning: string | null;
}

/** `scope release`: a leaf's or a whole scope's leases; works after the scope folder is gone. */
export async function releaseLeases(root: string, scope: string, leaf: string | null): Promise<Released> {
  const { released, alreadyLost, notes } = await infra(() => coordinationFor(root).release(scope, leaf));
  let logWarning: string | null = null;
  // An orphan release (its scope folder gone) has no log to write to.
  if (
    released.length > 0 &&
    (coordinationFor(root).kind !== "files" || fs.existsSync(path.join(root, ".unlazy", scope)))
  ) {
    logWarning = await logEvent(coordinationFor(root), scope, `release ${leaf ?? "all"}: ${released.length} lease(s)`);
  }
  return { released, alreadyLost, notes, logWarning };
}

/** The coordinator's own failure (unreachable, or a bad setting): it passes as it is, with its hint. */
function fromCoordinator(e: unknown): boolean {
  return e instanceof KbzError && (e.code === "coordinator" || e.code === "coordinator-config");
}

/** `scope log`: append one timestamped line to the scope's status log; returns where it went. */
export async function appendLog(root: string, scope: string, line: string): Promise<string> {
  const coord = coordinationFor(root);
  const file = coord.kind === "files" ? statusLogPath(root, scope) : `${coord.label} (status log of ${scope})`;
  try {
    await coord.appendStatus(scope, stamped(line));
  } catch (e) {
    if (fromCoordinator(e)) throw e;
    throw new RefusedError(
      `cannot append status: ${(e as Error).message}`,
      e instanceof KbzError ? { file: e.file, hint: e.hint } : {},
    );
  }
  return file;
}

/** `scope bind`: bind an agent session id to the scope (the Stop hook honours it). */
export async function bindSession(root: string, scope: string, session: string): Promise<string> {
  try {
    return await coordinationFor(root).bindSession(scope, session);
  } catch (e) {
    if (kindOf(e) === "usage" || fromCoordinator(e)) throw e;
    throw new RefusedError(
      `cannot bind session: ${(e as Error).message}`,
      e instanceof KbzError ? { file: e.file, hint: e.hint } : {},
    );
  }
}
