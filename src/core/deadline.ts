// (Pure: a clock comparison, no I/O; it lives in core so that ledger parsing checks it too.)
// A time bound for work that must answer in time whatever the repository holds (issue 28: the
// Stop hook decides within 3 s). Long loops (INPUTS expansion and hashing) call `checkDeadline`;
// past the bound it throws DeadlineError, which the hook turns into a block with the reason:
// never a silent allow, since an agent could make kbz slow on purpose. Without a bound set
// (every verb but the hook) `checkDeadline` costs one comparison.
import { KbzError } from "./errors.ts";

export class DeadlineError extends KbzError {
  constructor(
    readonly seconds: number,
    readonly what: string,
    file?: string,
  ) {
    super(`${what} took longer than ${seconds} s`, {
      code: "deadline",
      file,
      hint: "narrow the gate's INPUTS, then stop again",
    });
  }
}

let bound: { at: number; seconds: number } | null = null;

/** Run `fn` with a bound of `ms` from now (nested calls keep the earlier bound). */
export function withDeadline<T>(ms: number, seconds: number, fn: () => T): T {
  if (bound) return fn();
  bound = { at: Date.now() + ms, seconds };
  try {
    return fn();
  } finally {
    bound = null;
  }
}

/** Throw DeadlineError when the bound in force has passed; `what` says what was being done. */
export function checkDeadline(what: () => string, file?: string): void {
  if (bound && Date.now() > bound.at) throw new DeadlineError(bound.seconds, what(), file);
}
