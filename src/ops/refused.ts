// What a use case refuses with (exit 2, nothing written), and the wrapper that turns an
// infrastructure failure of an effect (a write, a lock, the status log, a lease) into one.
import { type ErrorInit, KbzError } from "../core/errors.ts";
import { DispatchActionError } from "../core/dispatch/waves.ts";
import { StatusLogError } from "../io/dispatch/statuslog.ts";
import { LeaseRecordError } from "../io/dispatch/leases.ts";
import { WriteError } from "../io/fs.ts";
import { LockTimeoutError } from "../io/lock.ts";

export class RefusedError extends KbzError {
  constructor(message: string, init: ErrorInit = {}) {
    super(message, { code: "refused", ...init });
  }
}

/** Run a core effect; infrastructure failures become a RefusedError carrying their message. */
export async function infra<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if ((e as Error)?.name === "CoordinatorError") throw new RefusedError((e as Error).message, { code: (e as KbzError).code, hint: (e as KbzError).hint });
    if (e instanceof WriteError || e instanceof LockTimeoutError || e instanceof StatusLogError || e instanceof DispatchActionError || e instanceof LeaseRecordError) {
      throw new RefusedError(e.message, { code: e.code, file: e.file, line: e.line, hint: e.hint });
    }
    const errno = e as NodeJS.ErrnoException;
    if (typeof errno?.code === "string" && errno.syscall) throw new RefusedError(errno.message);
    throw e;
  }
}
