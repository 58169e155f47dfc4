// The scheduler's one failure type. The message keeps schedule.mjs's wording (docs/formats.md#plan)
// and names the row or field; `file`/`line` locate it when a file line is known.
import { KbzError } from "../errors.ts";
import { kbz } from "../text/command.ts";

export class ScheduleInputError extends KbzError {
  constructor(message: string, file: string | null = null, line: number | null = null) {
    super(message, {
      code: "schedule-input",
      file: file ?? undefined,
      line: line ?? undefined,
      hint: `fix the named file, then run ${kbz("next")} again`,
    });
  }
}

/**
 * Transient, not invalid: the scope kept changing while kbz next read it, on
 * every bounded retry. Nothing is wrong with any file; the answer is to ask again.
 */
export class ScopeBusyError extends KbzError {
  constructor(what: string) {
    super(`busy: the scope changed while reading (${what}); retry`, {
      code: "busy",
      hint: "another process is writing the scope: run the command again in a moment",
    });
  }
}
