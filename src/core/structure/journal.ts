// STRUCTURE.pending.json (docs/formats.md#structure-journal): the before- and after-image of every target, the inputs
// observed while planning, and a digest over all of it. Any safe `gates/<name>.md` is a valid
// name, so an extra ledger such as gates/notes.md can no longer strand a journal (fixes kill
// docs/formats.md#fixes).
import { isValidId } from "../workspace/ids.ts";
import { canonical, fail, hashOf, isObject, type Checkpoint } from "./model.ts";
import { type LeaseView } from "../dispatch/lease-record.ts";

export interface Journal {
  schema: 1;
  operation: string;
  requestHash: string;
  before: Record<string, string | null>;
  after: Record<string, string>;
  leases: LeaseView[];
  dispatch: string | null;
  observed: Record<string, string | null>;
  artifactChecks: Checkpoint["artifacts"];
  digest: string;
}

const TARGET_FILES = new Set(["PLAN.md", "ACCESS.json", "GATES.md", "STRUCTURE.json"]);
const OBSERVED_FILES = new Set([...TARGET_FILES, "dispatch.json"]);

function isLedgerName(rel: string): boolean {
  const m = /^gates\/(.+)\.md$/.exec(rel);
  return m !== null && isValidId(m[1]!);
}

export function isTargetName(rel: string): boolean {
  return TARGET_FILES.has(rel) || isLedgerName(rel);
}

function isObservedName(rel: string): boolean {
  return OBSERVED_FILES.has(rel) || isLedgerName(rel);
}

export function buildJournal(j: Omit<Journal, "digest">): Journal {
  return { ...j, digest: hashOf(j) };
}

export function renderJournal(j: Journal): string {
  return JSON.stringify(j, null, 2) + "\n";
}

/** Parse and validate a journal's text (docs/formats.md#structure-events). */
export function parseJournal(text: string): Journal {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    fail("invalid recovery journal");
  }
  const stringOrNull = (x: unknown) => x === null || typeof x === "string";
  if (
    !isObject(v) ||
    v.schema !== 1 ||
    typeof v.operation !== "string" ||
    typeof v.requestHash !== "string" ||
    typeof v.digest !== "string" ||
    !isObject(v.before) ||
    !isObject(v.after) ||
    !isObject(v.observed) ||
    !Array.isArray(v.leases) ||
    !Array.isArray(v.artifactChecks) ||
    !stringOrNull(v.dispatch)
  ) {
    fail("invalid recovery journal");
  }
  const { digest, ...rest } = v;
  if (hashOf(rest) !== digest) fail("recovery journal digest mismatch");
  const before = Object.keys(v.before).sort();
  const after = Object.keys(v.after).sort();
  if (canonical(before) !== canonical(after)) fail("recovery file inventory mismatch");
  for (const k of after) {
    if (!isTargetName(k) || typeof (v.after as Record<string, unknown>)[k] !== "string" || !stringOrNull((v.before as Record<string, unknown>)[k])) {
      fail("invalid recovery path/payload");
    }
  }
  if (!after.includes("GATES.md") || !after.includes("STRUCTURE.json")) fail("incomplete recovery targets");
  for (const [k, x] of Object.entries(v.observed)) if (!isObservedName(k) || !stringOrNull(x)) fail("invalid observed path/payload");
  return v as unknown as Journal;
}

/** Write order: every target but STRUCTURE.json by localeCompare, then STRUCTURE.json last. */
export function writeOrder(j: Pick<Journal, "after">): string[] {
  const names = Object.keys(j.after).filter((n) => n !== "STRUCTURE.json");
  return [...names.sort((a, b) => a.localeCompare(b)), "STRUCTURE.json"];
}
