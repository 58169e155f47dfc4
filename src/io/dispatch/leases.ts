// OWNS leases (docs/formats.md#leases): coordination records under .unlazy/locks/, claimed and released
// under one registry lock. Overlap is decided only by `globsOverlap`. `root` is always the
// canonical root (`canonicalRoot`), so every alias of a checkout shares one registry.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import { isValidId, SCOPE_ID_MESSAGE } from "../../core/workspace/ids.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import { globsOverlap, normalizeOwnsPath } from "../../core/workspace/paths.ts";
import { readLeaseRecords } from "../read.ts";
import {
  leaseFileName,
  locksDir,
  type InvalidLease,
  type Lease,
  type LeaseRecord,
} from "../../core/dispatch/lease-record.ts";
import { recoveryLogger } from "./statuslog.ts";
import { KbzError } from "../../core/errors.ts";

/** An invalid record that kbz must not or cannot remove itself. */
export class LeaseRecordError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, { code: "lease-record", file, hint: "remove the lease record by hand" });
  }
}

export type ClaimConflict =
  | { kind: "glob"; glob: string; theirGlob: string; holder: LeaseRecord }
  | { kind: "identity"; holder: Lease };

export type ClaimResult =
  | { ok: true; lease: Lease; notes: string[] }
  | { ok: false; conflicts: ClaimConflict[]; notes: string[] };

export interface LeaseLockOptions {
  timeoutMs?: number;
}

/** The registry lock target: one mutex serialises every claim and release of a root. */
export function registryTarget(root: string): string {
  return path.join(locksDir(root), "lease-registry");
}

function checkIds(scope: string, leaf: string | null): void {
  if (!isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  if (leaf !== null && !isValidId(leaf))
    throw new UsageError("leaf must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/ and cannot be . or ..");
}

/** Normalise and de-duplicate claimed globs; an invalid one is a usage error. */
export function normalizeClaimGlobs(raw: string[]): string[] {
  const out: string[] = [];
  for (const g of raw) {
    const n = normalizeOwnsPath(g);
    if (!n.ok) throw new UsageError(n.error);
    if (!out.includes(n.glob)) out.push(n.glob);
  }
  if (out.length === 0) throw new UsageError("a claim needs at least one OWNS path");
  return out;
}

/** Pure conflict test of a claim against the held records. */
export function claimConflicts(scope: string, leaf: string, globs: string[], held: LeaseRecord[]): ClaimConflict[] {
  const same = held.find((h): h is Lease => !h.invalid && h.scope === scope && h.leaf === leaf);
  if (same) return [{ kind: "identity", holder: same }];
  const conflicts: ClaimConflict[] = [];
  for (const glob of globs) {
    for (const h of held) {
      for (const theirGlob of h.globs)
        if (globsOverlap(glob, theirGlob)) conflicts.push({ kind: "glob", glob, theirGlob, holder: h });
    }
  }
  return conflicts;
}

/** Claim `globs` for scope/leaf: refused (never rewritten) on any identity or overlap conflict. */
export async function claimLease(
  root: string,
  scope: string,
  leaf: string,
  rawGlobs: string[],
  opts: LeaseLockOptions = {},
): Promise<ClaimResult> {
  checkIds(scope, leaf);
  const globs = normalizeClaimGlobs(rawGlobs);
  const notes: string[] = [];
  return withFileLock(
    root,
    registryTarget(root),
    (): ClaimResult => {
      const conflicts = claimConflicts(scope, leaf, globs, readLeaseRecords(root));
      if (conflicts.length > 0) return { ok: false, conflicts, notes };
      const file = path.join(locksDir(root), leaseFileName(scope, leaf));
      const lease: Lease = { invalid: false, scope, leaf, globs, pid: process.pid, file };
      writeAtomic(file, JSON.stringify({ scope, leaf, globs, pid: process.pid }, null, 2) + "\n", {
        root,
        mode: 0o600,
      });
      return { ok: true, lease, notes };
    },
    { timeoutMs: opts.timeoutMs, onRecovered: recoveryLogger(root, scope, notes) },
  );
}

/**
 * Release every valid lease of `scope` (and `leaf` when given). Ledgers are never read, so an
 * orphan release works after the scope directory is gone. Invalid records are never released here.
 */
export async function releaseLeases(
  root: string,
  scope: string,
  leaf: string | null,
  opts: LeaseLockOptions = {},
): Promise<{ released: Lease[]; notes: string[] }> {
  checkIds(scope, leaf);
  const notes: string[] = [];
  if (!fs.existsSync(locksDir(root))) return { released: [], notes };
  return withFileLock(
    root,
    registryTarget(root),
    () => {
      const released: Lease[] = [];
      for (const r of readLeaseRecords(root)) {
        if (r.invalid || r.scope !== scope || (leaf !== null && r.leaf !== leaf)) continue;
        fs.unlinkSync(r.file);
        released.push(r);
      }
      return { released, notes };
    },
    { timeoutMs: opts.timeoutMs, onRecovered: recoveryLogger(root, scope, notes) },
  );
}

/**
 * The explicit way out of a corrupt record: unlink every invalid `*.lease` entry (only the name;
 * a link's target is never touched). A locks dir that is not real fails at the registry lock.
 */
export async function removeInvalidLeases(
  root: string,
  opts: LeaseLockOptions = {},
): Promise<{ removed: InvalidLease[]; notes: string[] }> {
  const notes: string[] = [];
  if (!fs.existsSync(locksDir(root))) return { removed: [], notes };
  return withFileLock(
    root,
    registryTarget(root),
    () => {
      const removed: InvalidLease[] = [];
      for (const r of readLeaseRecords(root)) {
        if (!r.invalid) continue;
        try {
          fs.unlinkSync(r.file);
        } catch (e) {
          throw new LeaseRecordError(
            `cannot remove invalid lease record: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
            r.file,
          );
        }
        removed.push(r);
      }
      return { removed, notes };
    },
    { timeoutMs: opts.timeoutMs, onRecovered: recoveryLogger(root, null, notes) },
  );
}
