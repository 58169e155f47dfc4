// The scheduler's one failure type. The message keeps schedule.mjs's wording (docs/formats.md#plan)
// and names the row or field; `file`/`line` locate it when a file line is known.
import { KbzError } from "../errors.ts";

export class ScheduleInputError extends KbzError {
  constructor(message: string, file: string | null = null, line: number | null = null) {
    super(message, { code: "schedule-input", file: file ?? undefined, line: line ?? undefined, hint: "fix the named file, then run kbz next again" });
  }
}
