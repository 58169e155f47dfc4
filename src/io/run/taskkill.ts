// Windows containment of one CHECK: no cgroups, PID namespaces or process groups there, so a
// check's processes end with `taskkill /pid <shell> /t /f` (its process tree), as in the originals
// (docs/install.md#containment). Only the system's own taskkill is run: <SystemRoot>\System32\
// taskkill.exe when SystemRoot and WINDIR agree on <Drive>:\Windows and SystemDrive names that
// drive; never one found on PATH or in the working directory. Without it, or when it fails, the
// shell alone is killed. A descendant whose parent already exited has left the tree and can
// outlive the check: the containment warning says so. No watchdog either: a kbz killed outright
// (not by a signal it can handle) leaves its running check behind on Windows.
import { spawnSync } from "node:child_process";
import type { Container } from "./container.ts";

type Env = Record<string, string | undefined>;

function windowsDir(value: string | undefined): string | null {
  if (!value) return null;
  const v = value.replace(/\//g, "\\").replace(/\\+$/, "");
  return /^[A-Za-z]:\\Windows$/i.test(v) ? v : null;
}

/** The trusted taskkill.exe for this environment, or null. */
export function trustedTaskkill(env: Env): string | null {
  const get = (name: string) => env[Object.keys(env).find((k) => k.toUpperCase() === name) ?? name];
  const root = windowsDir(get("SYSTEMROOT"));
  const windir = windowsDir(get("WINDIR"));
  const drive = (get("SYSTEMDRIVE") ?? "").toUpperCase().replace(/[\\/]+$/, "");
  if (!root || !windir || root.toLowerCase() !== windir.toLowerCase()) return null;
  if (root.slice(0, 2).toUpperCase() !== drive) return null;
  return `${root}\\System32\\taskkill.exe`;
}

/** End `pid` and its descendants; a diagnostic when only the fallback (the shell alone) was tried. */
export function killTree(pid: number, env: Env = process.env, run = spawnSync, kill = process.kill): string | null {
  const taskkill = trustedTaskkill(env);
  let reason = "trusted system taskkill path unavailable";
  if (taskkill) {
    // A minimal environment (issue 42 item 1): the system folders only, nothing of the CHECK's.
    const root = taskkill.slice(0, -"\\System32\\taskkill.exe".length);
    const minimal = { SystemRoot: root, WINDIR: root, SystemDrive: root.slice(0, 2), PATH: `${root}\\System32` };
    const r = run(taskkill, ["/pid", String(pid), "/f", "/t"], {
      stdio: "ignore",
      windowsHide: true,
      timeout: 1000,
      killSignal: "SIGKILL",
      env: minimal,
    });
    if (!r.error && r.status === 0 && r.signal === null) return null;
    reason = r.error
      ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message)
      : r.signal
        ? `signal ${r.signal}`
        : `exit ${r.status}`;
  }
  try {
    kill(pid, "SIGKILL");
    return `taskkill failed (${reason}); child fallback requested`;
  } catch (e) {
    return `taskkill failed (${reason}); child fallback failed (${(e as Error).message})`;
  }
}

/** The Windows container: the tree is killed while the shell still runs (its PID cannot be reused yet). */
export function windowsContainer(argv: string[]): Container {
  let exited = false;
  const end = (pid: number | undefined) => {
    if (pid && pid > 0 && !exited) killTree(pid);
  };
  return {
    start: (spawn) => spawn(argv),
    kill: end,
    // The watchdog is a /bin/sh (POSIX only): a kbz killed outright on Windows leaves its check's tree.
    watch: () => null,
    release: async (pid, done) => {
      void done.then(() => (exited = true));
      // A settled leader is seen on the next turn; a running one is killed with its tree.
      await Promise.resolve();
      end(pid);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        done.then(
          () => {},
          () => {},
        ),
        new Promise<void>((r) => (timer = setTimeout(r, 2000))),
      ]).finally(() => clearTimeout(timer));
    },
  };
}
