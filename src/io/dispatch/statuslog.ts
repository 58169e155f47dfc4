// The scope's append-only status log (docs/formats.md#writes "status append"). The log is audit only:
// appends refuse links, swaps and FIFOs rather than write through them.
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../../core/errors.ts";

export class StatusLogError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, {
      kind: "infrastructure",
      code: "status-log",
      file,
      hint: "make the status log one regular file, then run the command again",
    });
  }
}

const FLAGS =
  fs.constants.O_WRONLY |
  fs.constants.O_APPEND |
  fs.constants.O_CREAT |
  (fs.constants.O_NOFOLLOW ?? 0) |
  (fs.constants.O_NONBLOCK ?? 0);

export function statusLogPath(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope, "status.log");
}

/** One log line: CR/LF runs become one space, so a line can never forge another. */
export function statusLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ") + "\n";
}

function refuse(file: string, why: string): never {
  throw new StatusLogError(why, file);
}

/** Append `text` plus a newline to `file`; throws StatusLogError instead of touching a link or a FIFO. */
export function appendStatus(file: string, text: string): void {
  let before: fs.Stats | null = null;
  try {
    before = fs.lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      refuse(file, `cannot inspect status log (${(e as Error).message})`);
  }
  if (before && (before.isSymbolicLink() || !before.isFile() || before.nlink !== 1)) {
    refuse(file, "status log must be a regular single-link file");
  }
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENXIO" || code === "EISDIR")
      refuse(file, "status log must be a regular single-link file");
    refuse(file, `cannot open status log (${code ?? (e as Error).message})`);
  }
  try {
    const st = fs.fstatSync(fd);
    const named = fs.lstatSync(file);
    if (!st.isFile() || st.nlink !== 1 || !named.isFile() || named.dev !== st.dev || named.ino !== st.ino) {
      refuse(file, "status log changed while it was opened");
    }
    const buf = Buffer.from(statusLine(text), "utf8");
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
    fs.fsyncSync(fd);
  } catch (e) {
    if (e instanceof StatusLogError) throw e;
    refuse(file, `cannot append status (${(e as Error).message})`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * An `onRecovered` callback for `withFileLock`: a lock taken over from a dead owner is
 * recorded in the scope's log (best effort) and in `notes`, so the command can say so too.
 */
export function recoveryLogger(root: string, scope: string | null, notes: string[]) {
  return (owner: { pid: number }, lockFile: string): void => {
    const text = `lock recovered from dead pid ${owner.pid} (${path.relative(root, lockFile)})`;
    notes.push(text);
    if (!scope) return;
    try {
      appendStatus(statusLogPath(root, scope), `${new Date().toISOString()} ${text}`);
    } catch (e) {
      notes.push(`could not log the lock recovery: ${(e as Error).message}`);
    }
  };
}
