// Nothing outlives kbz (issue 28 item 4). Two halves:
//   - a signal (SIGINT, SIGTERM, SIGHUP) to a kbz that runs checks kills every check it started
//     and exits at once (128 + the signal's number); the dashboard calls `killAllChecks()` on quit;
//   - a SIGKILL cannot be caught, so the first check a kbz process starts also starts a watchdog:
//     a small /bin/sh in a session of its own that reads a pipe from kbz. kbz writes one line per
//     running check (`+cg <group dir>` or `+pg <leader pid>`) and one when it ended (`-cg`, `-pg`).
//     When kbz dies, by any means, the kernel closes the pipe; the watchdog reads end-of-file and
//     kills what is still listed (cgroup.kill, or the process group), then exits. A kbz that ends
//     normally has nothing listed, so the watchdog just exits. It ignores terminal signals: only
//     the pipe ends it.
import type { Subprocess } from "bun";
import { helperEnv, SYSTEM_SH } from "./system.ts";

const SCRIPT = `trap '' INT TERM HUP QUIT
set -f
cg=' '; pg=' '
while read -r op arg; do
  case $op in
    +cg) cg="$cg$arg ";;
    +pg) pg="$pg$arg ";;
    -cg) case $cg in *" $arg "*) cg="\${cg%%" $arg "*} \${cg#*" $arg "}";; esac;;
    -pg) case $pg in *" $arg "*) pg="\${pg%%" $arg "*} \${pg#*" $arg "}";; esac;;
  esac
done
for d in $cg; do [ -f "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill"; done 2>/dev/null
for p in $pg; do kill -9 "-$p"; done 2>/dev/null
exit 0`;

let dog: Subprocess<"pipe", "ignore", "ignore"> | null = null;
let failed = false;

function send(line: string): void {
  if (failed || process.platform === "win32") return;
  try {
    if (!dog) {
      dog = Bun.spawn([SYSTEM_SH, "-c", SCRIPT], {
        stdin: "pipe",
        stdout: "ignore",
        stderr: "ignore",
        detached: true,
        env: helperEnv(),
      });
      dog.unref();
    }
    dog.stdin.write(line + "\n");
    void dog.stdin.flush();
  } catch {
    failed = true; // no watchdog: signals are still handled; a SIGKILL leaves the later sweep
  }
}

interface Live {
  kill(): void;
}

const live = new Set<Live>();
let handlers = false;

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** Kill every check this process is running, now (synchronous). For signals and the dashboard's quit. */
export function killAllChecks(): number {
  const n = live.size;
  for (const c of live) {
    try {
      c.kill();
    } catch {}
  }
  return n;
}

function installHandlers(): void {
  if (handlers) return;
  handlers = true;
  for (const [sig, num] of Object.entries(SIGNALS)) {
    process.on(sig as NodeJS.Signals, () => {
      const n = killAllChecks();
      try {
        if (n > 0) process.stderr.write(`kbz: ${sig}: ended ${n} running check${n === 1 ? "" : "s"}\n`);
      } catch {}
      process.exit(128 + num);
    });
  }
}

/**
 * A check started: watch it until `done` is called. `line` is the container's watch token
 * (`cg <dir>` or `pg <pid>`), `kill` ends its whole tree.
 */
export function watchCheck(line: string | null, kill: () => void): () => void {
  installHandlers();
  const entry: Live = { kill };
  live.add(entry);
  if (line) send(`+${line}`);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    live.delete(entry);
    if (line) send(`-${line}`);
  };
}
