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

/** One path of the approved-oracle view: its approved bytes (a kept file and mode), or absent. */
export interface Placement {
  /** Root-relative, `/`-separated, no `..`. */
  rel: string;
  /** The kept file to copy in, or null: the path is absent in the view. */
  from: string | null;
  mode: number;
}

export const PLACE_FAILED = "kbz-oracle-view: cannot place the approved oracle";

// After the overlay is mounted: each triple (path, kept file or "-", mode) is placed in the view
// (the overlay's upper layer takes the writes; removing makes a whiteout), then the CHECK runs.
const PLACE =
  'mount -t overlay kbz-view -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" || exit 125; r=$1; shift 3; ' +
  'while [ "$1" != "--" ]; do ' +
  'if [ "$2" = "-" ]; then rm -rf -- "$r/$1" || { echo "$0" >&2; exit 125; }; ' +
  'else d=$(dirname -- "$r/$1") && mkdir -p -- "$d" && rm -rf -- "$r/$1" && cp -- "$2" "$r/$1" && chmod "$3" "$r/$1" || { echo "$0" >&2; exit 125; }; fi; ' +
  // The CHECK's folder again by its name: the one it was started in is the one under the overlay.
  'shift 3; done; shift; cd -- "$(pwd -P)" || exit 125; exec "$@"';

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
  const bad = placements.find((p) => !linkFree(root, p.rel));
  if (bad) return { why: `${bad.rel} is reached through a link` };
  const l = layers();
  const args = placements.flatMap((p) => [p.rel, p.from ?? "-", (p.mode & 0o7777).toString(8)]);
  const uid = process.getuid?.() ?? 0;
  const back =
    sandboxed || uid === 0 ? [] : [findUnshare()!, `--map-user=${uid}`, `--map-group=${process.getgid?.() ?? 0}`];
  return {
    wrap: [
      findUnshare()!,
      ...unshareArgs(),
      "/bin/sh",
      "-c",
      PLACE,
      PLACE_FAILED,
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
