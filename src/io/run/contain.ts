// Containment of one CHECK's whole process tree (issue 15). Three levels, best first:
//   cgroup  a cgroup v2 group per check, created under kbz's own group; the shell is born in it
//           (`spawnInGroup`); `cgroup.kill` ends every member, setsid daemons and nested kbz
//           runs included; removed afterwards.
//   pidns   a PID namespace (`unshare --pid --fork --kill-child`): when the shell, its init,
//           exits or is killed, the kernel kills everything else in it.
//   pgroup  the shell's process group only; a setsid descendant escapes (a warning says so).
//           On Windows: the shell's process tree, ended with the system's taskkill (taskkill.ts).
// The level is chosen once per process by what actually works here; KBZ_CONTAINMENT forces one
// (tests exercise each level). `kbz check --help` prints the level in force.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { windowsContainer } from "./taskkill.ts";
import type { Container } from "./container.ts";

export type { Container };
import { pidAlive } from "../lock.ts";
import { helperEnv, SYSTEM_SH, systemTool } from "./system.ts";

// Windows has the pgroup level's strength at best: its process tree, ended with taskkill (taskkill.ts).
const WINDOWS_DESCRIBE = "process tree per check (taskkill /t /f on Windows: no cgroups or PID namespaces)";
const WINDOWS_WARNING =
  "kbz: warning: on Windows a CHECK's processes are ended as a process tree (taskkill /t): a descendant whose parent already exited can outlive the check";

export type ContainmentLevel = "cgroup" | "pidns" | "pgroup";
const LEVELS: ContainmentLevel[] = ["cgroup", "pidns", "pgroup"];

export interface Containment {
  level: ContainmentLevel;
  /** One line for --help. */
  describe: string;
  /** Printed once before the first CHECK when the level lets daemons escape. */
  warning: string | null;
  /** The cgroup v2 directory new groups are created in (level cgroup). */
  parent: string | null;
  /** Level cgroup: kbz may step into a check's group to spawn it there (see `spawnInGroup`). */
  selfMove?: boolean;
  /** The unshare argv prefix (level pidns). */
  unshare: string[] | null;
}

/** The cgroup v2 directory of this process, from /proc/self/mountinfo and /proc/self/cgroup. */
export function ownCgroupDir(mountinfo: string, cgroup: string): string | null {
  const line = cgroup.split("\n").find((l) => l.startsWith("0::"));
  if (!line) return null;
  const own = line.slice(3);
  for (const entry of mountinfo.split("\n")) {
    const sep = entry.indexOf(" - ");
    if (sep < 0 || !entry.slice(sep + 3).startsWith("cgroup2 ")) continue;
    const fields = entry.slice(0, sep).split(" ");
    const mountRoot = unescapeMount(fields[3] ?? "");
    const mountPoint = unescapeMount(fields[4] ?? "");
    // A mount of a sub-tree (a container's view) holds only the groups below its root.
    if (mountRoot !== "/" && own !== mountRoot && !own.startsWith(mountRoot + "/")) continue;
    const rel = mountRoot === "/" ? own : own.slice(mountRoot.length);
    return path.join(mountPoint, rel).replace(/(.)\/+$/, "$1");
  }
  return null;
}

const unescapeMount = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

let seq = 0;
// A group is named with its creator's PID namespace and pid: a pid means nothing outside its
// namespace, and a kbz in another namespace (a person's `unshare --pid`, a container) must never
// take a live kbz's group for a dead one's and kill its CHECK.
const PIDNS = (() => {
  try {
    return /\[(\d+)\]/.exec(fs.readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
})();
const groupName = () => `kbz-${PIDNS}-${process.pid}-${++seq}`;

/**
 * Can we create a group here, move a process into it and kill it? Tried once, for real:
 * null when not; else whether kbz itself can step into a group and back (`spawnInGroup`).
 */
function cgroupUsable(parent: string): { selfMove: boolean } | null {
  const dir = path.join(parent, `kbz-${PIDNS}-${process.pid}-probe`);
  try {
    fs.mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    if (!fs.existsSync(path.join(dir, "cgroup.kill"))) return null;
    if (joinGroup(dir)) {
      if (joinGroup(parent)) return { selfMove: true };
      // Cannot get back: this process must not stay in a group that is about to be killed.
      stuckInGroup(dir, parent);
    }
    const r = spawnSync(
      SYSTEM_SH,
      ["-c", 'echo 0 > "$1" && exec true', "kbz-contain", path.join(dir, "cgroup.procs")],
      { stdio: "ignore", env: helperEnv() },
    );
    return r.status === 0 ? { selfMove: false } : null;
  } finally {
    removeSoon(dir);
  }
}

/** Move this whole process (all its threads) into the group `dir`; false when refused. */
function joinGroup(dir: string): boolean {
  try {
    fs.writeFileSync(path.join(dir, "cgroup.procs"), "0");
    return true;
  } catch {
    return false;
  }
}

/**
 * kbz stepped into `dir` and cannot step back to `parent` (the probe proved the round trip,
 * so nothing known causes this). Ending the check's tree now ends kbz too; say so first.
 */
function stuckInGroup(dir: string, parent: string): never {
  try {
    fs.writeSync(
      2,
      `kbz: error: could not move kbz back from the CHECK's cgroup ${dir} to ${parent}; ending the check and kbz with it\n`,
    );
  } catch {}
  fs.writeFileSync(path.join(dir, "cgroup.kill"), "1");
  process.exit(2); // not reached: cgroup.kill ended this process
}

/** Remove a group whose members are exiting: the kernel empties it a moment after the reap. */
function removeSoon(dir: string): void {
  for (let i = 0; i < 200 && !removeGroupTree(dir); i++) {
    try {
      fs.writeFileSync(path.join(dir, "cgroup.kill"), "1");
    } catch {}
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  }
}

const OURS = /^kbz-(\d+)-(\d+)-(\d+|probe)$/;

/**
 * Groups left by a kbz that was killed (SIGKILL cannot be caught): their creator's pid is gone.
 * Whatever still runs in them is a check nobody will wait for; it is killed and the group removed.
 */
function sweepDeadGroups(parent: string): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = OURS.exec(name);
    // Only groups made in this PID namespace can be judged by pid (see PIDNS).
    if (!m || m[1] !== PIDNS || Number(m[2]) === process.pid || pidAlive(Number(m[2]))) continue;
    removeSoon(path.join(parent, name));
  }
}

/** The system's unshare by absolute path (system.ts, issue 42 item 1), never one on the CHECK's PATH. */
function unshareUsable(): string[] | null {
  const unshare = systemTool("unshare");
  if (!unshare) return null;
  for (const prefix of [
    [unshare, "--pid", "--fork", "--kill-child"],
    [unshare, "--user", "--map-root-user", "--pid", "--fork", "--kill-child"],
  ]) {
    const r = spawnSync(prefix[0]!, [...prefix.slice(1), "/bin/true"], { stdio: "ignore", env: helperEnv() });
    if (r.status === 0) return prefix;
  }
  return null;
}

let detected: Containment | null = null;

/** The level in force for this process (KBZ_CONTAINMENT=cgroup|pidns|pgroup starts lower). */
export function containment(env: Record<string, string | undefined> = process.env): Containment {
  if (detected) return detected;
  const forced = env.KBZ_CONTAINMENT as ContainmentLevel | undefined;
  return (detected = detectContainment(forced && LEVELS.includes(forced) ? forced : "cgroup"));
}

/** The best level at or below `from` that works here (tried for real, not cached). */
export function detectContainment(from: ContainmentLevel = "cgroup"): Containment {
  for (const level of LEVELS.slice(LEVELS.indexOf(from))) {
    if (process.platform !== "linux" && level !== "pgroup") continue;
    if (level === "cgroup") {
      let parent: string | null = null;
      try {
        parent = ownCgroupDir(
          fs.readFileSync("/proc/self/mountinfo", "utf8"),
          fs.readFileSync("/proc/self/cgroup", "utf8"),
        );
      } catch {}
      const usable = parent ? cgroupUsable(parent) : null;
      if (parent && usable) {
        sweepDeadGroups(parent);
        return {
          level,
          parent,
          selfMove: usable.selfMove,
          unshare: null,
          warning: null,
          describe: `cgroup v2 per check under ${parent} (cgroup.kill ends the whole tree)`,
        };
      }
    } else if (level === "pidns") {
      const unshare = unshareUsable();
      if (unshare) {
        return {
          level,
          parent: null,
          unshare,
          warning: null,
          describe: `PID namespace per check (${unshare.join(" ")}): the tree ends with its shell`,
        };
      }
    } else if (process.platform === "win32") {
      return { level, parent: null, unshare: null, describe: WINDOWS_DESCRIBE, warning: WINDOWS_WARNING };
    } else {
      return {
        level,
        parent: null,
        unshare: null,
        describe: "process group per check only (no writable cgroup v2, no PID namespace)",
        warning:
          "kbz: warning: CHECK processes are contained by process group only: a setsid or daemonized descendant can outlive the check (no writable cgroup v2 and no PID namespace here)",
      };
    }
  }
  throw new Error("unreachable: pgroup is always available");
}

const RELEASE_BOUND_MS = 2000;
const POLL_MS = 5;
const pause = () => new Promise((r) => setTimeout(r, POLL_MS));

function killGroup(pid: number | undefined): void {
  if (!pid || pid <= 0 || process.platform === "win32") return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {}
}

/** Wait until `done()` or the bound; each round may push again. */
async function until(done: () => boolean, push: () => void): Promise<void> {
  const deadline = Date.now() + RELEASE_BOUND_MS;
  while (!done() && Date.now() < deadline) {
    push();
    await pause();
  }
}

/**
 * `p`, or the bound if it comes first. The bound's timer is cleared as soon as `p` settles: a
 * pending timer keeps the event loop alive, and kbz would sit idle for up to RELEASE_BOUND_MS
 * after its last check before it could exit.
 */
function bounded(p: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((r) => (timer = setTimeout(r, RELEASE_BOUND_MS)));
  return Promise.race([
    p.then(
      () => {},
      () => {},
    ),
    bound,
  ]).finally(() => clearTimeout(timer));
}

export function contain(argv: string[], c: Containment = containment()): Container {
  if (process.platform === "win32") return windowsContainer(argv);
  if (c.level === "cgroup") {
    const dir = path.join(c.parent!, groupName());
    try {
      fs.mkdirSync(dir);
    } catch {
      return contain(argv, { ...c, level: "pgroup" });
    }
    const killAll = () => {
      try {
        fs.writeFileSync(path.join(dir, "cgroup.kill"), "1");
      } catch {}
    };
    // The wrapper moves itself into the group, then becomes the shell: nothing the check
    // starts can run outside the group. Used when kbz cannot step into the group itself.
    const wrapped = [
      "/bin/sh",
      "-c",
      'echo 0 > "$1" && shift && exec "$@"',
      "kbz-contain",
      path.join(dir, "cgroup.procs"),
      ...argv,
    ];
    return {
      start: (spawn) => (c.selfMove ? spawnInGroup(dir, c.parent!, argv, wrapped, spawn) : spawn(wrapped)),
      kill: (pid) => {
        killAll();
        killGroup(pid);
      },
      release: async (pid) => {
        killAll();
        killGroup(pid);
        // rmdir succeeds only once the group (and every nested kbz group) is empty.
        await until(() => removeGroupTree(dir), killAll);
      },
      watch: () => `cg ${dir}`,
    };
  }
  if (c.level === "pidns") {
    // Kill the namespace's init (unshare's child), not unshare: init exits only after the
    // kernel has killed everything else in the namespace, and unshare exits after init, so
    // the leader's reaping proves the tree gone. --kill-child covers kbz itself dying.
    const killInit = (pid: number | undefined) => {
      let children: number[] = [];
      try {
        children = fs
          .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {}
      for (const child of children) {
        try {
          process.kill(child, "SIGKILL");
        } catch {}
      }
      if (children.length === 0) killGroup(pid);
    };
    return {
      start: (spawn) => spawn([...c.unshare!, ...argv]),
      kill: killInit,
      release: async (pid, exited) => {
        killInit(pid);
        await bounded(exited);
      },
      watch: (pid) => (pid ? `pg ${pid}` : null),
    };
  }
  // The group's killed members are not waited for: their zombies may never be reaped by a
  // pid 1 that is not a real init (this VM's), so "group empty" is no proof here.
  return {
    start: (spawn) => spawn(argv),
    kill: killGroup,
    release: async (pid, exited) => {
      killGroup(pid);
      await bounded(exited);
    },
    watch: (pid) => (pid ? `pg ${pid}` : null),
  };
}

/**
 * Speed trick (the only one here): spawn the check with kbz itself standing in its group, so
 * the shell is born in the group and no wrapper shell has to move itself there first. That
 * wrapper was one more exec per check (about 0.7 ms wall and its CPU on this machine, more
 * than the group itself costs). A child joins its parent's group at fork, so the tree is in
 * the group from its first instruction, as with the wrapper. kbz is in the group only while
 * `spawn` runs, which is synchronous: no timer, and so no kill of this group, can run before
 * kbz has stepped back to `parent`. Stepping in can be refused (the wrapper is used instead);
 * stepping back was proven by the detection probe, and if it ever fails kbz ends with the check
 * (`stuckInGroup`) rather than stay in a group that is about to be killed.
 */
function spawnInGroup<T>(
  dir: string,
  parent: string,
  argv: string[],
  wrapped: string[],
  spawn: (argv: string[]) => T,
): T {
  if (!joinGroup(dir)) return spawn(wrapped);
  try {
    return spawn(argv);
  } finally {
    if (!joinGroup(parent) && !joinGroup(parent)) stuckInGroup(dir, parent);
  }
}

/** Remove a group and the groups nested kbz runs left in it; true when it is gone. */
function removeGroupTree(dir: string): boolean {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT";
  }
  for (const e of entries) if (e.isDirectory()) removeGroupTree(path.join(dir, e.name));
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT";
  }
}
