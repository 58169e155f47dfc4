// The edges' own writer (the CLI's output.ts and progress.ts, the Stop hook's answer): blocking
// writes to a file descriptor without the stdio streams: creating process.stdout
// costs ~17 ms and ~500 page faults on a cold start, more than `kbz status` spends on a
// small repository. A non-blocking pipe (EAGAIN) is waited on; a reader that went away is
// not an error (the rest is dropped, as a closed pipe would).
import * as fs from "node:fs";

let pause: Int32Array | null = null;

/** Write all of `data` to `fd`; false when the reader is gone or the descriptor is unusable. */
export function writeFdSync(fd: number, data: string | Uint8Array): boolean {
  let bytes: Uint8Array;
  let off = 0;
  if (typeof data === "string") {
    // A string goes to the kernel without an intermediate Buffer (for a multi-megabyte report
    // that copy is most of the cost); only a short write needs the bytes, to resume exactly.
    let written: number;
    try {
      written = fs.writeSync(fd, data);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") return false;
      written = 0;
    }
    if (written === Buffer.byteLength(data, "utf8")) return true;
    bytes = Buffer.from(data, "utf8");
    off = written;
  } else bytes = data;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") return false;
      pause ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(pause, 0, 0, 2);
    }
  }
  return true;
}
