// The one ledger parser (docs/formats.md#ledger). Checker, status, lint and hook all use it.
import { globRegex } from "../run/conventions.ts";
import { checkDeadline } from "../deadline.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import type { Abandon, AttrKey, Diagnostic, Gate, Ledger, LedgerSandbox } from "./model.ts";

const GATE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UNINDENTED_ATTR = /^(CHECK|EXPECT|EVIDENCE|CWD):/;
const ABANDON_LINE = /^ABANDON:(.*)$/s;
const OWNS_LINE = /^OWNS:(.*)$/s;
const SANDBOX_LINE = /^SANDBOX:(.*)$/s;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/s;
const REGEX_EXPECT = /^\/(.*)\/([a-z]*)$/s;
const MAX_REGEX_BODY = 1000;
const SPACE = 32;
const TAB = 9;
const BACKTICK = 96;
const TILDE = 126;
const DASH = 45;
const HASH = 35;
const COLON = 58;

/**
 * The text's lines without terminators, and each line's terminator ("" for a last line without
 * one). Only edits need them, so the parser never splits (readers keep no per-line strings).
 */
export function splitLines(text: string): { lines: string[]; eols: string[] } {
  if (text === "") return { lines: [], eols: [] };
  const lines = text.split("\n");
  const last = lines.length - 1;
  const endsWithNewline = lines[last] === "";
  if (endsWithNewline) lines.pop();
  const eols = new Array<string>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const hasNewline = i < last;
    if (hasNewline && l.charCodeAt(l.length - 1) === 13) {
      lines[i] = l.slice(0, -1);
      eols[i] = "\r\n";
    } else eols[i] = hasNewline ? "\n" : "";
  }
  return { lines, eols };
}

/** Parse EXPECT: `/body/flags` is a regex, anything else a substring. */
export function parseExpect(expect: string): {
  regex: { source: string; flags: string } | null;
  pathLike: boolean;
  error: string | null;
  portable?: string;
} {
  const m = REGEX_EXPECT.exec(expect);
  if (!m) return { regex: null, pathLike: false, error: null };
  const source = m[1]!;
  const flags = m[2]!;
  if (source.length > MAX_REGEX_BODY) {
    return { regex: null, pathLike: false, error: `EXPECT regex body exceeds ${MAX_REGEX_BODY} characters` };
  }
  const error = regexError(source, flags);
  if (error !== null)
    return { regex: null, pathLike: false, error: `invalid EXPECT regex: ${error}`, portable: "invalid EXPECT regex" };
  return { regex: { source, flags }, pathLike: hasUnescapedSlash(source), error: null };
}

// Ledgers repeat the same patterns; compiling each distinct one once keeps large trees fast.
const regexVerdicts = new Map<string, string | null>();

function regexError(source: string, flags: string): string | null {
  const key = `${flags}/${source}`;
  let verdict = regexVerdicts.get(key);
  if (verdict === undefined) {
    try {
      new RegExp(source, flags);
      verdict = null;
    } catch (e) {
      verdict = (e as Error).message;
    }
    regexVerdicts.set(key, verdict);
  }
  return verdict;
}

function hasUnescapedSlash(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "/") return true;
  }
  return false;
}

/** The indented attribute keys, in the order they are tried (lint names the nearest for a misspelled one). */
export const ATTR_KEYS: readonly AttrKey[] = ["CHECK", "EXPECT", "EVIDENCE", "CWD", "INPUTS", "ORACLE", "ENV", "WORK"];

export interface Fence {
  char: number;
  length: number;
  line: number;
}

// The characters String.prototype.trim removes (WhiteSpace and LineTerminator), so the
// offset-based trims below give exactly what .trim() would.
//
// Speed (the one trick in this file): those trims (here and in newGate) and idColon decide a
// space or a printable ASCII character inline and call isTrimSpace/isSpace only for the rare
// rest. A tiny helper called once per character is what JSC's optimizing compilers pick first,
// on every cold run, and compiling it cost more than it saved. Instructions of one `kbz hook
// stop` on bench/cost.ts's 1,000-gate fixture (callgrind, BUN_JSC_useConcurrentJIT=0 so the
// count repeats): 104.9 M before, 98.5 M after; `status --json` on 10,000 gates 752-754 M
// before, 726-752 M after. The one-line loops are deliberate: the same test written as
// `while { … break; }` measured 784-797 M on status (JSC compiled it differently).
function isTrimSpace(c: number): boolean {
  if (c <= 32) return c === SPACE || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `text.slice(from, to).trim()` with one allocation. */
function trimmedSlice(text: string, from: number, to: number): string {
  for (
    let c = text.charCodeAt(from);
    from < to && (c === SPACE || (!(c > SPACE && c < 0xa0) && isTrimSpace(c)));
    c = text.charCodeAt(++from)
  );
  for (
    let c = text.charCodeAt(to - 1);
    to > from && (c === SPACE || (!(c > SPACE && c < 0xa0) && isTrimSpace(c)));
    c = text.charCodeAt(--to - 1)
  );
  return text.slice(from, to);
}

/**
 * The parser walks the text by offsets: a line becomes a string only on the rare paths that
 * need a regex (fences, unindented attributes, ABANDON, OWNS). On a cold CLI run allocation
 * is most of the cost, and a ledger is mostly blank, heading and attribute lines.
 */
export function parseLedger(text: string, fileName: string): Ledger {
  const errors: Diagnostic[] = [];
  const st: ParseState = {
    errors,
    warnings: [],
    gates: [],
    abandons: new Map(),
    owns: [],
    ownsLine: null,
    sandbox: null,
    current: null,
    contiguous: false,
    err: (line, message) => errors.push({ line, message }),
  };
  let fence: Fence | null = null;
  const n = text.length;

  for (let i = 0, start = 0; start < n; i++) {
    const nl = text.indexOf("\n", start);
    let end = nl < 0 ? n : nl;
    if (nl >= 0 && end > start && text.charCodeAt(end - 1) === 13) end--; // CRLF: the CR is the terminator's
    const s = start;
    start = nl < 0 ? n : nl + 1;
    const lineNo = i + 1;
    // The Stop hook's bound (core/deadline.ts): a huge ledger cannot hold the hook past it.
    if ((i & 1023) === 1023) checkDeadline(() => `parsing ${fileName} (line ${lineNo})`, fileName);

    if (fence) {
      if (isFenceClose(text, s, end, fence)) fence = null;
      st.contiguous = false;
      continue;
    }
    // Dispatch on the first character so a typical line costs a few comparisons, no regex.
    const c0 = s < end ? text.charCodeAt(s) : -1;
    if ((c0 === SPACE || c0 === BACKTICK || c0 === TILDE) && mayOpenFence(text, s, end)) {
      const open = FENCE_OPEN.exec(text.slice(s, end));
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
        fence = { char: open[1]!.charCodeAt(0), length: open[1]!.length, line: lineNo };
        st.contiguous = false;
        continue;
      }
    }
    if (c0 === SPACE || c0 === TAB) {
      indentedLine(st, text, s, end, i);
      continue;
    }
    st.contiguous = false;
    if (c0 === DASH) {
      const box = end - s >= 6 ? gateBox(text, s) : -1;
      if (box >= 0) {
        st.current = newGate(box, text, s + 6, end, lineNo, i, st.err);
        st.gates.push(st.current);
        st.contiguous = true;
      } else if (text.charCodeAt(s + 1) === SPACE && s + 1 < end) st.current = null;
      continue;
    }
    if (c0 === HASH) {
      st.current = null;
      continue;
    }
    // Only lines starting with C, E, A, O or S can be an unindented attribute, ABANDON, OWNS or SANDBOX.
    if (c0 === 67 || c0 === 69 || c0 === 65 || c0 === 79 || c0 === 83 || c0 === 87)
      columnOneLine(st, text.slice(s, end), lineNo);
  }

  if (fence) st.err(fence.line, `fenced block opened on line ${fence.line} is never closed`);
  validateGates(st.gates, st.abandons, errors, st.warnings);
  if (st.gates.length === 0) st.err(1, "ledger contains zero live gates");
  errors.sort((a, b) => a.line - b.line);

  const { gates, abandons, owns, ownsLine, sandbox, warnings } = st;
  return { stem: fileName, text, gates, abandons, owns, ownsLine, sandbox, errors, warnings };
}

/** What the parser keeps while it walks a ledger's lines. */
interface ParseState {
  errors: Diagnostic[];
  warnings: Diagnostic[];
  gates: Gate[];
  abandons: Map<string, Abandon>;
  owns: string[];
  ownsLine: number | null;
  sandbox: LedgerSandbox | null;
  /** The gate attribute lines attach to; null after a line that ends it. */
  current: Gate | null;
  /** Still inside the attribute run right after the gate line. */
  contiguous: boolean;
  err: (line: number, message: string) => void;
}

/** An indented line (line index `i`, text from `s` to `end`): an attribute of the current gate, or nothing. */
function indentedLine(st: ParseState, text: string, s: number, end: number, i: number): void {
  const lineNo = i + 1;
  let p = s;
  while (p < end && (text.charCodeAt(p) === SPACE || text.charCodeAt(p) === TAB)) p++;
  if (text.startsWith("ABANDON:", p)) {
    st.err(lineNo, "indented ABANDON is not applied; start ABANDON at column 1");
    st.current = null;
    st.contiguous = false;
    return;
  }
  const key = attrKeyAt(text, p);
  const current = st.current;
  if (!key || !current) {
    if (key) st.err(lineNo, `${key} line is not attached to a gate`);
    st.contiguous = false;
    return;
  }
  if (current.attrIndex[key] !== undefined) {
    st.err(lineNo, `gate ${current.id} repeats ${key} (first on line ${current.attrIndex[key]! + 1})`);
  }
  current.attrIndex[key] = i;
  const value = trimmedSlice(text, p + key.length + 1, end);
  if (key === "CHECK") current.check = value;
  else if (key === "EXPECT") current.expect = value;
  else if (key === "CWD") current.cwd = value;
  else if (key === "INPUTS") current.inputs = inputList(value, lineNo, st.err);
  else if (key === "ORACLE") current.oracle = oracleList(value, lineNo, st.err);
  else if (key === "WORK") current.work = oracleList(value, lineNo, st.err, "WORK");
  else if (key === "ENV") current.env = envList(value, lineNo, st.err);
  else current.evidence = value;
  if (st.contiguous) current.blockEnd = i;
}

/** A line starting with C, E, A, O or S at column 1: SANDBOX, an unindented attribute, ABANDON or OWNS; else nothing. */
function columnOneLine(st: ParseState, line: string, lineNo: number): void {
  if (line.charCodeAt(0) === 83) {
    const sb = SANDBOX_LINE.exec(line);
    if (!sb) return;
    if (st.gates.length > 0) st.err(lineNo, "SANDBOX must appear before the first gate");
    else if (st.sandbox) st.err(lineNo, `duplicate SANDBOX (first on line ${st.sandbox.line})`);
    else st.sandbox = sandboxSetting(sb[1]!.trim(), lineNo, st.err);
    return;
  }
  const un = UNINDENTED_ATTR.exec(line);
  if (un) {
    st.err(lineNo, `unindented ${un[1]} is not attached to a gate; indent attribute lines with spaces`);
    st.current = null;
    return;
  }
  const ab = ABANDON_LINE.exec(line);
  if (ab) {
    st.current = null;
    abandonLine(st, ab[1]!.trim(), lineNo);
    return;
  }
  const ow = OWNS_LINE.exec(line);
  if (ow) ownsLine(st, ow[1]!, lineNo);
}

function abandonLine(st: ParseState, rest: string, lineNo: number): void {
  const sp = rest.search(/\s/);
  let id = sp < 0 ? rest : rest.slice(0, sp);
  const reason = sp < 0 ? "" : rest.slice(sp).trim();
  if (id.endsWith(":")) id = id.slice(0, -1);
  if (id === "") st.err(lineNo, "ABANDON needs a gate id and a reason");
  else if (reason === "") st.err(lineNo, `ABANDON ${id} needs a non-blank reason`);
  else if (st.abandons.has(id))
    st.err(lineNo, `duplicate ABANDON for ${id} (first on line ${st.abandons.get(id)!.line})`);
  else st.abandons.set(id, { id, reason, line: lineNo });
}

function ownsLine(st: ParseState, list: string, lineNo: number): void {
  if (st.gates.length > 0) {
    st.err(lineNo, "OWNS must appear before the first gate");
    return;
  }
  st.ownsLine ??= lineNo;
  // Trimmed here (normalizeOwnsPath trims too) so the usual "a, b" list takes its fast path.
  const items = list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) st.err(lineNo, "OWNS lists no paths");
  for (const item of items) {
    const n = normalizeOwnsPath(item);
    if (n.ok) st.owns.push(n.glob);
    else st.err(lineNo, n.error);
  }
}

/** `SANDBOX: on` or `SANDBOX: writable <path>, <path>` (on, with more writable paths). */
function sandboxSetting(value: string, lineNo: number, err: (l: number, m: string) => void): LedgerSandbox | null {
  if (value === "on") return { line: lineNo, writable: [] };
  const w = /^writable\s+(.*)$/s.exec(value);
  const items = w
    ? w[1]!
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)
    : [];
  if (items.length === 0) {
    err(lineNo, 'SANDBOX must be "on" or "writable <path>, <path>..."');
    return null;
  }
  return { line: lineNo, writable: items };
}

/** INPUTS: comma-separated globs relative to the CHECK directory, no `..`, not absolute. */
function inputList(value: string, lineNo: number, err: (l: number, m: string) => void): string[] {
  const items = value
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  if (items.length === 0) err(lineNo, "INPUTS lists no paths");
  for (const item of items) {
    if (item.startsWith("/") || /^[A-Za-z]:[\\/]/.test(item) || item.split(/[\\/]/).includes("..")) {
      err(lineNo, `INPUTS path must stay inside the CHECK directory: ${item}`);
    }
  }
  return items;
}

/**
 * ORACLE: comma-separated globs relative to the CHECK directory (docs/formats.md#oracle): no
 * empty entries, no `..`, not absolute, no control characters.
 */
function oracleList(
  value: string,
  lineNo: number,
  err: (l: number, m: string) => void,
  key: "ORACLE" | "WORK" = "ORACLE",
): string[] {
  const items = value.split(",").map((x) => x.trim());
  if (items.every((x) => x === "")) {
    err(
      lineNo,
      key === "ORACLE"
        ? "ORACLE lists no paths (e.g. ORACLE: test/**, vitest.config.ts)"
        : "WORK lists no paths (e.g. WORK: src/**, bin/csvstat.js)",
    );
    return [];
  }
  for (const item of items) {
    if (item === "") err(lineNo, `${key} has an empty entry; separate paths with one comma`);
    else if (/[\x00-\x1f\x7f]/.test(item)) err(lineNo, `${key} path has a control character: ${JSON.stringify(item)}`);
    else if (
      item.startsWith("/") ||
      item.startsWith("~") ||
      /^[A-Za-z]:[\\/]/.test(item) ||
      item.split(/[\\/]/).includes("..")
    ) {
      err(lineNo, `${key} path must stay inside the root: ${item}`);
    }
  }
  return items.filter(Boolean);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** ENV: comma-separated variable names (letters, digits, `_`; not starting with a digit). */
function envList(value: string, lineNo: number, err: (l: number, m: string) => void): string[] {
  const items = value.split(",").map((x) => x.trim());
  if (items.every((x) => x === "")) {
    err(lineNo, "ENV lists no names (e.g. ENV: NODE_ENV, DATABASE_URL)");
    return [];
  }
  for (const item of items) {
    if (!ENV_NAME.test(item))
      err(
        lineNo,
        `ENV name ${JSON.stringify(item)} is malformed: use letters, digits and _ (not starting with a digit), separated by commas`,
      );
  }
  return items.filter((x) => ENV_NAME.test(x));
}

/** A fence needs up to three spaces, then three or more backticks or tildes. */
/** A line (text[s, end)) that could open a fence: ≤3 spaces, then three backticks or tildes. */
export function mayOpenFence(text: string, s: number, end: number): boolean {
  let p = s;
  while (p < end && p - s < 3 && text.charCodeAt(p) === SPACE) p++;
  const c = text.charCodeAt(p);
  return (c === BACKTICK || c === TILDE) && p + 2 < end && text.charCodeAt(p + 1) === c && text.charCodeAt(p + 2) === c;
}

export function isFenceClose(text: string, s: number, end: number, fence: Fence): boolean {
  let p = s;
  while (p - s < 3 && p < end && text.charCodeAt(p) === SPACE) p++;
  let run = 0;
  while (p + run < end && text.charCodeAt(p + run) === fence.char) run++;
  if (run < fence.length) return false;
  for (let q = p + run; q < end; q++) {
    const c = text.charCodeAt(q);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

/** `KEY:` at offset `p` (after the indentation), or null. */
function attrKeyAt(text: string, p: number): AttrKey | null {
  for (const key of ATTR_KEYS) {
    if (text.startsWith(key, p) && text.charCodeAt(p + key.length) === COLON) return key;
  }
  return null;
}

/** `- [ ] `, `- [x] ` or `- [X] ` at offset `s`: the box character, or -1. */
function gateBox(text: string, s: number): number {
  if (
    text.charCodeAt(s + 1) !== SPACE ||
    text.charCodeAt(s + 2) !== 91 ||
    text.charCodeAt(s + 4) !== 93 ||
    text.charCodeAt(s + 5) !== SPACE
  )
    return -1;
  const b = text.charCodeAt(s + 3);
  return b === SPACE || b === 120 || b === 88 ? b : -1;
}

/** Offset of the ':' ending the shortest non-space prefix of [from, to) followed by whitespace or end, or -1. */
function idColon(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c > SPACE && c < 128 && c !== COLON) continue; // printable ASCII: neither space nor ':'
    if (isSpace(c)) return -1;
    if (c === COLON && (i + 1 === to || isSpace(text.charCodeAt(i + 1)))) return i;
  }
  return -1;
}

function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || (c >= 10 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));
}

function newGate(
  box: number,
  text: string,
  from: number,
  to: number,
  lineNo: number,
  index: number,
  err: (l: number, m: string) => void,
): Gate {
  // The title text is the rest of the line, trimmed.
  for (
    let c = text.charCodeAt(from);
    from < to && (c === SPACE || (!(c > SPACE && c < 0xa0) && isTrimSpace(c)));
    c = text.charCodeAt(++from)
  );
  for (
    let c = text.charCodeAt(to - 1);
    to > from && (c === SPACE || (!(c > SPACE && c < 0xa0) && isTrimSpace(c)));
    c = text.charCodeAt(--to - 1)
  );
  const colon = idColon(text, from, to);
  let id: string;
  let title: string;
  let explicitId = true;
  if (colon > from) {
    id = text.slice(from, colon);
    title = trimmedSlice(text, colon + 1, to);
    if (!GATE_ID.test(id)) {
      err(lineNo, `gate id ${id} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`);
    }
    if (title === "") err(lineNo, `gate ${id} has a blank outcome`);
  } else {
    explicitId = false;
    id = `L${lineNo}`;
    title = colon === from ? trimmedSlice(text, from + 1, to) : text.slice(from, to);
    err(lineNo, "gate needs an explicit ID followed by a colon");
    if (title === "") err(lineNo, "gate has a blank outcome");
  }
  return {
    id,
    explicitId,
    title,
    checked: box !== SPACE,
    line: lineNo,
    check: null,
    expect: null,
    cwd: null,
    evidence: null,
    inputs: null,
    oracle: null,
    work: null,
    env: null,
    attrIndex: {},
    blockEnd: index,
    expectRegex: null,
    pathLike: false,
  };
}

/** A path a glob matches, for overlap tests: each wildcard filled in. */
function sampleOf(glob: string): string {
  return glob.replace(/^\.\//, "").replace(/\*\*/g, "d/d").replace(/[*?]/g, "x");
}

/** The first WORK and ORACLE entries that can name the same file, or null. */
function workOracleOverlap(work: string[], oracle: string[]): [string, string] | null {
  for (const w of work) {
    for (const o of oracle) {
      if (globRegex(w).test(sampleOf(o)) || globRegex(o).test(sampleOf(w))) return [w, o];
    }
  }
  return null;
}

function validateGates(gates: Gate[], abandons: Map<string, Abandon>, errors: Diagnostic[], warnings: Diagnostic[]) {
  const seen = new Map<string, number>();
  for (const g of gates) {
    if (g.explicitId) {
      const first = seen.get(g.id);
      if (first !== undefined)
        errors.push({ line: g.line, message: `duplicate gate id ${g.id} (first declared on line ${first})` });
      else seen.set(g.id, g.line);
    }
    if (g.work && g.oracle) {
      const both = workOracleOverlap(g.work, g.oracle);
      if (both)
        errors.push({
          line: g.attrIndex.WORK! + 1,
          message: `gate ${g.id}: WORK ${both[0]} overlaps ORACLE ${both[1]}; a file is the work or the oracle, never both`,
        });
    }
    const hasCheck = g.check !== null;
    const hasExpect = g.expect !== null;
    if ((hasCheck && g.check === "") || (hasExpect && g.expect === "")) {
      errors.push({ line: g.line, message: `gate ${g.id}: CHECK and EXPECT cannot be blank` });
    } else if (hasCheck !== hasExpect) {
      errors.push({ line: g.line, message: `gate ${g.id}: runnable gates require both non-blank CHECK and EXPECT` });
    }
    if (g.expect) {
      const p = parseExpect(g.expect);
      if (p.error) {
        const line = g.attrIndex.EXPECT! + 1;
        errors.push(
          p.portable
            ? { line, message: `gate ${g.id}: ${p.error}`, portable: `gate ${g.id}: ${p.portable}` }
            : { line, message: `gate ${g.id}: ${p.error}` },
        );
      }
      g.expectRegex = p.regex;
      g.pathLike = p.pathLike;
      if (p.pathLike) {
        warnings.push({
          line: g.attrIndex.EXPECT! + 1,
          message: `gate ${g.id}: EXPECT "${g.expect}" is read as a regular expression, so its dots and other metacharacters are wildcards. Escape the inner slashes to keep the pattern, or drop the wrapping slashes to match a literal substring.`,
        });
      }
    }
  }
  for (const a of abandons.values()) {
    if (!seen.has(a.id)) errors.push({ line: a.line, message: `ABANDON references unknown gate ${a.id}` });
  }
}
