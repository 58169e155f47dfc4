// The Stop hook's stdin, read within a bound (issue 15 point 8). A host writes one JSON object
// and closes the pipe; a payload that has not ended after STDIN_DEADLINE_MS is treated as missing,
// so a writer that keeps the pipe open can never hold the hook past the host's own timeout.
//
// A regular file on stdin cannot block and is read with plain blocking reads. A pipe or socket
// is read against a timer. Under Bun (the binary) that is fs.read on the thread pool: Bun's exit
// does not wait for a read still pending, and the stdio stream stack, which costs 20-30 ms to
// build, is avoided. Node (the fallback) joins its thread pool on exit, so a pending blocking read
// would hold the process until the writer closes; there the pipe is read as a libuv stream
// (net.Socket on fd 0, non-blocking, no thread), which process.exit leaves at once.
import * as fs from "node:fs";

/** Stdin beyond this is not a host payload; it is treated like invalid JSON. */
export const MAX_STDIN_BYTES = 32 * 1024 * 1024;
/** How long the hook waits for the payload to end. Every host's hook timeout is far longer. */
export const STDIN_DEADLINE_MS = 3000;

/** `bytes: null` means unreadable or too large (invalid JSON); `timedOut` means the payload never ended. */
export interface StdinResult {
  bytes: Buffer | null;
  timedOut: boolean;
}

function fstatOrNull(fd: number): fs.Stats | null {
  try {
    return fs.fstatSync(fd);
  } catch {
    return null;
  }
}

export function readStdin(deadlineMs = STDIN_DEADLINE_MS): Promise<StdinResult> {
  const st = fstatOrNull(0);
  // No stdin, a terminal or /dev/null: no payload. fstat instead of node:tty's isatty, whose
  // module costs ~9 ms to load.
  if (!st || st.isCharacterDevice()) return Promise.resolve({ bytes: Buffer.alloc(0), timedOut: false });
  if (st.isFile()) return Promise.resolve({ bytes: readFileSync0(), timedOut: false });
  if (!process.versions.bun) return readStream(deadlineMs);
  const ready = st.isFIFO() ? readyPipe() : null;
  if (ready?.ended) return Promise.resolve({ bytes: ready.bytes, timedOut: false });
  return readBounded(deadlineMs, ready?.bytes ?? null);
}

/**
 * A pipe whose writer has already written and closed it (what a host does: one object, then
 * close) is read at once, through a non-blocking descriptor of the same pipe of our own
 * (/proc/self/fd/0; fd 0's own flags are shared with the host and stay untouched). The bounded
 * read below starts Bun's thread pool, two threads, about 5 ms of CPU on every stop (the Stop
 * hook at 1,000 gates was 1.11x bd6a7bc's, which read stdin with blocking reads). `ended: false`
 * with what was there when the writer is not done yet (the bounded read takes over), null when the
 * pipe cannot be opened again (a socket: Node hosts use socketpairs) or an error other than
 * EAGAIN; `bytes: null` past MAX_STDIN_BYTES, like every other path.
 */
function readyPipe(): { bytes: Buffer | null; ended: boolean } | null {
  let fd: number;
  try {
    fd = fs.openSync("/proc/self/fd/0", fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(65536);
  try {
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EAGAIN")
          return { bytes: Buffer.concat(chunks, total), ended: false };
        return null;
      }
      if (n === 0) return { bytes: Buffer.concat(chunks, total), ended: true };
      total += n;
      if (total > MAX_STDIN_BYTES) return { bytes: null, ended: true };
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
  } finally {
    fs.closeSync(fd);
  }
}

function readFileSync0(): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch {
      return null;
    }
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > MAX_STDIN_BYTES) return null;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
}

/** Collects chunks up to MAX_STDIN_BYTES, settling once: on end, error, overflow or the deadline. */
function collector(deadlineMs: number, resolve: (r: StdinResult) => void, stop: () => void) {
  const chunks: Buffer[] = [];
  let total = 0;
  let done = false;
  const finish = (r: StdinResult) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    stop();
    resolve(r);
  };
  const timer = setTimeout(() => finish({ bytes: null, timedOut: true }), deadlineMs);
  return {
    get done() {
      return done;
    },
    add(chunk: Buffer): boolean {
      total += chunk.length;
      if (total > MAX_STDIN_BYTES) {
        finish({ bytes: null, timedOut: false });
        return false;
      }
      chunks.push(chunk);
      return true;
    },
    end: () => finish({ bytes: Buffer.concat(chunks, total), timedOut: false }),
    fail: () => finish({ bytes: null, timedOut: false }),
  };
}

async function readStream(deadlineMs: number): Promise<StdinResult> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    let sock: import("node:net").Socket;
    try {
      sock = new net.Socket({ fd: 0, readable: true, writable: false });
    } catch {
      return resolve(readBoundedSync());
    }
    const c = collector(deadlineMs, resolve, () => {
      sock.removeAllListeners("data");
      sock.pause();
    });
    sock.on("data", (chunk: Buffer) => void c.add(chunk));
    sock.on("end", c.end);
    sock.on("error", c.fail);
  });
}

/** Last resort when fd 0 cannot be opened as a stream: a blocking read, as before the bound. */
function readBoundedSync(): StdinResult {
  return { bytes: readFileSync0(), timedOut: false };
}

function readBounded(deadlineMs: number, first: Buffer | null): Promise<StdinResult> {
  return new Promise((resolve) => {
    const c = collector(deadlineMs, resolve, () => {});
    if (first && first.length > 0 && !c.add(first)) return;
    const buf = Buffer.allocUnsafe(65536);
    const step = (): void => {
      fs.read(0, buf, 0, buf.length, null, (e, n) => {
        if (c.done) return;
        const code = (e as NodeJS.ErrnoException | null)?.code;
        // A non-blocking stdin answers EAGAIN when empty: poll again shortly, still bounded.
        if (code === "EAGAIN") return void setTimeout(step, 5);
        if (code === "EOF" || (!e && n === 0)) return c.end();
        if (e) return c.fail();
        if (c.add(Buffer.from(buf.subarray(0, n)))) step();
      });
    };
    step();
  });
}
