// Typed failures. Core code throws these; only the CLI edge prints them and exits 2.

export interface FileProblem {
  file: string; // path as shown to the user
  line: number;
  message: string;
}

/** Bad flags, bad ids, ambiguous targets: the caller asked for something impossible. */
export class UsageError extends Error {}

/** One or more problems located in files (parse errors, unreadable files). */
export class FileProblemsError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join("\n"));
  }
}
