// What a use case refuses with (exit 2, nothing written), and the wrapper that turns a bare system
// error of an effect into one. Errors are told apart by kind (core/errors.ts), never by class.
import { type ErrorInit, isDeliberate, KbzError } from "../core/errors.ts";

export class RefusedError extends KbzError {
  constructor(message: string, init: ErrorInit = {}) {
    super(message, { code: "refused", ...init });
  }
}

/**
 * Run a core effect. A KbzError passes as it is (its kind decides how it ends); a bare system
 * error (EACCES, EIO, …) becomes an infrastructure RefusedError carrying its message.
 */
export async function infra<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof KbzError) && e instanceof Error && typeof (e as NodeJS.ErrnoException).syscall === "string")
      throw new RefusedError(e.message, { kind: "infrastructure" });
    throw e;
  }
}

/**
 * Read a scope's PLAN (or ACCESS) for a verb that changes it: a file the scheduler refuses
 * (code "schedule-input") becomes the verb's own refusal, located, without the scheduler's hint
 * (which points at `kbz next`). The one place this translation is written.
 */
export function refusingPlanInput<T>(read: () => T): T {
  const refuse = (e: unknown): never => {
    if (isDeliberate(e) && e.code === "schedule-input") throw new RefusedError(e.located());
    throw e;
  };
  let out: T;
  try {
    out = read();
  } catch (e) {
    return refuse(e);
  }
  return (out instanceof Promise ? out.catch(refuse) : out) as T;
}
