// The CHECK sandbox (issue 15, issue 28): bubblewrap, the engine Flatpak and agent hosts use. No
// network (a network namespace of its own), the whole filesystem read-only except the repository
// and the declared writable paths, a private /tmp, $HOME an empty directory, and a PID namespace
// that dies with kbz. Since issue 28 also what root cannot undo: no capability at all (and, for
// root, a user namespace of its own), every git directory inside a writable path read-only (a
// CHECK cannot plant an fsmonitor or a hook that runs outside), and a fresh empty /run, /var/run
// and $XDG_RUNTIME_DIR (host unix sockets live there; connect() works on a read-only mount).
// The profile is plain data: it is bound into the approval oracle, so a changed profile needs a
// new approval, and the argv is derived from it alone.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import type { Env } from "./shell.ts";
import { helperEnv, SYSTEM_DIRS, systemTool } from "./system.ts";

export type { SandboxProfile };
import { sandboxLine, type SandboxProfile } from "../../core/run/show.ts";
export { sandboxLine };

export const BWRAP_INSTALL_HINT =
  "install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)";

/**
 * The system's bwrap (system.ts: a fixed list of root-owned folders, never the CHECK's PATH,
 * issue 42 item 1); a usage error saying how to install it.
 */
export function resolveBwrap(_env?: Env): string {
  const bwrap = systemTool("bwrap");
  if (bwrap) return bwrap;
  throw new UsageError(
    `the sandbox was requested but bubblewrap (bwrap) is not installed in ${SYSTEM_DIRS.join(", ")} (owned by root); ${BWRAP_INSTALL_HINT}; kbz never runs a CHECK unsandboxed when the sandbox was asked for`,
  );
}

/** Real path of a writable entry; it must exist (bwrap binds existing paths only). */
function writableReal(root: string, p: string, origin: string): string {
  const abs = path.resolve(root, p);
  try {
    return fs.realpathSync(abs);
  } catch {
    throw new UsageError(`${origin}: sandbox writable path does not exist: ${abs}`);
  }
}

/** The host's system folders a sandboxed CHECK reads (those that exist; a link is recreated as a link). */
export const SYSTEM_READABLE = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;
/** Host folders a sandboxed CHECK sees empty: host state, services' data and every user's home. */
export const EMPTY_DIRS = ["/home", "/media", "/mnt", "/root", "/srv", "/var"] as const;

/**
 * What the sandbox shows of the host, read-only (issue 42 item 3): the system folders, the
 * CHECK's PATH folders (absolute, existing, real, not inside a writable path: what the approved
 * PATH runs) and the settings' `"readable"` paths (absolute; missing ones are left out).
 */
function readablePaths(env: Env, writable: string[], extra: string[]): string[] {
  const out = new Set<string>();
  for (const d of SYSTEM_READABLE) if (fs.existsSync(d)) out.add(d);
  const more = [...(env.PATH ?? "").split(path.delimiter), ...extra].filter((d) => path.isAbsolute(d));
  for (const d of more) {
    const real = realOrNull(d);
    if (!real || real === "/" || writable.some((w) => inside(w, real))) continue;
    if ([...SYSTEM_READABLE].some((s) => inside(s, real))) continue;
    out.add(real);
  }
  return [...out].sort();
}

export function sandboxProfile(
  bwrap: string,
  root: string,
  writable: { path: string; origin: string }[],
  home: string,
  env: Env = {},
  readable: string[] = [],
): SandboxProfile {
  const realRoot = fs.realpathSync(root);
  const extra = [...new Set(writable.map((w) => writableReal(root, w.path, w.origin)))]
    .filter((w) => w !== realRoot)
    .sort();
  const all = [realRoot, ...extra];
  return {
    engine: bwrap,
    network: "none",
    home,
    tmp: "private",
    pid: "private",
    writable: all,
    capabilities: "none",
    readOnly: gitDirsIn(all),
    emptied: socketDirs(env),
    ...noGitAt(realRoot, all),
    readable: readablePaths(env, all, readable),
    empty: [...EMPTY_DIRS],
  };
}

/**
 * Issue 42 item 2: the `.git` paths git would look for from the repository (the root, then each
 * folder above it, up to the first that has one) that are missing and sit in a writable path. A
 * CHECK could make a repository there, with filters and settings kbz's own git would then read;
 * the sandbox covers each with a read-only empty file. bwrap makes that file on the host as its
 * mount point; `releaseNoGit` removes it after the run (and a killed run's is removed here, the
 * next time a profile is made: an empty regular `.git` file is never git's).
 */
function noGitAt(realRoot: string, writable: string[]): { noGit?: string[] } {
  const out: string[] = [];
  for (let d = realRoot; ; d = path.dirname(d)) {
    const dotGit = path.join(d, ".git");
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(dotGit);
    } catch {}
    if (st?.isFile() && st.size === 0 && !mountPoints.has(dotGit)) {
      fs.rmSync(dotGit, { force: true });
      st = null;
    }
    if (st) break;
    if (writable.some((w) => inside(w, d))) out.push(dotGit);
    if (d === path.dirname(d)) break;
  }
  return out.length > 0 ? { noGit: out.sort() } : {};
}

/** Mount points bwrap made for `noGit` and how many running checks of this process use each. */
const mountPoints = new Map<string, number>();

/** Before a run: count the profile's `noGit` mount points as in use. */
export function holdNoGit(p: SandboxProfile): void {
  for (const g of p.noGit ?? []) mountPoints.set(g, (mountPoints.get(g) ?? 0) + 1);
}

/**
 * After a run: remove each `noGit` mount point bwrap left on the host once no running check of
 * this process uses it (an empty regular file only: anything else was not bwrap's).
 */
export function releaseNoGit(p: SandboxProfile): void {
  for (const g of p.noGit ?? []) {
    const n = (mountPoints.get(g) ?? 1) - 1;
    if (n > 0) {
      mountPoints.set(g, n);
      continue;
    }
    mountPoints.delete(g);
    try {
      const st = fs.lstatSync(g);
      if (st.isFile() && st.size === 0) fs.rmSync(g, { force: true });
    } catch {}
  }
}

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : parent + "/");

const realOrNull = (p: string): string | null => {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
};

/**
 * The git directories a CHECK could write through a writable path: the repository's `.git` (or
 * the `.git` of the folder a writable path sits in), a worktree's gitdir and its common dir.
 * Those outside every writable path are read-only anyway.
 */
export function gitDirsIn(writable: string[]): string[] {
  const found = new Set<string>();
  const addGit = (dotGit: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dotGit);
    } catch {
      return false;
    }
    if (st.isDirectory()) {
      const r = realOrNull(dotGit);
      if (r) found.add(r);
      return true;
    }
    if (!st.isFile() || st.size > 4096) return false;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, "utf8"));
    const gitdir = m ? realOrNull(path.resolve(path.dirname(dotGit), m[1]!)) : null;
    if (!gitdir) return true;
    found.add(gitdir);
    try {
      const common = realOrNull(path.resolve(gitdir, fs.readFileSync(path.join(gitdir, "commondir"), "utf8").trim()));
      if (common) found.add(common);
    } catch {}
    return true;
  };
  for (const w of writable) {
    for (let d = w; ; d = path.dirname(d)) {
      if (addGit(path.join(d, ".git")) || d === path.dirname(d)) break;
    }
  }
  return [...found].filter((g) => writable.some((w) => inside(w, g) || inside(g, w))).sort();
}

/** Where host unix sockets live: replaced by an empty tmpfs inside the sandbox. */
export function socketDirs(env: Env): string[] {
  const dirs = ["/run", "/var/run", "/var/lock", env.XDG_RUNTIME_DIR].filter(
    (d): d is string => !!d && path.isAbsolute(d),
  );
  const real = dirs.map((d) => realOrNull(d)).filter((d): d is string => d !== null && d !== "/");
  const dirsOnly = [...new Set(real)].filter((d) => fs.statSync(d).isDirectory());
  return dirsOnly.filter((d) => !dirsOnly.some((e) => e !== d && inside(e, d))).sort();
}

/** The bwrap argv (before the shell) for a profile. Mount order matters: later mounts cover earlier. */
export function bwrapArgv(p: SandboxProfile): string[] {
  const a = [p.engine, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--new-session"];
  if (p.capabilities === "none") {
    // Root keeps every capability in bwrap unless told; a user namespace of its own makes what
    // is left (uid 0) powerless over the host's mounts. Other users get one from bwrap anyway.
    if (process.getuid?.() === 0) a.push("--unshare-user");
    a.push("--cap-drop", "ALL");
  }
  const fresh = p.readable !== undefined;
  if (!fresh) a.push("--ro-bind", "/", "/");
  else {
    // Issue 42 item 3: a fresh root (bwrap's tmpfs, made read-only last) with only the system's
    // folders; a host link (/bin -> usr/bin) is made again as the same link.
    for (const d of SYSTEM_READABLE) {
      if (!p.readable!.includes(d)) continue;
      let link: string | null = null;
      try {
        link = fs.lstatSync(d).isSymbolicLink() ? fs.readlinkSync(d) : null;
      } catch {}
      if (link !== null) a.push("--symlink", link, d);
      else a.push("--ro-bind", d, d);
    }
  }
  a.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const d of p.empty ?? []) a.push("--dir", d);
  for (const d of p.emptied ?? []) a.push("--tmpfs", d);
  // An empty $HOME; bwrap recreates the way to a writable path inside it (a repository under
  // $HOME stays visible). A $HOME inside a writable path is emptied after the binds instead.
  const homeInWritable = p.writable.some((w) => inside(w, p.home));
  if (p.home !== "/" && !homeInWritable) a.push("--tmpfs", p.home);
  // The PATH's and the settings' folders (the system's were bound first).
  for (const d of p.readable ?? []) if (!(SYSTEM_READABLE as readonly string[]).includes(d)) a.push("--ro-bind", d, d);
  for (const w of p.writable) a.push("--bind", w, w);
  if (p.home !== "/" && homeInWritable) a.push("--tmpfs", p.home);
  for (const g of p.readOnly ?? []) a.push("--ro-bind", g, g);
  for (const g of p.noGit ?? []) a.push("--ro-bind", "/dev/null", g);
  for (const h of p.hidden ?? []) {
    let dir = false;
    try {
      dir = fs.lstatSync(h).isDirectory();
    } catch {
      continue;
    }
    if (dir) a.push("--tmpfs", h);
    else a.push("--ro-bind", "/dev/null", h);
  }
  if (fresh) a.push("--remount-ro", "/");
  a.push("--setenv", "TMPDIR", "/tmp", "--");
  return a;
}

/**
 * How kbz starts bwrap for a profile (issue 42 item 1): bwrap and whatever wraps it run with
 * kbz's minimal environment (system.ts `helperEnv`), and the CHECK's variables travel with the
 * options in a file descriptor (`--args 3`): `--clearenv`, then one `--setenv` per variable. So
 * no variable of the CHECK (an `ENV: LD_PRELOAD` the probe runs before any approval) reaches a
 * program outside the sandbox, and no value shows in bwrap's argv (`ps`).
 */
export function sandboxLaunch(
  p: SandboxProfile,
  checkEnv: Env,
): { argv: string[]; args: Buffer; env: Record<string, string> } {
  const opts = bwrapArgv(p);
  const fdArgs = ["--clearenv"];
  for (const [k, v] of Object.entries(checkEnv)) if (v !== undefined && k !== "TMPDIR") fdArgs.push("--setenv", k, v);
  fdArgs.push(...opts.slice(1, -1));
  return {
    argv: [opts[0]!, "--args", "3", "--"],
    args: Buffer.from(fdArgs.map((a) => a + "\0").join("")),
    env: helperEnv(),
  };
}

let usable: { ok: boolean; why: string } | null = null;

/** Whether bwrap can build a sandbox here at all (tests skip with this reason, never in CI). */
export function bwrapUsable(env: Env = process.env): { ok: boolean; why: string } {
  if (usable) return usable;
  let bwrap: string;
  try {
    bwrap = resolveBwrap(env);
  } catch (e) {
    return (usable = { ok: false, why: (e as Error).message });
  }
  const user = process.getuid?.() === 0 ? ["--unshare-user"] : [];
  const r = spawnSync(
    bwrap,
    [
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-net",
      ...user,
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "true",
    ],
    { encoding: "utf8", env: helperEnv() },
  );
  return (usable =
    r.status === 0
      ? { ok: true, why: "" }
      : { ok: false, why: `bwrap cannot create a sandbox here: ${(r.stderr || r.error?.message || "").trim()}` });
}
