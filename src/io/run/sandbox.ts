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

export type { SandboxProfile };
import { sandboxLine, type SandboxProfile } from "../../core/run/show.ts";
export { sandboxLine };

export const BWRAP_INSTALL_HINT =
  "install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)";

/** The bwrap on PATH; a usage error saying how to install it. */
export function resolveBwrap(env: Env): string {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const c of dirs.map((d) => path.join(d, "bwrap"))) {
    try {
      if (fs.statSync(c).isFile()) return c;
    } catch {}
  }
  throw new UsageError(
    `the sandbox was requested but bubblewrap (bwrap) is not installed; ${BWRAP_INSTALL_HINT}; kbz never runs a CHECK unsandboxed when the sandbox was asked for`,
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

export function sandboxProfile(
  bwrap: string,
  root: string,
  writable: { path: string; origin: string }[],
  home: string,
  env: Env = {},
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
  };
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
  a.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const d of p.emptied ?? []) a.push("--tmpfs", d);
  // An empty $HOME; bwrap recreates the way to a writable path inside it (a repository under
  // $HOME stays visible). A $HOME inside a writable path is emptied after the binds instead.
  const homeInWritable = p.writable.some((w) => inside(w, p.home));
  if (p.home !== "/" && !homeInWritable) a.push("--tmpfs", p.home);
  for (const w of p.writable) a.push("--bind", w, w);
  if (p.home !== "/" && homeInWritable) a.push("--tmpfs", p.home);
  for (const g of p.readOnly ?? []) a.push("--ro-bind", g, g);
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
  a.push("--setenv", "TMPDIR", "/tmp", "--");
  return a;
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
    { encoding: "utf8" },
  );
  return (usable =
    r.status === 0
      ? { ok: true, why: "" }
      : { ok: false, why: `bwrap cannot create a sandbox here: ${(r.stderr || r.error?.message || "").trim()}` });
}
