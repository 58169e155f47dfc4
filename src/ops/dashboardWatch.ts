// Watch the folders a dashboard reads, not single files: agents and kbz itself write by rename,
// and single-file watches are lost across renames. Each event names the entry that changed; the
// names of one burst are handed to the reload, which re-reads just those ledgers
// (ops/dashboardCache.ts). Whatever cannot be named (a folder that appeared or vanished, a watch
// error, the coordinator's watch) is reported as "anything may have changed" and read in full.
//
// Speed (issue 31, bench/dashboard.ts at 10,000 leaves): this uses node's own folder watch
// (inotify on Linux) on the handful of folders below, instead of chokidar. chokidar answered
// every event in a folder by listing that folder again and stat-ing each entry to keep its own
// tree: with 10,000 ledgers in one folder, about 250 ms of CPU per write, competing with the
// reload and the frame it was meant to trigger. A folder watch here costs about 1 ms per event.
//
// Also watched: the oracle files the runnable gates bind (checker scripts, package.json, test
// files: io/oracle), handed in by `follow` after each read. A checker edited in another shell
// moves a gate to Approvals (its approval no longer holds) without reopening the panel.
import * as fs from "node:fs";
import * as path from "node:path";
import { refreshView, coordinationFor } from "../io/coordination/active.ts";
import { FAILURES_DIR } from "../io/check/failures.ts";

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
  // kbz's failure records (io/check/failures.ts): a check that failed in another shell leaves its ledger as it was.
  if (top === ".kbz") return parts.length === 1 || (parts[1] === "failures" && parts.length <= 3);
  return false;
}

/** The absolute paths one burst of events named; null: anything may have changed (read everything). */
export type Changed = ReadonlySet<string> | null;

export interface WorkspaceWatch {
  close(): Promise<void>;
  ready: Promise<void>;
  /** Also report changes to these files (absolute): the oracle files of the last read. */
  follow(files: readonly string[]): void;
}

/** At most this many folders are watched for oracle files (each is one inotify watch). */
export const MAX_ORACLE_FOLDERS = 256;

function isRealDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(dir, d.name));
  } catch {
    return [];
  }
}

/**
 * The folders whose entries isWatchedPath accepts: the root, gates/, .unlazy/, each scope folder
 * and each folder inside a scope (.unlazy/<scope>/gates/ holds its ledgers), .kbz/ and
 * .kbz/failures/. Folders only: the ledgers folder is watched, never listed.
 */
export function workspaceFolders(root: string): string[] {
  const unlazy = path.join(root, ".unlazy");
  const scopes = isRealDir(unlazy) ? subfolders(unlazy) : [];
  const all = [
    root,
    path.join(root, "gates"),
    unlazy,
    ...scopes,
    ...scopes.flatMap(subfolders),
    path.join(root, ".kbz"),
    path.join(root, FAILURES_DIR),
  ];
  return all.filter(isRealDir);
}

/**
 * Call `onChange` once per burst of file events: after `quietMs` without events, or at the
 * latest `maxWaitMs` after the first event of a burst, so a busy writer cannot starve the screen.
 */
export function watchWorkspace(
  root: string,
  onChange: (changed: Changed) => void,
  quietMs = 25,
  maxWaitMs = 120,
): WorkspaceWatch {
  const watchers = new Map<string, fs.FSWatcher>();
  /** Folder → names of oracle files followed in it. */
  let followed = new Map<string, Set<string>>();
  let named: Set<string> | null = new Set();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let first = 0;
  let closed = false;

  const fire = () => {
    timer = null;
    first = 0;
    // A folder that appeared or vanished in this burst (a new scope, gates/ created) is watched
    // from now on, and the reload reads everything: its files were never named.
    const changed = sync() ? null : named;
    named = new Set();
    onChange(changed);
  };
  const poke = (p: string | null) => {
    if (closed) return;
    if (p === null) named = null;
    else named?.add(p);
    const now = Date.now();
    if (first === 0) first = now;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, Math.max(0, Math.min(quietMs, first + maxWaitMs - now)));
  };
  const watchFolder = (dir: string) => {
    try {
      const w = fs.watch(dir, { persistent: true }, (_event, name) => {
        if (name === null || name === undefined) return poke(null);
        const p = path.join(dir, String(name));
        if (isWatchedPath(root, p) || followed.get(dir)?.has(path.basename(p))) poke(p);
      });
      // A watched folder removed or unreadable: forget it; the burst reads everything and the
      // next sync watches it again if it comes back.
      w.on("error", () => {
        w.close();
        if (watchers.get(dir) === w) watchers.delete(dir);
        poke(null);
      });
      watchers.set(dir, w);
    } catch {
      // Gone between the listing and the watch: the next sync tries again.
    }
  };
  /** Watch exactly the folders wanted now; true when the set changed. */
  const sync = (): boolean => {
    if (closed) return false;
    const wanted = new Set(workspaceFolders(root));
    for (const dir of followed.keys()) if (isRealDir(dir)) wanted.add(dir);
    let moved = false;
    for (const [dir, w] of watchers) {
      if (wanted.has(dir)) continue;
      w.close();
      watchers.delete(dir);
      moved = true;
    }
    for (const dir of wanted) {
      if (watchers.has(dir)) continue;
      watchFolder(dir);
      moved = true;
    }
    return moved;
  };
  sync();

  return {
    ready: Promise.resolve(),
    follow(files) {
      const next = new Map<string, Set<string>>();
      for (const f of files) {
        const dir = path.dirname(f);
        if (!next.has(dir) && next.size >= MAX_ORACLE_FOLDERS) continue;
        if (!next.has(dir)) next.set(dir, new Set());
        next.get(dir)!.add(path.basename(f));
      }
      const same =
        next.size === followed.size &&
        [...next].every(
          ([d, names]) => followed.get(d)?.size === names.size && [...names].every((n) => followed.get(d)!.has(n)),
        );
      if (same) return;
      followed = next;
      sync();
    },
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

/**
 * The dashboard's one watcher: file events under the root and, with a coordinator, its etcd
 * watch (the coordination view is read again first). `onChange` runs once per burst.
 */
export function watchDashboard(
  root: string,
  scope: () => string | null,
  onChange: (changed: Changed) => void,
): WorkspaceWatch {
  const files = watchWorkspace(root, onChange);
  const refresh = () =>
    void refreshView(root, scope()).then(
      () => onChange(null),
      () => onChange(null),
    );
  const stopCoordination = coordinationFor(root).watch(refresh);
  return {
    ready: files.ready,
    follow: files.follow,
    close: async () => {
      stopCoordination();
      await files.close();
    },
  };
}
