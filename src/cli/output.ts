// Printing for the CLI edge: every line of repository text passes the sanitizer here.
// Standard output is collected and written with blocking descriptor writes (no stdio
// streams, see cli/fdwrite.ts); anything written to stderr flushes it first, so the
// two keep their order on a shared terminal. A flush is queued as a microtask, so lines of a
// long run (kbz check) appear as they are printed, while a synchronous report goes out in
// one write; main.ts flushes once more when the verb returns.
import * as fs from "node:fs";
import type { FileProblem } from "../core/errors.ts";
import { sanitize, terminalJson } from "../core/text/sanitize.ts";
import { writeFdSync } from "./fdwrite.ts";

const FLUSH_AT = 64 * 1024;
let pending: string[] = [];
let pendingChars = 0;
let queued = false;

/** Where stdout and stderr text goes: the descriptors, or an in-process runner's buffers. */
export interface OutputSink {
  stdout(text: string): void;
  stderr(text: string): void;
}
const FD_SINK: OutputSink = { stdout: (t) => void writeFdSync(1, t), stderr: (t) => void writeFdSync(2, t) };
let sink: OutputSink = FD_SINK;

/** Redirect output (the in-process CLI runner); `null` restores the descriptors. */
export function setOutputSink(next: OutputSink | null): void {
  flushOut();
  sink = next ?? FD_SINK;
  colour = null;
}

// ---- colour --------------------------------------------------------------------------------
// A gate state or verdict word that starts a line (after its indent) is coloured when stdout is a
// terminal, NO_COLOR is unset or empty and TERM is not "dumb". Only kbz's own words are painted,
// after the sanitizer: repository text never carries an escape sequence.
const PAINT: Record<string, string> = {
  "ALL MET": "32",
  MET: "32",
  PASS: "32",
  UNMET: "31",
  FAILED: "31",
  FAIL: "31",
  STALE: "33",
  "NO-EVIDENCE": "31",
  ABANDONED: "35",
  "APPROVAL REQUIRED": "33",
};
const STATE_WORD =
  /^(\s*)(ALL MET|APPROVAL REQUIRED|NO-EVIDENCE|ABANDONED|UNMET|FAILED|FAIL|STALE|PASS|MET)(?=[\s:]|$)/;
let colour: boolean | null = null;

/** Is fd 1 a terminal? A character device other than /dev/null (node:tty costs ~80 ms to load in Bun). */
function stdoutIsTerminal(): boolean {
  try {
    const st = fs.fstatSync(1);
    return st.isCharacterDevice() && st.rdev !== fs.statSync("/dev/null").rdev;
  } catch {
    return false;
  }
}

/** Whether state words are coloured, decided once per output sink. */
export function colourOn(env: Record<string, string | undefined> = process.env): boolean {
  if (colour !== null) return colour;
  if (env.NO_COLOR) return (colour = false);
  return (colour = sink === FD_SINK && env.TERM !== "dumb" && stdoutIsTerminal());
}

/** `line` with its leading state word coloured (already sanitized text only). */
export function paint(line: string): string {
  const m = STATE_WORD.exec(line);
  if (!m) return line;
  return `${m[1]}\x1b[${PAINT[m[2]!]}m${m[2]}\x1b[39m${line.slice(m[0].length)}`;
}

/** Write what `out` collected. */
export function flushOut(): void {
  queued = false;
  if (pending.length === 0) return;
  const text = pending.join("");
  pending = [];
  pendingChars = 0;
  sink.stdout(text);
}

/** Text already made safe for a terminal (sanitized or terminalJson). */
export function raw(text: string): void {
  pending.push(text);
  pendingChars += text.length;
  if (pendingChars >= FLUSH_AT) flushOut();
  else if (!queued) {
    queued = true;
    queueMicrotask(flushOut);
  }
}

export function out(line = ""): void {
  const safe = sanitize(line);
  raw((colourOn() ? paint(safe) : safe) + "\n");
}

export function err(line: string): void {
  flushOut();
  sink.stderr(sanitize(line) + "\n");
}

/** One JSON object: indented, or on one line where the original printed it so (next, structure). */
export function json(value: unknown, oneLine = false): void {
  raw(terminalJson(value, oneLine ? undefined : 2) + "\n");
}

export function printProblems(problems: FileProblem[]): void {
  for (const p of problems) err(`${p.file}:${p.line}: ${p.message}`);
}

export function printWarnings(warnings: FileProblem[]): void {
  for (const w of warnings) err(`${w.file}:${w.line}: warning: ${w.message}`);
}
