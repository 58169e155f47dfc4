// Watch the folders a dashboard reads, not single files: agents and kbz itself write by
// rename, and chokidar loses single-file watches across renames (chokidar#1437, #601).
// Events are only a hint that something changed; the reload re-reads and de-duplicates by
// content hash, so the event type and count never matter.
import * as path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { refreshView, storeFor } from "../io/store/active.ts";

/** Paths under the root that can change what the dashboard shows. */
export function isWatchedPath(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  if (rel === "") return true;
  if (rel.startsWith("..") || path.isAbsolute(rel)) return false;
  const parts = rel.split(path.sep);
  const name = parts[parts.length - 1]!;
  // Lock mutexes and temp files come and go on every write; the rename that follows is the event.
  if (name.endsWith(".filelock") || name.endsWith(".tmp") || name.endsWith(".stale")) return false;
  const top = parts[0]!;
  if (top === "GATES.md") return parts.length === 1;
  if (top === "gates") return parts.length <= 2;
  if (top === ".unlazy") return parts.length <= 4;
  return false;
}

export interface WorkspaceWatch {
  close(): Promise<void>;
  ready: Promise<void>;
}

/**
 * Call `onChange` once per burst of file events: after `quietMs` without events, or at the
 * latest `maxWaitMs` after the first event of a burst, so a busy writer cannot starve the screen.
 */
export function watchWorkspace(root: string, onChange: () => void, quietMs = 25, maxWaitMs = 120): WorkspaceWatch {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let first = 0;
  const fire = () => {
    timer = null;
    first = 0;
    onChange();
  };
  const poke = () => {
    const now = Date.now();
    if (first === 0) first = now;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, Math.max(0, Math.min(quietMs, first + maxWaitMs - now)));
  };
  // Only folders are watched (files are ignored, so chokidar keeps no per-file watch or stat
  // state for a 1,000-ledger scope); a folder's raw event names the entry that changed.
  const w: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    depth: 3,
    atomic: false,
    ignored: (p: string, stats?: { isFile(): boolean }) => !!stats?.isFile() || !isWatchedPath(root, p),
  });
  w.on("raw", (_event, name: string | null, details: unknown) => {
    const dir = (details as { watchedPath?: string } | undefined)?.watchedPath;
    if (!dir || !name) return poke();
    if (isWatchedPath(root, path.resolve(dir, name))) poke();
  });
  w.on("all", poke);
  // A watcher error (a folder vanished, a permission change) must not kill the dashboard;
  // the next reload shows what is readable.
  w.on("error", poke);
  const ready = new Promise<void>((resolve) => w.once("ready", () => resolve()));
  return {
    ready,
    close: async () => {
      if (timer) clearTimeout(timer);
      await w.close();
    },
  };
}

/**
 * The dashboard's one watcher: file events under the root and, with a coordinator, its etcd
 * watch (the store's view is read again first). `onChange` runs once per burst.
 */
export function watchDashboard(root: string, scope: () => string | null, onChange: () => void): WorkspaceWatch {
  const files = watchWorkspace(root, onChange);
  const refresh = () => void refreshView(root, scope()).then(onChange, onChange);
  const stopStore = storeFor(root).watch(refresh);
  return {
    ready: files.ready,
    close: async () => {
      stopStore();
      await files.close();
    },
  };
}
