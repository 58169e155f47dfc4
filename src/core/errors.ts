// The one error model. Every failure kbz raises on purpose is a KbzError: a stable `code`, a
// `message` that never contains the path, the `file` (as shown to the user, root-relative where
// possible) and `line` it is about, and a `hint` saying what to do next. Only the CLI edge turns
// one into text (`<file>:<line>: <message>`), a JSON error object and an exit code.

export interface ErrorInit {
  code?: string;
  file?: string;
  line?: number;
  hint?: string;
  cause?: unknown;
}

export class KbzError extends Error {
  readonly code: string;
  readonly file?: string;
  readonly line?: number;
  readonly hint?: string;

  constructor(message: string, init: ErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
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
    super(message, { code, file, line, hint: READ_HINTS[code] });
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
    super(message, { code: "usage", hint: "run kbz --help for usage", ...init });
  }
}

/** One or more problems located in files (parse errors, unreadable files); the first is the error's own. */
export class FileProblemsError extends KbzError {
  constructor(readonly problems: FileProblem[]) {
    const first = problems[0];
    super(first?.message ?? "invalid input", { code: "file-problems", file: first?.file, line: first?.line, hint: first?.hint });
  }
}
