// The probe's throwaway view (issue 28 item 12): the CHECK under probe sees the repository through
// an overlay mount whose upper layer is a temporary folder, in a mount namespace of its own, so
// whatever it writes, moves or deletes lands in that folder and is thrown away; the live tree is
// never touched. The overlay is mounted by a wrapper (`unshare -m`, for other users `unshare -Urm`)
// that then becomes bwrap. Where overlayfs in a mount namespace is not to be had, there is no view
// and the probe does not run (a warning, never a probe on the live tree).
// Issue 42 item 1: the wrapper's programs (unshare, /bin/sh, mount) are the system's, found by
// absolute path (system.ts), and run with kbz's minimal environment: a `mount` in a PATH folder
// inside the repository never runs. The view's folder is named with kbz's pid
// (`kbz-view-<pid>-…`): what a killed probe leaves, the next probe removes (sweepViews).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { pidAlive } from "../lock.ts";
import { helperEnv, SYSTEM_SH, systemTool } from "./system.ts";

/** The wrapper's script: `$0` the system's mount, then lower, upper, work, then what to become. */
const MOUNT = '"$0" -t overlay kbz-view -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" && shift 3 && exec "$@"';

export interface View {
  /** The argv placed before bwrap. */
  wrap: string[];
  /** Remove the upper layer (what the CHECK wrote). */
  dispose(): void;
}

/** The wrapper's argv before lower, upper and work: the system's unshare, sh and mount; null when one is missing. */
function wrapper(): string[] | null {
  const unshare = systemTool("unshare");
  const mount = systemTool("mount");
  return unshare && mount ? [unshare, ...unshareArgs(), SYSTEM_SH, "-c", MOUNT, mount] : null;
}

function unshareArgs(): string[] {
  return process.getuid?.() === 0 ? ["-m", "--propagation", "private"] : ["-Urm", "--propagation", "private"];
}

function removeTree(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // overlay's work folder is mode 000: make the tree removable first
    const open = (p: string) => {
      try {
        if (!fs.lstatSync(p).isDirectory()) return;
        fs.chmodSync(p, 0o700);
        for (const n of fs.readdirSync(p)) open(path.join(p, n));
      } catch {}
    };
    open(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const VIEW_PREFIX = "kbz-view-";

function layers(): { base: string; upper: string; work: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), `${VIEW_PREFIX}${process.pid}-`));
  const upper = path.join(base, "upper");
  const work = path.join(base, "work");
  fs.mkdirSync(upper);
  fs.mkdirSync(work);
  return { base, upper, work };
}

let usable: { ok: true } | { ok: false; why: string } | null = null;

/** Whether an overlay view can be made here (tried once, for real, on an empty folder). */
export function viewUsable(): { ok: true } | { ok: false; why: string } {
  if (usable) return usable;
  const wrap = wrapper();
  if (!wrap)
    return (usable = { ok: false, why: "unshare or mount (util-linux) is not installed in the system folders" });
  sweepViews();
  const l = layers();
  const lower = path.join(l.base, "lower");
  fs.mkdirSync(lower);
  try {
    const r = spawnSync(wrap[0]!, [...wrap.slice(1), lower, l.upper, l.work, "/bin/true"], {
      encoding: "utf8",
      env: helperEnv(),
    });
    usable =
      r.status === 0
        ? { ok: true }
        : {
            ok: false,
            why: `no overlay mount in a mount namespace here: ${(r.stderr || r.error?.message || "").trim()}`,
          };
  } finally {
    removeTree(l.base);
  }
  return usable;
}

/** A throwaway view of `root` (its real path), or null with `viewUsable().why`. */
export function throwawayView(root: string): View | null {
  if (!viewUsable().ok) return null;
  const l = layers();
  return {
    wrap: [...wrapper()!, root, l.upper, l.work],
    dispose: () => removeTree(l.base),
  };
}

/**
 * Remove the views (and the bwrap option files, spawn.ts) that a kbz killed mid-probe left in
 * the temp folder: named with their pid, which is gone. Only this user's own folders.
 */
export function sweepViews(dir = os.tmpdir()): number {
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const uid = process.getuid?.();
  let removed = 0;
  for (const n of names) {
    const m = /^kbz-(?:view|args)-(\d+)-/.exec(n);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    const p = path.join(dir, n);
    try {
      if (fs.lstatSync(p).uid !== uid) continue;
    } catch {
      continue;
    }
    removeTree(p);
    removed++;
  }
  return removed;
}

/** One path of the approved-oracle view: its approved bytes (a kept file and mode), or absent. */
export interface Placement {
  /** Root-relative, `/`-separated, no `..`. */
  rel: string;
  /** The kept file to copy in, or null: the path is absent in the view. */
  from: string | null;
  mode: number;
}

export const PLACE_FAILED = "kbz-oracle-view: cannot place the approved oracle";

// The approved-oracle wrapper (issue 39): `$0` the failure marker, then the system's mount, rm,
// mkdir, cp and chmod (never a PATH lookup), lower, upper, work; after the overlay is mounted each
// quadruple (path, its folder, kept file or "-", mode) is placed in the view (the upper layer takes
// the writes; removing makes a whiteout), then, after "--", what to become.
const PLACE =
  'M=$1 RM=$2 MK=$3 CP=$4 CH=$5; shift 5; "$M" -t overlay kbz-view -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" || exit 125; r=$1; shift 3; ' +
  'while [ "$1" != "--" ]; do ' +
  'if [ "$3" = "-" ]; then "$RM" -rf -- "$r/$1" || { echo "$0" >&2; exit 125; }; ' +
  'else "$MK" -p -- "$r/$2" && "$RM" -rf -- "$r/$1" && "$CP" -- "$3" "$r/$1" && "$CH" "$4" "$r/$1" || { echo "$0" >&2; exit 125; }; fi; ' +
  // The CHECK's folder again by its name: the one it was started in is the one under the overlay.
  'shift 4; done; shift; cd -- "$(pwd -P)" || exit 125; exec "$@"';

/** True when no component of `rel` under `root` is a link (a placement never writes through one). */
function linkFree(root: string, rel: string): boolean {
  let p = root;
  for (const part of rel.split("/")) {
    if (part === "" || part === "." || part === "..") return false;
    p = path.join(p, part);
    try {
      if (fs.lstatSync(p).isSymbolicLink()) return false;
    } catch {
      return true; // the rest does not exist: mkdir makes real folders
    }
  }
  return true;
}

/**
 * A view of `root` (its real path) where each placement holds its approved bytes or is absent
 * (issue 39: the approved-oracle run), for a CHECK run with or without the sandbox; or why none
 * can be made. Without the sandbox the CHECK runs in the mount namespace as the caller's own uid
 * (a non-root caller's user namespace maps it back with unshare --map-user).
 */
export function oracleView(root: string, placements: Placement[], sandboxed: boolean): View | { why: string } {
  const ok = viewUsable();
  if (!ok.ok) return { why: ok.why };
  const tools = ["unshare", "mount", "rm", "mkdir", "cp", "chmod"].map((t) => systemTool(t));
  if (tools.some((t) => t === null))
    return { why: "unshare, mount, rm, mkdir, cp or chmod is not installed in the system folders" };
  const bad = placements.find((p) => !linkFree(root, p.rel));
  if (bad) return { why: `${bad.rel} is reached through a link` };
  const [unshare, ...rest] = tools as string[];
  const l = layers();
  const args = placements.flatMap((p) => [
    p.rel,
    path.posix.dirname(p.rel),
    p.from ?? "-",
    (p.mode & 0o7777).toString(8),
  ]);
  const uid = process.getuid?.() ?? 0;
  const back = sandboxed || uid === 0 ? [] : [unshare!, `--map-user=${uid}`, `--map-group=${process.getgid?.() ?? 0}`];
  return {
    wrap: [
      unshare!,
      ...unshareArgs(),
      SYSTEM_SH,
      "-c",
      PLACE,
      PLACE_FAILED,
      ...rest,
      root,
      l.upper,
      l.work,
      ...args,
      "--",
      ...back,
    ],
    dispose: () => removeTree(l.base),
  };
}
