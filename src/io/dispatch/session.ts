// Session binding (docs/formats.md#check-run): `.unlazy/<scope>/session` names the agent session the
// Stop hook should treat as this scope's owner when several pipelines exist.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import { hasUnsafe } from "../../core/text/sanitize.ts";
import { writeAtomic } from "../fs.ts";

export const MAX_SESSION_BYTES = 4096;

export function sessionPath(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope, "session");
}

/** The id as it is stored (trimmed); a UsageError when no session could ever match it. */
export function checkSessionId(rawId: string): string {
  const id = rawId.trim();
  if (id === "") throw new UsageError("bind needs a non-blank session id");
  // The hook compares the trimmed file text, so a line break or control would make a binding no session can match.
  if (hasUnsafe(id))
    throw new UsageError("session id must be printable (no control, bidi or line-separator characters)");
  if (Buffer.byteLength(id) + 1 > MAX_SESSION_BYTES)
    throw new UsageError(`session id must be shorter than ${MAX_SESSION_BYTES} bytes`);
  return id;
}

/** Atomically write the trimmed id plus "\n"; returns the id as stored. */
export function bindSession(root: string, scope: string, rawId: string): string {
  const id = checkSessionId(rawId);
  writeAtomic(sessionPath(root, scope), id + "\n", { root });
  return id;
}

/** The bound id (trimmed), or null when there is none or the file is not a small regular file. */
export function readSessionFile(root: string, scope: string): string | null {
  const file = sessionPath(root, scope);
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.nlink !== 1 || st.size > MAX_SESSION_BYTES) return null;
      const buf = Buffer.alloc(MAX_SESSION_BYTES + 1);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString("utf8").trim();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}
