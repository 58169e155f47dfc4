// The one ledger parser (unlazy §2.2-2.4). Checker, status, lint and hook all use it.
import { normalizeOwnsPath } from "../workspace/paths.ts";
import type { Abandon, AttrKey, Diagnostic, Gate, Ledger } from "./model.ts";

const GATE_LINE = /^- \[([ xX])\] (.*)$/s;
const GATE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const INDENTED_ABANDON = /^[ \t]+ABANDON:/;
const UNINDENTED_ATTR = /^(CHECK|EXPECT|EVIDENCE|CWD):/;
const INDENTED_ATTR = /^[ \t]+(CHECK|EXPECT|EVIDENCE|CWD): ?(.*)$/s;
const ABANDON_LINE = /^ABANDON:(.*)$/s;
const OWNS_LINE = /^OWNS:(.*)$/s;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/s;
const REGEX_EXPECT = /^\/(.*)\/([a-z]*)$/s;
const MAX_REGEX_BODY = 1000;

export function splitLines(text: string): { lines: string[]; eols: string[] } {
  const lines: string[] = [];
  const eols: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      if (start < text.length) {
        lines.push(text.slice(start));
        eols.push("");
      }
      break;
    }
    const crlf = nl > start && text.charCodeAt(nl - 1) === 13;
    lines.push(text.slice(start, crlf ? nl - 1 : nl));
    eols.push(crlf ? "\r\n" : "\n");
    start = nl + 1;
  }
  return { lines, eols };
}

/** Parse EXPECT: `/body/flags` is a regex, anything else a substring. */
export function parseExpect(expect: string): {
  regex: { source: string; flags: string } | null;
  pathLike: boolean;
  error: string | null;
} {
  const m = REGEX_EXPECT.exec(expect);
  if (!m) return { regex: null, pathLike: false, error: null };
  const source = m[1]!;
  const flags = m[2]!;
  if (source.length > MAX_REGEX_BODY) {
    return { regex: null, pathLike: false, error: `EXPECT regex body exceeds ${MAX_REGEX_BODY} characters` };
  }
  try {
    new RegExp(source, flags);
  } catch (e) {
    return { regex: null, pathLike: false, error: `invalid EXPECT regex: ${(e as Error).message}` };
  }
  return { regex: { source, flags }, pathLike: hasUnescapedSlash(source), error: null };
}

function hasUnescapedSlash(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "/") return true;
  }
  return false;
}

interface Fence {
  char: string;
  length: number;
  line: number;
}

export function parseLedger(text: string, fileName: string): Ledger {
  const { lines, eols } = splitLines(text);
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const gates: Gate[] = [];
  const abandons = new Map<string, Abandon>();
  const owns: string[] = [];
  let ownsLine: number | null = null;
  let current: Gate | null = null;
  let contiguous = false; // still inside the attribute run right after the gate line
  let fence: Fence | null = null;
  const err = (line: number, message: string) => errors.push({ line, message });

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;

    if (fence) {
      if (isFenceClose(line, fence)) fence = null;
      contiguous = false;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length, line: lineNo };
      contiguous = false;
      continue;
    }

    const gm = GATE_LINE.exec(line);
    if (gm) {
      current = newGate(gm[1]!, gm[2]!, lineNo, i, err);
      gates.push(current);
      contiguous = true;
      continue;
    }
    if (INDENTED_ABANDON.test(line)) {
      err(lineNo, "indented ABANDON is not applied; start ABANDON at column 1");
      current = null;
      contiguous = false;
      continue;
    }
    const un = UNINDENTED_ATTR.exec(line);
    if (un) {
      err(lineNo, `unindented ${un[1]} is not attached to a gate; indent attribute lines with spaces`);
      current = null;
      contiguous = false;
      continue;
    }
    const attr = INDENTED_ATTR.exec(line);
    if (attr) {
      const key = attr[1] as AttrKey;
      const value = attr[2]!.trim();
      if (!current) {
        err(lineNo, `${key} line is not attached to a gate`);
        contiguous = false;
        continue;
      }
      if (current.attrIndex[key] !== undefined) {
        err(lineNo, `gate ${current.id} repeats ${key} (first on line ${current.attrIndex[key]! + 1})`);
      }
      current.attrIndex[key] = i;
      if (key === "CHECK") current.check = value;
      else if (key === "EXPECT") current.expect = value;
      else if (key === "CWD") current.cwd = value;
      else current.evidence = value;
      if (contiguous) current.blockEnd = i;
      continue;
    }
    contiguous = false;
    const ab = ABANDON_LINE.exec(line);
    if (ab) {
      current = null;
      const rest = ab[1]!.trim();
      const sp = rest.search(/\s/);
      let id = sp < 0 ? rest : rest.slice(0, sp);
      const reason = sp < 0 ? "" : rest.slice(sp).trim();
      if (id.endsWith(":")) id = id.slice(0, -1);
      if (id === "") err(lineNo, "ABANDON needs a gate id and a reason");
      else if (reason === "") err(lineNo, `ABANDON ${id} needs a non-blank reason`);
      else if (abandons.has(id)) err(lineNo, `duplicate ABANDON for ${id} (first on line ${abandons.get(id)!.line})`);
      else abandons.set(id, { id, reason, line: lineNo });
      continue;
    }
    const ow = OWNS_LINE.exec(line);
    if (ow) {
      if (gates.length > 0) {
        err(lineNo, "OWNS must appear before the first gate");
        continue;
      }
      ownsLine ??= lineNo;
      const items = ow[1]!.split(",").filter((s) => s.trim() !== "");
      if (items.length === 0) err(lineNo, "OWNS lists no paths");
      for (const item of items) {
        const n = normalizeOwnsPath(item);
        if (n.ok) owns.push(n.glob);
        else err(lineNo, n.error);
      }
      continue;
    }
    if (line.startsWith("#") || line.startsWith("- ")) current = null;
  }

  if (fence) err(fence.line, `fenced block opened on line ${fence.line} is never closed`);
  validateGates(gates, abandons, errors, warnings);
  if (gates.length === 0) err(1, "ledger contains zero live gates");
  errors.sort((a, b) => a.line - b.line);

  return { stem: fileName, text, lines, eols, gates, abandons, owns, ownsLine, errors, warnings };
}

function isFenceClose(line: string, fence: Fence): boolean {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let run = 0;
  while (line[i + run] === fence.char) run++;
  if (run < fence.length) return false;
  return /^[ \t]*$/.test(line.slice(i + run));
}

function newGate(box: string, rawTitle: string, lineNo: number, index: number, err: (l: number, m: string) => void): Gate {
  const text = rawTitle.trim();
  const m = /^(\S*?):(?:\s|$)/.exec(text);
  let id: string;
  let title: string;
  let explicitId = true;
  if (m && m[1] !== "") {
    id = m[1]!;
    title = text.slice(m[0].length).trim();
    if (!GATE_ID.test(id)) {
      err(lineNo, `gate id ${id} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`);
    }
    if (title === "") err(lineNo, `gate ${id} has a blank outcome`);
  } else {
    explicitId = false;
    id = `L${lineNo}`;
    title = m ? text.slice(m[0].length).trim() : text;
    err(lineNo, "gate needs an explicit ID followed by a colon");
    if (title === "") err(lineNo, "gate has a blank outcome");
  }
  return {
    id,
    explicitId,
    title,
    checked: box !== " ",
    line: lineNo,
    check: null,
    expect: null,
    cwd: null,
    evidence: null,
    attrIndex: {},
    blockEnd: index,
    expectRegex: null,
    pathLike: false,
  };
}

function validateGates(gates: Gate[], abandons: Map<string, Abandon>, errors: Diagnostic[], warnings: Diagnostic[]) {
  const seen = new Map<string, number>();
  for (const g of gates) {
    if (g.explicitId) {
      const first = seen.get(g.id);
      if (first !== undefined) errors.push({ line: g.line, message: `duplicate gate id ${g.id} (first declared on line ${first})` });
      else seen.set(g.id, g.line);
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
      if (p.error) errors.push({ line: g.attrIndex.EXPECT! + 1, message: `gate ${g.id}: ${p.error}` });
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
