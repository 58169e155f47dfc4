// The one output contract of every verb (docs/formats.md#envelope). With --json a verb prints
// exactly one object on stdout:
//   {"schema":1,"exit":0|1|2,"verdict":"…", …verb fields…, "errors":[{file,line,message,hint}]}
// Without --json, errors go to stderr as `<file>:<line>: <message>` (or `kbz: <message>` when no
// file is at fault) followed by `  hint: …`; only a usage error ends with "run kbz --help for usage".
// Exit codes: 0 done / all met, 1 unmet / needs review, 2 usage, parse or infrastructure.
import { FileProblemsError, KbzError, kindOf, type FileProblem } from "../core/errors.ts";
import { json, out, err, flushOut } from "./output.ts";

export type ExitCode = 0 | 1 | 2;

/** One error as every verb reports it. `file` is root-relative as shown to the user. */
export interface ErrorEntry {
  file: string | null;
  line: number | null;
  message: string;
  hint: string | null;
}

export interface Envelope {
  schema: 1;
  exit: ExitCode;
  verdict: string;
  errors: ErrorEntry[];
  [key: string]: unknown;
}

export const USAGE_HINT = "run kbz --help for usage";
/** The verdict of every exit-2 envelope. */
export const INVALID = "invalid";

/**
 * An envelope in the one key order: schema, exit, verdict, the verb's fields, errors.
 * `fields` may carry keys an existing consumer reads (next's schedule.mjs object); they are kept.
 */
export function envelope(
  verdict: string,
  exit: ExitCode,
  fields: Record<string, unknown> = {},
  errors: ErrorEntry[] = [],
): Envelope {
  const { schema: _s, exit: _e, verdict: _v, errors: _r, ...rest } = fields;
  return { schema: 1, exit, verdict, ...rest, errors } as Envelope;
}

/** Print one envelope (one line: every byte costs an agent tokens) and return its exit code. */
export function emit(e: Envelope): ExitCode {
  json(e, true);
  return e.exit;
}

/** A verb's result: the envelope under --json, else the text lines `text` prints. */
export function report(asJson: boolean, e: Envelope, text: () => void): ExitCode {
  if (asJson) return emit(e);
  text();
  return e.exit;
}

/** Anything with a message and optionally a place and a next step (KbzError and its kin). */
interface Located {
  message: string;
  file?: string | null;
  line?: number | null;
  hint?: string | null;
}

/** Every error says what to do next; this is the next step when nothing more specific is known. */
export const DEFAULT_HINT = "fix what the message names, then run the command again";
const FILE_HINT = "fix the file at that line, then run the command again";

function entry(x: Located, hint: string | null = null): ErrorEntry {
  // A line means something only with a file (Bun's own Error objects carry a source `line`).
  const file = typeof x.file === "string" ? x.file : null;
  return {
    file,
    line: file !== null ? (typeof x.line === "number" ? x.line : 1) : null,
    message: x.message,
    hint: x.hint ?? hint ?? (file !== null ? FILE_HINT : DEFAULT_HINT),
  };
}

export function problemEntries(problems: FileProblem[], hint: string | null = null): ErrorEntry[] {
  return problems.map((p) => entry(p as Located, hint));
}

/** Is this a usage error (wrong flags or arguments), the only kind that points at --help? */
export function isUsage(e: unknown): boolean {
  return kindOf(e) === "usage";
}

/** The error entries for a thrown value; an unknown failure is an internal error (exit 2). */
export function errorEntries(e: unknown): ErrorEntry[] {
  if (e instanceof FileProblemsError) return problemEntries(e.problems);
  if (isUsage(e)) return [entry(e as Located, (e as Located).hint ?? USAGE_HINT)];
  if (kindOf(e) === "bug") {
    const b = e as Error;
    return [
      entry({
        message: `internal error: ${b.stack ?? b.message}`,
        hint: "this is a bug in kbz; please report it with the command that failed",
      }),
    ];
  }
  if (e instanceof KbzError) return [entry({ message: e.message, file: e.file, line: e.line, hint: e.hint ?? null })];
  // A system error (EACCES, EIO, …) that no core module wrapped: infrastructure, exit 2.
  if (e instanceof Error && typeof (e as NodeJS.ErrnoException).syscall === "string") {
    return [
      entry({ message: e.message, hint: "check the file's permissions and the disk, then run the command again" }),
    ];
  }
  if (e instanceof Error) return [entry({ message: e.message })];
  return [entry({ message: String(e) })];
}

/** The text lines of errors, as printed on stderr. */
export function errorLines(errors: ErrorEntry[], usage: boolean): string[] {
  const lines: string[] = [];
  for (const x of errors) {
    lines.push(x.file !== null ? `${x.file}:${x.line ?? 1}: ${x.message}` : `kbz: ${x.message}`);
    // The generic next steps add nothing to a text line a person reads; JSON keeps them.
    if (x.hint && x.hint !== USAGE_HINT && x.hint !== DEFAULT_HINT && x.hint !== FILE_HINT)
      lines.push(`  hint: ${x.hint}`);
  }
  if (usage) lines.push(USAGE_HINT);
  return lines;
}

/**
 * Report a failure: the envelope (exit 2, verdict "invalid") on stdout under --json, else the
 * error lines on stderr. `fields` adds keys an existing consumer reads (e.g. next's `action`).
 */
export function fail(e: unknown, asJson: boolean, fields: Record<string, unknown> = {}): ExitCode {
  // A person's act refused to an agent is "needs review" (exit 1), not a usage or input problem.
  if (kindOf(e) === "refused") {
    const errors = errorEntries(e);
    if (asJson) return emit(envelope("refused", 1, fields, errors));
    for (const line of errorLines(errors, false)) err(line);
    return 1;
  }
  return failWith(errorEntries(e), isUsage(e), asJson, fields);
}

export function failWith(
  errors: ErrorEntry[],
  usage: boolean,
  asJson: boolean,
  fields: Record<string, unknown> = {},
): ExitCode {
  if (asJson) return emit(envelope(INVALID, 2, fields, errors));
  for (const line of errorLines(errors, usage)) err(line);
  return 2;
}

/** Text-mode success lines go through `out`; re-exported so verbs import one module. */
export { out, err, flushOut };
