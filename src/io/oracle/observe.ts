// What the CHECK's process tree reads and runs (issue 39; docs/checks.md#oracle). On Linux with
// strace, kbz runs the CHECK under `strace -f -ff --seccomp-bpf` (the filter stops the tree only at
// the traced calls: open/openat/openat2, execve/execveat, chdir/fchdir and the forks) with every
// string hex-encoded (`-xx`, so no file name can forge a line) and file descriptors decorated with
// the real path they name (`-yy`). One trace file per process (`-ff`): no call is split across
// lines. A file counts when it was opened for reading (O_RDONLY or O_RDWR, not a directory) or
// executed, and its real path is inside the root.
//
// Tracing is opt-in for now: `KBZ_TRACER=strace` (found by absolute path in /usr/bin, /bin,
// /usr/local/bin, never on the caller's PATH) or `KBZ_TRACER=<abs path>`; without it the static
// closure stands in (the approval binds which one was in force, so switching is an oracle change).
// Why not by default: under `strace -f` the CHECK's run lasts until every traced descendant ends
// (a setsid or nohup child kept a passing CHECK alive to its timeout), and a CHECK that traces
// (a nested kbz, a debugger) cannot ptrace under a tracer. A process that is itself traced never
// starts a tracer (TracerPid in /proc/self/status). A tracer that fails to start (no ptrace in a container) is said once
// and the CHECK runs untraced: the static closure stands in.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isInside } from "../../core/workspace/inside.ts";
import type { Env } from "../run/shell.ts";

export type Observer = { kind: "strace"; path: string } | { kind: "static"; why: string };

const CANDIDATES = ["/usr/bin/strace", "/bin/strace", "/usr/local/bin/strace"];

function executableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether this process is being traced (a tracer cannot trace it again). */
function traced(): boolean {
  try {
    const m = /^TracerPid:\s*(\d+)/m.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return m !== null && m[1] !== "0";
  } catch {
    return false;
  }
}

/** Which observer is in force for `env`: strace when one is installed, else the static closure (with why). */
export function observerFor(env: Env): Observer {
  const asked = env.KBZ_TRACER;
  if (asked === "off" || asked === "0" || asked === "static") return { kind: "static", why: `KBZ_TRACER=${asked}` };
  if (process.platform !== "linux") return { kind: "static", why: `no tracer on ${process.platform}` };
  if (!asked) return { kind: "static", why: "tracing is opt-in: KBZ_TRACER=strace" };
  if (traced()) return { kind: "static", why: "kbz itself runs under a tracer" };
  if (asked !== "strace") {
    if (!path.isAbsolute(asked)) return { kind: "static", why: `KBZ_TRACER must be an absolute path (got ${asked})` };
    return executableFile(asked)
      ? { kind: "strace", path: asked }
      : { kind: "static", why: `KBZ_TRACER ${asked} is not an executable file` };
  }
  for (const c of CANDIDATES) if (executableFile(c)) return { kind: "strace", path: c };
  return { kind: "static", why: "strace is not installed (apt-get install strace)" };
}

/** One line for `kbz check` and `kbz doctor`: which observer binds the oracle. */
export function observerLine(o: Observer): string {
  return o.kind === "strace"
    ? `strace -f (${o.path}): what the CHECK's process tree opens and runs`
    : `static closure (${o.why})`;
}

const TRACED = "trace=?open,openat,?openat2,execve,?execveat,chdir,fchdir,?clone,?clone3,?fork,?vfork";

/** A traced run's files: a temporary folder for the per-process traces. */
export interface TraceRun {
  dir: string;
  prefix: string[];
}

/** The argv placed before the shell to trace a run, and where its traces go. */
export function startTrace(tracer: string): TraceRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-trace-"));
  return {
    dir,
    prefix: [
      tracer,
      "-f",
      "-ff",
      "-qq",
      "--seccomp-bpf",
      "-yy",
      "-xx",
      "-s",
      "1",
      "-e",
      TRACED,
      "-e",
      "signal=none",
      "-o",
      path.join(dir, "t"),
      "--",
    ],
  };
}

export interface Observed {
  /** Real paths of regular files opened for reading, inside the root. */
  read: string[];
  /** Real paths of programs executed (inside the root or not). */
  ran: string[];
}

const HEX = /\\x([0-9a-f]{2})/g;
function unhex(s: string): string {
  return Buffer.from(s.replace(HEX, "$1"), "hex").toString("utf8");
}

const LINE = /^(open|openat|openat2|execve|execveat|chdir|fchdir|clone|clone3|fork|vfork)\((.*)\)\s+=\s+(.*)$/;
const FIRST_STRING = /"((?:\\x[0-9a-f]{2})*)"/;
const FD_PATH = /<((?:\\x[0-9a-f]{2})+)>/;

/**
 * Read a finished run's traces (null when the tracer wrote none: it failed to start) and remove
 * them. `cwd` is where the CHECK started.
 */
export function finishTrace(run: TraceRun, root: string, cwd: string): Observed | null {
  let names: string[] = [];
  try {
    names = fs.readdirSync(run.dir).filter((n) => /^t\.\d+$/.test(n));
  } catch {}
  if (names.length === 0) {
    fs.rmSync(run.dir, { recursive: true, force: true });
    return null;
  }
  const read = new Set<string>();
  const ran = new Set<string>();
  const byPid = new Map<number, string[]>();
  for (const n of names) {
    try {
      byPid.set(Number(n.slice(2)), fs.readFileSync(path.join(run.dir, n), "utf8").split("\n"));
    } catch {}
  }
  fs.rmSync(run.dir, { recursive: true, force: true });
  // Each process starts in its parent's directory at the fork: walk from the first process down.
  const first = Math.min(...byPid.keys());
  const todo: [number, string][] = [[first, cwd]];
  const done = new Set<number>();
  const realIn = (p: string): string | null => {
    try {
      const real = fs.realpathSync(p);
      return fs.statSync(real).isFile() ? real : null;
    } catch {
      return null;
    }
  };
  while (todo.length > 0) {
    const [pid, start] = todo.pop()!;
    if (done.has(pid)) continue;
    done.add(pid);
    let dir = start;
    for (const line of byPid.get(pid) ?? []) {
      const m = LINE.exec(line);
      if (!m) continue;
      const [, call, args, result] = m as unknown as [string, string, string, string];
      const cwdDeco = /^AT_FDCWD<((?:\\x[0-9a-f]{2})+)>/.exec(args);
      if (cwdDeco) dir = unhex(cwdDeco[1]!);
      if (call === "clone" || call === "clone3" || call === "fork" || call === "vfork") {
        const child = Number(result.trim().split(/\s/)[0]);
        if (child > 0) todo.push([child, dir]);
        continue;
      }
      if (call === "chdir" || call === "fchdir") {
        if (!result.startsWith("0")) continue;
        if (call === "chdir") {
          const s = FIRST_STRING.exec(args);
          if (s) dir = path.resolve(dir, unhex(s[1]!));
        } else {
          const d = FD_PATH.exec(args);
          if (d) dir = unhex(d[1]!);
        }
        continue;
      }
      if (call === "execve" || call === "execveat") {
        if (!result.startsWith("0")) continue;
        const s = FIRST_STRING.exec(args);
        if (!s) continue;
        const real = realIn(path.resolve(dir, unhex(s[1]!)));
        if (real) {
          ran.add(real);
          if (isInside(root, real)) read.add(real);
        }
        continue;
      }
      // open/openat/openat2: the result names the real file when it succeeded.
      const fd = /^(\d+)<((?:\\x[0-9a-f]{2})+)>/.exec(result);
      if (!fd) continue;
      if (/O_WRONLY|O_DIRECTORY|O_PATH/.test(args)) continue;
      const real = unhex(fd[2]!);
      if (!isInside(root, real)) continue;
      try {
        if (!fs.statSync(real).isFile()) continue;
      } catch {
        continue;
      }
      read.add(real);
    }
  }
  return { read: [...read].sort(), ran: [...ran].sort() };
}
