// Session binding (unlazy §3.1.2 step 6): `.unlazy/<scope>/session` names the agent session the
// Stop hook should treat as this scope's owner when several pipelines exist.
import * as path from "node:path";
import { UsageError } from "../errors.ts";
import { hasUnsafe } from "../text/sanitize.ts";
import { writeAtomic } from "../workspace/fs.ts";

export const MAX_SESSION_BYTES = 4096;

export function sessionPath(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope, "session");
}

/** Atomically write the trimmed id plus "\n"; returns the id as stored. */
export function bindSession(root: string, scope: string, rawId: string): string {
  const id = rawId.trim();
  if (id === "") throw new UsageError("bind needs a non-blank session id");
  // The hook compares the trimmed file text, so a line break or control would make a binding no session can match.
  if (hasUnsafe(id)) throw new UsageError("session id must be printable (no control, bidi or line-separator characters)");
  if (Buffer.byteLength(id) + 1 > MAX_SESSION_BYTES) throw new UsageError(`session id must be shorter than ${MAX_SESSION_BYTES} bytes`);
  writeAtomic(sessionPath(root, scope), id + "\n", { root });
  return id;
}
