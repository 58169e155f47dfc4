// PLAN.md's operational parts (docs/formats.md#plan): the contract revision and the single leaf
// dispatch table. Everything else in PLAN.md is prose. Fenced code is ignored.
import { mayOpenFence } from "../ledger/parse.ts";
import { isValidId } from "../workspace/ids.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import { ScheduleInputError } from "./errors.ts";
import { kahnOrder } from "./graph.ts";
import type { IdCompare } from "./order.ts";
import { LEAF_PREFIX } from "./leaf-id.ts";

export type Tier = "judgment" | "mechanical";
export type RowState = "WAITING" | "READY" | "IN-FLIGHT" | "VERIFIED" | "ABANDONED";

export interface PlanRow {
  id: string;
  owns: string[]; // normalized, PLAN cell order
  needs: string[]; // PLAN cell order
  tier: Tier;
  wave: number;
  state: RowState;
  line: number; // 1-based line in PLAN.md
  index: number; // position in the table (PLAN row order)
}

export interface Plan {
  revision: number;
  revisionLine: number;
  rows: PlanRow[]; // sorted by id
  byId: Map<string, PlanRow>;
  successors: Map<string, string[]>; // PLAN row order
  order: string[]; // Kahn order: roots sorted by id, then discovery order
}

const HEADER = ["Leaf", "Owns", "Needs", "Tier", "Planned wave", "State"];
const SEPARATOR_CELL = /^:?-{3,}:?$/;
const POSITIVE = /^[1-9][0-9]*$/;
const REVISION = /^Contract revision:[ \t]*([1-9][0-9]*)(?:[.\s]|$)/;
const TIERS = new Set(["judgment", "mechanical"]);
const STATES = new Set(["WAITING", "READY", "IN-FLIGHT", "VERIFIED", "ABANDONED"]);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const PLACEHOLDER = /[<>|]/;

export type Fail = (message: string) => never;

export interface Line {
  no: number;
  text: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Lines outside fenced code. A fence opener is ≥3 backticks or tildes after ≤3 spaces. */
export function unfencedLines(text: string): Line[] {
  const out: Line[] = [];
  const lines = text.split(/\r?\n/);
  let fence: { char: string; length: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = mayOpenFence(lines[i]!, 0, lines[i]!.length) ? FENCE.exec(lines[i]!) : null;
    if (fence) {
      if (m && m[1]![0] === fence.char && m[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (m) {
      fence = { char: m[1]![0]!, length: m[1]!.length };
      continue;
    }
    out.push({ no: i + 1, text: lines[i]! });
  }
  return out;
}

/**
 * The single `Contract revision:` line outside fenced code: its digits, or null with the line to
 * blame. Shared with receipts, which bind the revision into their fingerprint (docs/formats.md#fixes).
 */
export function contractRevision(lines: readonly Line[]): { digits: string | null; line: number | null } {
  const found = lines.filter((l) => l.text.startsWith("Contract revision:"));
  const m = found.length === 1 ? REVISION.exec(found[0]!.text) : null;
  return m ? { digits: m[1]!, line: found[0]!.no } : { digits: null, line: found[1]?.no ?? found[0]?.no ?? null };
}

function isTableLine(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.charCodeAt(0) === 124 && t.charCodeAt(t.length - 1) === 124; // "|"
}

const HEADER_START = /^\s*\|\s*Leaf\s*\|/;

/** The cells of a table line (one that isTableLine accepted: trimmed, it starts and ends with "|"). */
function cells(text: string): string[] {
  const t = text.trim();
  const parts = t.slice(1, Math.max(1, t.length - 1)).split("|");
  for (let k = 0; k < parts.length; k++) parts[k] = parts[k]!.trim();
  return parts;
}

/** A PLAN whose dispatch table has no rows yet (a scope `kbz init --scope` just made). */
export class EmptyPlanError extends ScheduleInputError {}

export function parsePlan(
  text: string,
  compare: IdCompare,
  file = "PLAN.md",
  opts: { allowEmpty?: boolean } = {},
): Plan {
  const fail = (message: string, line: number | null = null): never => {
    throw new ScheduleInputError(message, file, line);
  };
  const lines = unfencedLines(text);

  const rev = contractRevision(lines);
  if (rev.digits === null) fail("PLAN needs exactly one Contract revision: positive integer", rev.line);
  const revision = Number(rev.digits);
  if (!Number.isSafeInteger(revision)) fail("invalid contract revision", rev.line);

  const headers: { l: Line; i: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.text.includes("Leaf") && HEADER_START.test(l.text) && isTableLine(l.text)) headers.push({ l, i });
  }
  if (headers.length !== 1) fail("PLAN needs exactly one leaf dispatch table", headers[1]?.l.no ?? null);
  const { l: header, i: at } = headers[0]!;
  const hc = cells(header.text);
  if (hc.length !== HEADER.length || hc.some((c, k) => c !== HEADER[k]))
    fail("unsupported PLAN dispatch columns", header.no);
  const sep = lines[at + 1];
  if (!sep || !isTableLine(sep.text)) fail("invalid table separator", sep?.no ?? header.no);
  const sc = cells(sep!.text);
  if (sc.length !== 6 || !sc.every((c) => SEPARATOR_CELL.test(c))) fail("invalid table separator", sep!.no);

  const parsed: PlanRow[] = [];
  for (let k = at + 2; k < lines.length && isTableLine(lines[k]!.text); k++) {
    parsed.push(parseRow(lines[k]!, parsed.length, fail));
  }
  if (parsed.length === 0 && !opts.allowEmpty) throw new EmptyPlanError("PLAN has no leaves", file, header.no);

  const byId = new Map<string, PlanRow>();
  for (const row of parsed) {
    const first = byId.get(row.id);
    if (first) fail(`duplicate PLAN leaf id ${row.id} (first on line ${first.line})`, row.line);
    byId.set(row.id, row);
  }
  const successors = new Map<string, string[]>();
  for (const row of parsed) successors.set(row.id, []);
  for (const row of parsed) {
    for (const need of row.needs) {
      if (need === row.id) fail(`self dependency ${row.id}`, row.line);
      if (!byId.has(need)) fail(`unknown dependency ${need} (needed by ${row.id})`, row.line);
      successors.get(need)!.push(row.id);
    }
  }
  const kahn = kahnOrder(
    parsed.map((r) => r.id),
    (id) => byId.get(id)!.needs,
    (id) => successors.get(id)!,
    compare,
  );
  if (!kahn.ok) {
    const path = kahn.cycle.map((id, k) => (k === 0 ? id : `needs ${id}`)).join(" ");
    fail(`dependency cycle in PLAN: ${path}`, byId.get(kahn.cycle[0]!)!.line);
  }
  for (const row of parsed) {
    for (const need of row.needs) {
      const dep = byId.get(need)!;
      if (dep.wave >= row.wave) {
        fail(
          `dependency must be in an earlier Planned wave: ${row.id} (wave ${row.wave} needs ${need} in wave ${dep.wave})`,
          row.line,
        );
      }
    }
  }
  const rows = [...parsed].sort((a, b) => compare(a.id, b.id));
  return { revision, revisionLine: rev.line!, rows, byId, successors, order: kahn.ok ? kahn.order : [] };
}

function parseRow(line: Line, index: number, failAt: (m: string, l: number) => never): PlanRow {
  const fail: Fail = (m) => failAt(m, line.no);
  const c = cells(line.text);
  if (c.length !== 6) fail(`invalid PLAN row: expected 6 cells, found ${c.length}`);
  const [id, ownsCell, needsCell, tier, wave, state] = c as [string, string, string, string, string, string];
  if (id.startsWith(LEAF_PREFIX)) fail(`use bare leaf ids (without leaf-) in PLAN: ${id}`);
  if (!isValidId(id))
    fail(`invalid PLAN row: leaf id ${JSON.stringify(id)} must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}`);
  const owns = pathList(listCell(ownsCell, `${id} Owns`, fail), `${id} Owns`, fail);
  const needs = listCell(needsCell, `${id} Needs`, fail);
  if (!TIERS.has(tier) || !POSITIVE.test(wave) || !Number.isSafeInteger(Number(wave)) || !STATES.has(state)) {
    fail(`invalid PLAN metadata for ${id}`);
  }
  return { id, owns, needs, tier: tier as Tier, wave: Number(wave), state: state as RowState, line: line.no, index };
}

function listCell(cell: string, label: string, fail: Fail): string[] {
  if (cell === "-") return [];
  return stringList(
    cell.split(",").map((s) => s.trim()),
    label,
    fail,
  );
}

/** Lists here are short: compare pairs below a handful of items, hash above (no Set per cell). */
export function hasDuplicates(items: readonly string[]): boolean {
  if (items.length > 8) return new Set(items).size !== items.length;
  for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (items[i] === items[j]) return true;
  return false;
}

/** Shared by PLAN cells and ACCESS arrays: nonblank, control-free, duplicate-free. */
export function stringList(items: string[], label: string, fail: Fail): string[] {
  if (items.some((s) => s.trim() === "" || CONTROL.test(s))) fail(`${label} must be an array of nonblank strings`);
  if (hasDuplicates(items)) fail(`${label} contains duplicates`);
  return items;
}

/** Normalize globs the OWNS way; template placeholders (`<…>`, pipes) are refused. */
export function pathList(items: string[], label: string, fail: Fail): string[] {
  const out: string[] = [];
  for (const raw of items) {
    const n = normalizeOwnsPath(raw);
    if (PLACEHOLDER.test(raw) || !n.ok) fail(`${label} contains an invalid or placeholder path: ${raw}`);
    out.push((n as { glob: string }).glob);
  }
  if (hasDuplicates(out)) fail(`${label} contains duplicates`);
  return out;
}

/** PLAN rows with the states a coordinator holds laid over them (files: PLAN.md is the authority). */
export function withLeafStates(plan: Plan, states: ReadonlyMap<string, RowState> | null): Plan {
  if (!states || states.size === 0) return plan;
  const rows = plan.rows.map((r) => (states.has(r.id) ? { ...r, state: states.get(r.id)! } : r));
  return { ...plan, rows, byId: new Map(rows.map((r) => [r.id, r])) };
}
