// The Stop hook's one deadline for the whole process (issue 40): a watchdog that does not depend
// on the judging code yielding. The judging is synchronous (the one reader, ledger parsing, INPUTS
// expansion), so a timer on the main thread could never fire while it runs; the watchdog is a
// thread of its own that sleeps on a shared cell (Atomics.wait) and, when the deadline passes
// first, claims the answer, prints the block it was given and ends the process with exit 0 (the
// hosts read a block only from a hook that exits 0; any other exit lets the stop go ahead).
//
// Under Bun (the binary) the thread is a Worker from a few lines of source (about 1.5 ms to start;
// a module file would need its own entry point in the build) and it ends the process with libc's
// `_exit(0)` through bun:ffi, loaded only when it fires. Node (the fallback) has no way for a
// worker to end its process with 0, so there the synchronous judging also runs under vm's
// `timeout` (V8's own watchdog thread interrupts it: hardBound), and the worker is the last
// resort for a process stuck in a system call: it prints the block and kills the process.
//
// The main thread claims the answer before printing (claim()): exactly one of the two prints.

export interface Watchdog {
  /** True when the main thread may print its answer; false when the watchdog already did (then exit is imminent). */
  claim(): boolean;
}

const WORKER_SOURCE = `
const fs = require("node:fs");
function writeAll(fd, text) {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}
function fire(d) {
  const cell = new Int32Array(d.sab);
  if (Atomics.wait(cell, 0, 0, d.ms) !== "timed-out") return;
  if (Atomics.compareExchange(cell, 1, 0, 2) !== 0) return;
  try { if (d.out) writeAll(1, d.out); if (d.err) writeAll(2, d.err); } catch {}
  if (d.bun) {
    for (const lib of ["libc.so.6", "libc.so", "/usr/lib/libSystem.B.dylib", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
      try { require("bun:ffi").dlopen(lib, { _exit: { args: ["i32"], returns: "void" } }).symbols._exit(0); } catch {}
    }
  }
  process.kill(process.pid, "SIGKILL");
}
`;
/** How the worker is started in Node: its data arrives as workerData. */
const NODE_START = `${WORKER_SOURCE}\nfire(require("node:worker_threads").workerData);\n`;

/** Start the watchdog: after `ms`, unless the main thread claimed the answer first, `stdout` and `stderr` are printed and the process ends. */
export async function armWatchdog(ms: number, stdout: string, stderr: string): Promise<Watchdog> {
  const cell = new Int32Array(new SharedArrayBuffer(8));
  const data = { sab: cell.buffer, ms, out: stdout, err: stderr, bun: !!process.versions.bun };
  try {
    if (process.versions.bun) {
      const url = URL.createObjectURL(
        new Blob([`${WORKER_SOURCE}\nonmessage = (e) => fire(e.data);`], { type: "application/javascript" }),
      );
      const w = new Worker(url);
      w.postMessage(data);
      (w as unknown as { unref?: () => void }).unref?.();
    } else {
      const { Worker: NodeWorker } = await import("node:worker_threads");
      const w = new NodeWorker(NODE_START, { eval: true, workerData: data });
      w.unref();
    }
  } catch {
    // No thread could be started: the judging's own deadline checks and hardBound remain.
  }
  return {
    claim: () => {
      const mine = Atomics.compareExchange(cell, 1, 0, 1) === 0;
      if (mine) {
        Atomics.store(cell, 0, 1);
        Atomics.notify(cell, 0);
      }
      return mine;
    },
  };
}

let vmModule: typeof import("node:vm") | null = null;

/** Load what hardBound needs under Node (before the judging starts). */
export async function prepareHardBound(): Promise<void> {
  if (!process.versions.bun) vmModule = await import("node:vm");
}

export class HardBoundError extends Error {}

/**
 * Run synchronous `fn`, interrupted after `ms` whatever it does (Node: vm's timeout, V8's watchdog
 * thread). Under Bun the watchdog thread above is the bound and `fn` simply runs.
 */
export function hardBound<T>(ms: number, fn: () => T): T {
  if (!vmModule) return fn();
  const g = globalThis as { __kbzBounded?: () => T };
  g.__kbzBounded = fn;
  try {
    return new vmModule.Script("__kbzBounded()").runInThisContext({ timeout: Math.max(1, Math.floor(ms)) }) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT")
      throw new HardBoundError(`did not finish within ${ms} ms`);
    throw e;
  } finally {
    delete g.__kbzBounded;
  }
}
