// The CHECK sandbox (issue 15): bubblewrap, the engine Flatpak and agent hosts use. No network
// (a network namespace of its own), the whole filesystem read-only except the repository and the
// declared writable paths, a private /tmp, $HOME an empty directory, and a PID namespace that
// dies with kbz. The profile is plain data: it is bound into the approval oracle, so a changed
// profile needs a new approval, and the argv is derived from it alone.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import type { Env } from "./shell.ts";

export interface SandboxProfile {
  engine: string; // the resolved bwrap
  network: "none";
  home: string; // replaced by an empty directory
  tmp: "private";
  pid: "private";
  /** Real paths that stay writable: the repository first, then the declared ones, sorted. */
  writable: string[];
  /** Paths replaced by empty directories or removed (the vacuity probe, issue 18). */
  hidden?: string[];
}

export const BWRAP_INSTALL_HINT = "install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)";

/** The bwrap on PATH; a usage error saying how to install it. */
export function resolveBwrap(env: Env): string {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const c of dirs.map((d) => path.join(d, "bwrap"))) {
    try {
      if (fs.statSync(c).isFile()) return c;
    } catch {}
  }
  throw new UsageError(`the sandbox was requested but bubblewrap (bwrap) is not installed; ${BWRAP_INSTALL_HINT}; kbz never runs a CHECK unsandboxed when the sandbox was asked for`);
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

export function sandboxProfile(bwrap: string, root: string, writable: { path: string; origin: string }[], home: string): SandboxProfile {
  const realRoot = fs.realpathSync(root);
  const extra = [...new Set(writable.map((w) => writableReal(root, w.path, w.origin)))].filter((w) => w !== realRoot).sort();
  return { engine: bwrap, network: "none", home, tmp: "private", pid: "private", writable: [realRoot, ...extra] };
}

const inside = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith("/") ? parent : parent + "/");

/** The bwrap argv (before the shell) for a profile. Mount order matters: later mounts cover earlier. */
export function bwrapArgv(p: SandboxProfile): string[] {
  const a = [p.engine, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--new-session"];
  a.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // An empty $HOME; bwrap recreates the way to a writable path inside it (a repository under
  // $HOME stays visible). A $HOME inside a writable path is emptied after the binds instead.
  const homeInWritable = p.writable.some((w) => inside(w, p.home));
  if (p.home !== "/" && !homeInWritable) a.push("--tmpfs", p.home);
  for (const w of p.writable) a.push("--bind", w, w);
  if (p.home !== "/" && homeInWritable) a.push("--tmpfs", p.home);
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
  const r = spawnSync(bwrap, ["--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], { encoding: "utf8" });
  return (usable = r.status === 0 ? { ok: true, why: "" } : { ok: false, why: `bwrap cannot create a sandbox here: ${(r.stderr || r.error?.message || "").trim()}` });
}

/** One line for an approval prompt: what the sandbox allows and hides. */
export function sandboxLine(p: SandboxProfile): string {
  const hidden = p.hidden && p.hidden.length > 0 ? `; hidden: ${p.hidden.join(", ")}` : "";
  return `bwrap (${p.engine}); no network; writable: ${p.writable.join(", ")}; private /tmp; empty ${p.home}${hidden}`;
}
