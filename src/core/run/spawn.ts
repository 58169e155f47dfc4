// Running one CHECK (unlazy §3.1.8, §5.9): the shell leads its own process group, both
// streams share one 1 MiB budget, and a timeout or overflow kills the whole group.
// Settlement waits for both pipes to end (late descendants' output counts) but is bounded:
// an escaped descendant holding the pipes cannot keep us waiting past the force-settle.
// Bun.spawn is used for its low per-spawn cost (about half of node:child_process here).
import { MAX_OUTPUT_BYTES } from "../ledger/evidence.ts";
import type { Env } from "./shell.ts";

const STREAM_DESTROY_MS = 1000;
const FORCE_SETTLE_MS = 1500;

export interface SpawnRequest {
  shell: string;
  command: string;
  cwd: string;
  env: Env;
  timeoutMs: number;
  maxBytes?: number;
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

/**
 * Kill the child's process group. The group id is the child's pid; it cannot be reused
 * while any member is alive, and an empty group only yields ESRCH.
 */
export interface Termination {
  /** A kill signal was delivered to the tree. */
  killed: boolean;
  /** Set when the plain group kill was not what happened. */
  diagnostic: string | null;
}

/** What the cleanup needs of a running child (Bun's Subprocess and Node's ChildProcess both fit). */
export interface KillableChild {
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: string | number | null;
  kill(signal: "SIGKILL"): boolean | void;
}

export function terminateProcessTree(child: KillableChild, platform = process.platform): Termination {
  const pid = child.pid;
  if (!Number.isInteger(pid) || pid! <= 0) return { killed: false, diagnostic: "child PID is unavailable" };
  let groupError = "";
  if (platform !== "win32") {
    try {
      process.kill(-pid!, "SIGKILL");
      return { killed: true, diagnostic: null };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH") return { killed: false, diagnostic: "process group already exited" };
      groupError = `group kill failed (${(e as Error).message}); `;
    }
  }
  if (child.exitCode !== null || child.signalCode !== null) return { killed: false, diagnostic: `${groupError}child already exited` };
  try {
    return child.kill("SIGKILL") !== false
      ? { killed: true, diagnostic: `${groupError}child fallback requested` }
      : { killed: false, diagnostic: `${groupError}child fallback returned false` };
  } catch (e) {
    return { killed: false, diagnostic: `${groupError}child fallback failed (${(e as Error).message})` };
  }
}

export function runProcess(req: SpawnRequest): Promise<SpawnOutcome> {
  const maxBytes = req.maxBytes ?? MAX_OUTPUT_BYTES;
  const started = performance.now();
  return new Promise((done) => {
    const chunks: { stdout: Uint8Array[]; stderr: Uint8Array[] } = { stdout: [], stderr: [] };
    let bytes = 0;
    let rawOverflow = false;
    let timedOut = false;
    let killedGroup = false;
    let cleanup: string | null = null;
    let stopping = false;
    let settled = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const readers: { cancel(): Promise<void> }[] = [];

    const settle = (exitCode: number | null, signal: string | null, spawnError: string | null = null) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      // The tree we killed ended by our SIGKILL even if the shell leader had exited first.
      const sig = killedGroup && signal === null ? "SIGKILL" : signal;
      done({
        exitCode: killedGroup ? null : exitCode,
        signal: sig,
        stdout: Buffer.concat(chunks.stdout),
        stderr: Buffer.concat(chunks.stderr),
        rawOverflow,
        timedOut,
        spawnError,
        cleanup,
        durationMs: performance.now() - started,
      });
    };

    let proc: ReturnType<typeof Bun.spawn>;
    try {
      proc = Bun.spawn([req.shell, ...shellArgs(req.shell, req.command)], {
        cwd: req.cwd,
        env: req.env as Record<string, string>,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        detached: process.platform !== "win32",
        windowsHide: true,
        windowsVerbatimArguments: process.platform === "win32",
      });
    } catch (e) {
      settle(null, null, (e as Error).message);
      return;
    }

    const cancelReaders = () => {
      for (const r of readers) void r.cancel().catch(() => {});
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      const r = terminateProcessTree(proc);
      killedGroup = r.killed;
      cleanup = r.diagnostic;
      timers.push(
        setTimeout(cancelReaders, STREAM_DESTROY_MS),
        setTimeout(() => {
          cancelReaders();
          proc.unref();
          settle(null, null);
        }, FORCE_SETTLE_MS),
      );
    };

    const capture = (stream: "stdout" | "stderr", chunk: Uint8Array) => {
      const remaining = maxBytes - bytes;
      if (remaining > 0) chunks[stream].push(chunk.length > remaining ? chunk.subarray(0, remaining) : chunk);
      bytes += chunk.length;
      if (bytes > maxBytes && !rawOverflow) {
        rawOverflow = true;
        stop();
      }
    };

    // Reading both pipes to their end is what "close" means: every descendant that
    // inherited them has exited or closed them.
    const pump = async (stream: "stdout" | "stderr", body: ReadableStream<Uint8Array>) => {
      const reader = body.getReader();
      readers.push(reader);
      try {
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end) return;
          capture(stream, value);
        }
      } catch {
        // cancelled by the cleanup
      }
    };
    void Promise.all([
      pump("stdout", proc.stdout as ReadableStream<Uint8Array>),
      pump("stderr", proc.stderr as ReadableStream<Uint8Array>),
      proc.exited,
    ]).then(() => settle(proc.exitCode, proc.signalCode === null ? null : String(proc.signalCode)));
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, req.timeoutMs),
    );
  });
}
