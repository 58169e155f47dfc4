// Plain data produced by the ledger parser. Nothing here does I/O.

// INPUTS is kbz's own (issue 18): unlazy reads that line as prose, so such ledgers stay
// readable there, and it is not part of the definition digest (evidence keeps its format).
// ORACLE and ENV are kbz's too (issue 27): what the approval binds beyond the CHECK text.
// WORK is kbz's (issue 39): what the gate's work is, never bound however the CHECK reaches it.
export type AttrKey = "CHECK" | "EXPECT" | "EVIDENCE" | "CWD" | "INPUTS" | "ORACLE" | "ENV" | "WORK";

export interface Diagnostic {
  line: number; // 1-based; whole-file problems use line 1
  message: string;
  /** The message without text quoted from the JavaScript engine (regex syntax errors differ between Bun and Node). */
  portable?: string;
}

export interface Gate {
  id: string;
  explicitId: boolean;
  title: string;
  checked: boolean;
  line: number; // 1-based line of the `- [ ]` line
  check: string | null;
  expect: string | null;
  cwd: string | null;
  evidence: string | null;
  /** INPUTS globs (relative to the CHECK directory), or null when not declared. */
  inputs: string[] | null;
  /** ORACLE globs (relative to the CHECK directory): files the approval binds, or null. */
  oracle: string[] | null;
  /** WORK globs (relative to the CHECK directory): the gate's work, never part of its oracle, or null. */
  work?: string[] | null;
  /** ENV names: variables the CHECK receives from kbz's caller, values bound by the approval. */
  env: string[] | null;
  /** 0-based index of each attribute line, for targeted edits. */
  attrIndex: Partial<Record<AttrKey, number>>;
  /** 0-based index of the last line of the contiguous attribute run after the gate line. */
  blockEnd: number;
  /** EXPECT is slash-wrapped and read as a regular expression. */
  expectRegex: { source: string; flags: string } | null;
  /** Slash-wrapped EXPECT with an unescaped inner slash (probably a path). */
  pathLike: boolean;
}

export interface Abandon {
  id: string;
  reason: string;
  line: number;
}

export interface Ledger {
  /** Base name without a trailing `.md` (case-insensitive). */
  stem: string;
  /** The decoded text; an edit splits it (parse.ts splitLines), gates carry line indexes into it. */
  text: string;
  gates: Gate[];
  abandons: Map<string, Abandon>;
  owns: string[];
  ownsLine: number | null;
  /** `SANDBOX:` before the first gate: run this ledger's CHECKs under the sandbox. */
  sandbox: LedgerSandbox | null;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export interface LedgerSandbox {
  line: number;
  /** Writable paths beyond the repository, as written (root-relative or absolute). */
  writable: string[];
}

export function isRunnable(g: Gate): boolean {
  return !!g.check && !!g.expect;
}

export function stemOf(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.md$/i, "");
}
