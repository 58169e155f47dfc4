// One read of a small private file of kbz's approval store (policy, secret, holds, kept bytes).
import * as fs from "node:fs";

/**
 * A small private file of kbz's store, or null when absent, a link, not a regular file, linked
 * twice, over `max` bytes, readable by group or others, or owned by another user. Opened without
 * following links and without blocking (a FIFO in its place never hangs kbz).
 */
export function readPrivate(file: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = typeof process.geteuid === "function" ? process.geteuid() : null;
    if (!st.isFile() || st.nlink !== 1 || st.size > max || (st.mode & 0o077) !== 0 || (uid !== null && st.uid !== uid))
      return null;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
