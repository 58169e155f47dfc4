// STRUCTURE.pending.json (docs/formats.md#structure-journal): the before- and after-image of every target, the inputs
// observed while planning, and a digest over all of it. Any safe `gates/<name>.md` is a valid
// name, so an extra ledger such as gates/notes.md can no longer strand a journal (fixes kill
// docs/formats.md#fixes).
//
// kbz writes the before-images and the observed inputs as sha256 digests (a deliberate
// difference, docs/formats.md#structure-journal): recovery only proves those files are what they
// were, and their texts made the journal of a 10,000-leaf plan pass the reader's 8 MiB. It reads
// the original's text form unchanged.
import { isValidId } from "../workspace/ids.ts";
import { canonical, fail, hashOf, isObject, sha, type Checkpoint } from "./model.ts";
import type { LeaseView } from "../dispatch/lease-record.ts";

/** A file's identity without its text: `{"sha256": "<64 lowercase hex>"}` of its UTF-8 text. */
export interface TextDigest {
  sha256: string;
}

/** What a journal knows of a file it will not write back: its text (the original), its digest (kbz), or null when absent. */
export type Image = string | TextDigest | null;

export interface Journal {
  schema: 1;
  operation: string;
  requestHash: string;
  before: Record<string, Image>;
  after: Record<string, string>;
  leases: LeaseView[];
  dispatch: string | null;
  observed: Record<string, Image>;
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

function isDigest(x: unknown): x is TextDigest {
  return isObject(x) && Object.keys(x).length === 1 && typeof x.sha256 === "string" && /^[0-9a-f]{64}$/.test(x.sha256);
}

function isImage(x: unknown): x is Image {
  return x === null || typeof x === "string" || isDigest(x);
}

/** The image kbz journals for a file's text (null: the file is absent). */
export function digestImage(text: string | null): Image {
  return text === null ? null : { sha256: sha(text) };
}

/** Is the file's current text (null: absent) the one the image records? */
export function matchesImage(text: string | null, image: Image): boolean {
  if (image === null || typeof image === "string") return text === image;
  return text !== null && sha(text) === image.sha256;
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
    if (
      !isTargetName(k) ||
      typeof (v.after as Record<string, unknown>)[k] !== "string" ||
      !isImage((v.before as Record<string, unknown>)[k])
    ) {
      fail("invalid recovery path/payload");
    }
  }
  if (!after.includes("GATES.md") || !after.includes("STRUCTURE.json")) fail("incomplete recovery targets");
  for (const [k, x] of Object.entries(v.observed))
    if (!isObservedName(k) || !isImage(x)) fail("invalid observed path/payload");
  return v as unknown as Journal;
}

/** Write order: every target but STRUCTURE.json by localeCompare, then STRUCTURE.json last. */
export function writeOrder(j: Pick<Journal, "after">): string[] {
  const names = Object.keys(j.after).filter((n) => n !== "STRUCTURE.json");
  return [...names.sort((a, b) => a.localeCompare(b)), "STRUCTURE.json"];
}
