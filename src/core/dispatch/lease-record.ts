// One lease record (docs/formats.md#leases) as data: its name, its validation, and the view the
// scheduler and the structure model read. Reading the records is io/read.ts's readLeaseRecords.
import * as path from "node:path";
import { sha256Hex } from "../ledger/digest.ts";
import { isValidId } from "../workspace/ids.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";

export const MAX_LEASE_BYTES = 64 * 1024;
export const INVALID_OWNER = "(invalid)";

export interface Lease {
  invalid: false;
  scope: string;
  leaf: string;
  globs: string[];
  pid: number | null;
  file: string; // absolute
}

/** An unreadable or malformed record: it owns `**`, so it conflicts with every claim until removed. */
export interface InvalidLease {
  invalid: true;
  scope: typeof INVALID_OWNER;
  leaf: string; // the file name
  globs: ["**"];
  file: string; // absolute
  problem: string;
}

export type LeaseRecord = Lease | InvalidLease;

/** What the scheduler and the structure model read of a lease; unusable records arrive `invalid` with globs `**`. */
export type LeaseView = Pick<LeaseRecord, "scope" | "leaf" | "globs" | "invalid">;

export function locksDir(root: string): string {
  return path.join(root, ".unlazy", "locks");
}

export function leaseFileName(scope: string, leaf: string): string {
  return `${sha256Hex(`${scope}::${leaf}`).slice(0, 24)}.lease`;
}

export function invalidRecord(file: string, problem: string): InvalidLease {
  return { invalid: true, scope: INVALID_OWNER, leaf: path.basename(file), globs: ["**"], file, problem };
}

/** Why a parsed record is not a lease, or null when it is one. */
export function recordProblem(name: string, raw: unknown): string | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "not a JSON object";
  const r = raw as Record<string, unknown>;
  if (typeof r.scope !== "string" || !isValidId(r.scope)) return "scope is not a valid id";
  if (typeof r.leaf !== "string" || !isValidId(r.leaf)) return "leaf is not a valid id";
  if (!Array.isArray(r.globs) || r.globs.length === 0) return "globs must be a non-empty array";
  for (const g of r.globs) {
    if (typeof g !== "string") return "globs must be strings";
    const n = normalizeOwnsPath(g);
    if (!n.ok || n.glob !== g) return `glob is not normalised: ${g}`;
  }
  if (name !== leaseFileName(r.scope, r.leaf)) return `file name does not match ${r.scope}/${r.leaf}`;
  return null;
}

/** A record's text as a lease, or an invalid record naming the problem. */
export function parseLeaseRecord(file: string, text: string): LeaseRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return invalidRecord(file, "not valid JSON");
  }
  const problem = recordProblem(path.basename(file), raw);
  if (problem) return invalidRecord(file, problem);
  const r = raw as { scope: string; leaf: string; globs: string[]; pid?: unknown };
  return {
    invalid: false,
    scope: r.scope,
    leaf: r.leaf,
    globs: [...r.globs],
    pid: Number.isInteger(r.pid) ? (r.pid as number) : null,
    file,
  };
}

/** The lease part of a scheduler fingerprint and of the consistency pass (docs/formats.md#leases). */
export function leaseSignature(leases: readonly Pick<LeaseRecord, "scope" | "leaf" | "globs" | "invalid">[]): string {
  return JSON.stringify(leases.map((l) => [l.scope, l.leaf, l.globs, l.invalid]));
}
