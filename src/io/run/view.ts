// The probe's throwaway view (issue 28 item 12): the CHECK under probe sees the repository through
// an overlay mount whose upper layer is a temporary folder, in a mount namespace of its own, so
// whatever it writes, moves or deletes lands in that folder and is thrown away; the live tree is
// never touched. The overlay is mounted by a wrapper (`unshare -m`, for other users `unshare -Urm`)
// that then becomes bwrap. Where overlayfs in a mount namespace is not to be had, there is no view
// and the probe does not run (a warning, never a probe on the live tree).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const MOUNT = 'mount -t overlay kbz-view -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" && shift 3 && exec "$@"';

export interface View {
  /** The argv placed before bwrap. */
  wrap: string[];
  /** Remove the upper layer (what the CHECK wrote). */
  dispose(): void;
}

function findUnshare(): string | null {
  for (const c of ["/usr/bin/unshare", "/bin/unshare"]) if (fs.existsSync(c)) return c;
  return null;
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

function layers(): { base: string; upper: string; work: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-view-"));
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
  const unshare = findUnshare();
  if (!unshare) return (usable = { ok: false, why: "unshare (util-linux) is not installed" });
  const l = layers();
  const lower = path.join(l.base, "lower");
  fs.mkdirSync(lower);
  try {
    const r = spawnSync(
      unshare,
      [...unshareArgs(), "/bin/sh", "-c", MOUNT, "kbz-view", lower, l.upper, l.work, "/bin/true"],
      { encoding: "utf8" },
    );
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
    wrap: [findUnshare()!, ...unshareArgs(), "/bin/sh", "-c", MOUNT, "kbz-view", root, l.upper, l.work],
    dispose: () => removeTree(l.base),
  };
}
