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
