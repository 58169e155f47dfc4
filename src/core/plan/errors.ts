// The scheduler's one failure type. The message keeps schedule.mjs's wording (kill Appendix A.1)
// and names the row or field; `file`/`line` locate it when a file line is known.

export class ScheduleInputError extends Error {
  constructor(
    message: string,
    readonly file: string | null = null,
    readonly line: number | null = null,
  ) {
    super(message);
  }

  /** `<file>:<line>: <message>` when located, else the message. */
  located(): string {
    if (this.file === null) return this.message;
    return this.line === null ? `${this.file}: ${this.message}` : `${this.file}:${this.line}: ${this.message}`;
  }
}
