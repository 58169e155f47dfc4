// The one error model. Every failure kbz raises on purpose is a KbzError: a stable `code`, a
// `message` that never contains the path, the `file` (as shown to the user, root-relative where
// possible) and `line` it is about, and a `hint` saying what to do next. Only the CLI edge turns
// one into text (`<file>:<line>: <message>`), a JSON error object and an exit code.

/**
 * What kind of failure an error is. The kind alone decides the exit code and how an edge renders
 * it (cli/envelope.ts); `code` only names the failure for machines.
 *   usage           the caller asked for something impossible (flags, ids): exit 2, points at --help
 *   input           a file or value kbz was given is invalid, or a state change it refuses: exit 2
 *   refused         a person's act asked for where no person is: exit 1 (needs review)
 *   infrastructure  the world failed (a write, a lock, the coordinator, the disk): exit 2
 *   bug             kbz itself is wrong: exit 2, reported as an internal error
 */
export type ErrorKind = "usage" | "input" | "refused" | "infrastructure" | "bug";

export interface ErrorInit {
  kind?: ErrorKind;
  code?: string;
  file?: string;
  line?: number;
  hint?: string;
  cause?: unknown;
}

export class KbzError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly file?: string;
  readonly line?: number;
  readonly hint?: string;

  constructor(message: string, init: ErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.kind = init.kind ?? "input";
    this.code = init.code ?? "error";
    if (init.file !== undefined) this.file = init.file;
    if (init.line !== undefined) this.line = init.line;
    if (init.hint !== undefined) this.hint = init.hint;
  }

  /** `<file>:<line>: <message>`, `<file>: <message>` without a line, else the message. */
  located(): string {
    return locate(this.file, this.line, this.message);
  }
}

/** The one text form of a located message. */
export function locate(file: string | undefined | null, line: number | undefined | null, message: string): string {
  if (file === undefined || file === null) return message;
  return line === undefined || line === null ? `${file}: ${message}` : `${file}:${line}: ${message}`;
}

/**
 * The kind of any thrown value: a KbzError says its own; yargs' parse errors are usage; a
 * TypeError, ReferenceError or RangeError is a bug in kbz; any other error (a system call's
 * EACCES, EIO, …) is the world failing.
 */
export function kindOf(e: unknown): ErrorKind {
  if (e instanceof KbzError) return e.kind;
  if (e instanceof Error && e.name === "YError") return "usage";
  if (e instanceof TypeError || e instanceof ReferenceError || e instanceof RangeError) return "bug";
  return "infrastructure";
}

/** A failure kbz raised on purpose (a KbzError of any kind but bug): its message and hint say what to fix. */
export function isDeliberate(e: unknown): e is KbzError {
  return e instanceof KbzError && e.kind !== "bug";
}

/** The text of any thrown value: a KbzError located, another Error's message. */
export function describe(e: unknown): string {
  if (e instanceof KbzError) return e.located();
  return e instanceof Error ? e.message : String(e);
}

export type ReadCode = "ENOENT" | "UNSAFE" | "TOO_LARGE" | "OUTSIDE" | "IO" | "DECODE";

const READ_HINTS: Record<ReadCode, string> = {
  ENOENT: "create the file or name an existing one",
  UNSAFE: "replace the link, FIFO, directory or hard link with one regular file, then run the command again",
  TOO_LARGE: "split the file or shorten it",
  OUTSIDE: "keep the file inside the repository root",
  IO: "check the file's permissions and the disk, then run the command again",
  DECODE: "save the file as UTF-8 text without a byte-order mark",
};

/** A file kbz would not or could not read (io/read.ts). `file` is the path as given to the reader. */
export class ReadError extends KbzError {
  declare readonly code: ReadCode;
  constructor(message: string, code: ReadCode, file: string, line?: number) {
    super(message, { kind: code === "IO" ? "infrastructure" : "input", code, file, line, hint: READ_HINTS[code] });
  }
}

export interface FileProblem {
  file: string; // path as shown to the user
  line: number;
  message: string;
  hint?: string;
  /** The message without engine-specific text, where it has any (see ledger/model.ts Diagnostic). */
  portable?: string;
}

/** Bad flags, bad ids, ambiguous targets: the caller asked for something impossible. */
export class UsageError extends KbzError {
  constructor(message: string, init: ErrorInit = {}) {
    super(message, { code: "usage", hint: "run kbz --help for usage", ...init, kind: "usage" });
  }
}

/** One or more problems located in files (parse errors, unreadable files); the first is the error's own. */
export class FileProblemsError extends KbzError {
  constructor(readonly problems: FileProblem[]) {
    const first = problems[0];
    super(first?.message ?? "invalid input", {
      code: "file-problems",
      file: first?.file,
      line: first?.line,
      hint: first?.hint,
    });
  }
}
