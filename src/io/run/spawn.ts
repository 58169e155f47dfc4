// Running one CHECK (docs/formats.md#check-run): the shell runs inside its container (cgroup,
// PID namespace or process group: contain.ts), both streams share one 1 MiB budget, and a
// timeout or overflow kills the whole tree.
// Settlement waits for both pipes to end (late descendants' output counts), but a descendant
// still holding them PIPE_GRACE_MS after the shell exited is killed with the rest of the tree:
// the check ended with its shell, so a pass stays a pass instead of becoming a hang. Whatever
// the check left behind is killed when it settles, on every path.
// Bun.spawn is used for its low per-spawn cost (about half of node:child_process here).
import { MAX_OUTPUT_BYTES } from "../../core/ledger/evidence.ts";
import { contain, containment, type Containment } from "./contain.ts";
import type { Env } from "./shell.ts";
import { sweepViews } from "./view.ts";
import { watchCheck } from "./watchdog.ts";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const STREAM_DESTROY_MS = 1000;
const FORCE_SETTLE_MS = 1500;
const PIPE_GRACE_MS = 1000;

export interface SpawnRequest {
  shell: string;
  command: string;
  cwd: string;
  env: Env;
  timeoutMs: number;
  maxBytes?: number;
  /** The argv placed before the shell (the sandbox's bwrap), inside the container. */
  prefix?: string[];
  /** The prefix makes its own PID namespace that dies with it (bwrap --unshare-pid). */
  prefixOwnsPidNamespace?: boolean;
  containment?: Containment;
  /** Each captured chunk as it arrives (the dashboard streams a running check's output). */
  onOutput?: (chunk: Uint8Array) => void;
  /** Bytes the first program reads from file descriptor 3 (the sandbox's `bwrap --args 3`). */
  fd3?: Buffer;
}

let fdSeq = 0;

/**
 * A read-only descriptor holding `data`: a private file in the temp folder, opened and unlinked
 * at once (named `kbz-args-<pid>-…`, so a kbz killed in between leaves one the sweep knows:
 * io/run/sweep.ts). null when none could be made.
 */
let sweptArgs = false;

function dataFd(data: Buffer): number {
  // What a kbz killed between the open and the unlink below left (issue 42 item 4).
  if (!sweptArgs) {
    sweptArgs = true;
    sweepViews();
  }
  const file = path.join(os.tmpdir(), `kbz-args-${process.pid}-${++fdSeq}-${Math.random().toString(16).slice(2, 10)}`);
  const w = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  let r: number;
  try {
    fs.writeSync(w, data);
    r = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } finally {
    fs.closeSync(w);
    fs.rmSync(file, { force: true });
  }
  return r;
}

export interface SpawnOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  rawOverflow: boolean;
  timedOut: boolean;
  spawnError: string | null;
  /** What the cleanup did, when it had to run. */
  cleanup: string | null;
  durationMs: number;
}

function shellArgs(shell: string, command: string): string[] {
  return /(^|[\\/])cmd(\.exe)?$/i.test(shell) ? ["/d", "/s", "/c", `"${command}"`] : ["-c", command];
}

/** Both streams' captured output under one byte budget; what passes the budget is counted, not kept. */
class OutputBudget {
  readonly chunks: { stdout: Uint8Array[]; stderr: Uint8Array[] } = { stdout: [], stderr: [] };
  private bytes = 0;
  overflow = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onOutput?: (chunk: Uint8Array) => void,
  ) {}

  /** Keep what fits of `chunk`; true the first time the budget is passed. */
  capture(stream: "stdout" | "stderr", chunk: Uint8Array): boolean {
    const remaining = this.maxBytes - this.bytes;
    if (remaining > 0) {
      const kept = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      this.chunks[stream].push(kept);
      this.onOutput?.(kept);
    }
    this.bytes += chunk.length;
    if (this.bytes <= this.maxBytes || this.overflow) return false;
    this.overflow = true;
    return true;
  }
}

/**
 * Read a pipe to its end, which is what "close" means: every descendant that inherited it has
 * exited or closed it. The reader is listed in `readers` so the cleanup can cancel it.
 */
async function pumpStream(
  body: ReadableStream<Uint8Array>,
  readers: { cancel(): Promise<void> }[],
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  const reader = body.getReader();
  readers.push(reader);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onChunk(value);
    }
  } catch {
    // cancelled by the cleanup
  }
}

export function runProcess(req: SpawnRequest): Promise<SpawnOutcome> {
  const maxBytes = req.maxBytes ?? MAX_OUTPUT_BYTES;
  const started = performance.now();
  let level = req.containment ?? containment();
  // bwrap's own PID namespace already ends the tree with the shell; unshare would nest another.
  if (level.level === "pidns" && req.prefixOwnsPidNamespace) level = { ...level, level: "pgroup", warning: null };
  const container = contain([...(req.prefix ?? []), req.shell, ...shellArgs(req.shell, req.command)], level);
  return new Promise((done) => {
    const output = new OutputBudget(maxBytes, req.onOutput);
    let timedOut = false;
    let killedGroup = false;
    let cleanup: string | null = null;
    let stopping = false;
    let settled = false;
    let pid: number | undefined;
    let exited: Promise<unknown> = Promise.resolve();
    let unwatch = () => {};
    const timers: ReturnType<typeof setTimeout>[] = [];
    const readers: { cancel(): Promise<void> }[] = [];

    const settle = (exitCode: number | null, signal: string | null, spawnError: string | null = null) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      // The tree we killed ended by our SIGKILL even if the shell leader had exited first.
      const sig = killedGroup && signal === null ? "SIGKILL" : signal;
      void container.release(pid, exited).then(() => {
        unwatch();
        done({
          exitCode: killedGroup ? null : exitCode,
          signal: sig,
          stdout: Buffer.concat(output.chunks.stdout),
          stderr: Buffer.concat(output.chunks.stderr),
          rawOverflow: output.overflow,
          timedOut,
          spawnError,
          cleanup,
          durationMs: performance.now() - started,
        });
      });
    };

    let proc: ReturnType<typeof Bun.spawn>;
    let fd3: number | null = null;
    try {
      if (req.fd3) fd3 = dataFd(req.fd3);
      proc = container.start(
        (argv) =>
          Bun.spawn(argv, {
            cwd: req.cwd,
            env: req.env as Record<string, string>,
            stdio: fd3 === null ? ["ignore", "pipe", "pipe"] : ["ignore", "pipe", "pipe", fd3],
            detached: process.platform !== "win32",
            windowsHide: true,
            windowsVerbatimArguments: process.platform === "win32",
          }) as ReturnType<typeof Bun.spawn>,
      );
      pid = proc.pid;
      exited = proc.exited;
      unwatch = watchCheck(container.watch(pid), () => container.kill(pid));
    } catch (e) {
      settle(null, null, (e as Error).message);
      return;
    } finally {
      if (fd3 !== null) fs.closeSync(fd3);
    }

    const cancelReaders = () => {
      for (const r of readers) void r.cancel().catch(() => {});
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      container.kill(pid);
      killedGroup = true;
      timers.push(
        setTimeout(cancelReaders, STREAM_DESTROY_MS),
        setTimeout(() => {
          cancelReaders();
          proc.unref();
          settle(null, null);
        }, FORCE_SETTLE_MS),
      );
    };

    const pump = (stream: "stdout" | "stderr", body: ReadableStream<Uint8Array>) =>
      pumpStream(body, readers, (chunk) => {
        if (output.capture(stream, chunk)) stop();
      });
    const leaderResult = () => [proc.exitCode, proc.signalCode === null ? null : String(proc.signalCode)] as const;
    void Promise.all([
      pump("stdout", proc.stdout as ReadableStream<Uint8Array>),
      pump("stderr", proc.stderr as ReadableStream<Uint8Array>),
      proc.exited,
    ]).then(() => settle(...leaderResult()));
    // The shell exited but something it started still holds the pipes: end the tree.
    void proc.exited.then(() => {
      if (settled || stopping) return;
      timers.push(
        setTimeout(() => {
          if (settled || stopping) return;
          container.kill(pid);
          cleanup = "descendants still held the output pipes after the shell exited; killed";
          timers.push(
            setTimeout(() => {
              cancelReaders();
              settle(...leaderResult());
            }, STREAM_DESTROY_MS),
          );
        }, PIPE_GRACE_MS),
      );
    });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, req.timeoutMs),
    );
  });
}
