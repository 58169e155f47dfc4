// Run the binary as root and as another user (issue 42: items 1 and 2 hold for both). The user is
// made for the test with useradd and removed after it (userdel); where the machine cannot make one
// (not root, no useradd, no setpriv) `otherUser()` says why and the test is skipped with that reason.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { track } from "./tmp.ts";

export interface Runner {
  /** "root" or the user's name. */
  who: string;
  uid: number;
  gid: number;
  /** A fresh folder this runner owns (outside the run's private TMPDIR, which only root may enter). */
  dir(prefix?: string): string;
  /** Run argv with exactly `env`, as this runner. */
  run(
    argv: string[],
    opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
  ): { code: number; stdout: string; stderr: string };
}

function runnerFor(who: string, uid: number, gid: number, wrap: string[]): Runner {
  return {
    who,
    uid,
    gid,
    dir: (prefix = "kbz-as-") => {
      const d = track(fs.realpathSync(fs.mkdtempSync(path.join("/tmp", prefix))));
      fs.chownSync(d, uid, gid);
      return d;
    },
    run: (argv, opts) => {
      const r = spawnSync(wrap[0] ?? argv[0]!, [...wrap.slice(1), ...(wrap.length ? argv : argv.slice(1))], {
        cwd: opts.cwd,
        env: opts.env,
        encoding: "utf8",
        timeout: opts.timeoutMs ?? 60_000,
      });
      if (r.error) throw r.error;
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

export const asRoot = (): Runner | string =>
  process.getuid?.() === 0 ? runnerFor("root", 0, 0, []) : "the tests do not run as root";

/** A user made for this test (removed by the returned `drop`), or why none can be made here. */
export function otherUser(): { runner: Runner; drop(): void } | string {
  if (process.getuid?.() !== 0) return "making a user needs root (useradd)";
  for (const tool of ["/usr/sbin/useradd", "/usr/sbin/userdel", "/usr/bin/setpriv"])
    if (!fs.existsSync(tool)) return `${tool} is missing`;
  const name = `kbzt${process.pid % 100000}${Math.floor(Math.random() * 1000)}`;
  const made = spawnSync("/usr/sbin/useradd", ["-M", "-N", "-d", "/nonexistent", "-s", "/bin/sh", name], {
    encoding: "utf8",
  });
  if (made.status !== 0) return `useradd failed: ${made.stderr.trim()}`;
  const id = (flag: string) => Number(spawnSync("/usr/bin/id", [flag, name], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  const runner = runnerFor(name, uid, gid, [
    "/usr/bin/setpriv",
    `--reuid=${uid}`,
    `--regid=${gid}`,
    "--clear-groups",
    "--",
  ]);
  return { runner, drop: () => void spawnSync("/usr/sbin/userdel", ["-f", name], { stdio: "ignore" }) };
}
