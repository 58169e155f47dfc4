// The dashboard reader's one cache, and the one place its speed tricks live (issue 31, scale).
// Everything here trades a re-read for a proof that the file did not change; what is shown is
// what a fresh `readDashboard` without a cache would show.
//
// 1. Texts and parses by the stable reader's rule (io/read.ts ScopeTextCache): a ledger whose
//    inode, type, size and times are the ones it was read with is not read or parsed again. The
//    status side and the plan side share both.
// 2. Named reloads. After a watcher event the reload knows which files changed (the event names
//    them: ops/dashboardWatch.ts). A ledger cached and not named is taken as it was, without even
//    its lstat: at 10,000 leaves those 10,000 lstats were about 60 ms of each reload, the largest
//    part of a write's way to the screen (goal: 200 ms from write to frame). A reload that is not
//    an event's (the first read, a key, a switch of panel) and the reload that runs once the
//    screen has been still for a while (tui/container.tsx useFeed) check every file again, so an
//    event the system dropped shows within seconds.
// 3. A token per cached ledger in the change hash instead of its text (`token`).
// 4. The last read's target (its list of ledgers) kept when no named file can add or remove a
//    ledger (`target`): listing and sorting a folder of 10,000 ledgers was 15-50 ms per reload.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Target } from "../core/workspace/target.ts";
import { loadLedgerFile, ScopeTextCache } from "../io/read.ts";
import type { LedgerEntry } from "../core/snapshot.ts";
import type { Changed } from "./dashboardWatch.ts";

function lstatOrNull(file: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(file, { bigint: true }) as fs.BigIntStats;
  } catch {
    return null;
  }
}

function sameState(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.mode === b.mode &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

interface Known {
  text: string;
  root: string;
  constrained: boolean;
  entry: LedgerEntry;
}

export class DashCache {
  readonly texts = new ScopeTextCache();
  private readonly entries = new Map<string, Known>();
  private readonly tokens = new WeakMap<LedgerEntry, string>();
  private serial = 0;
  /** The files the watcher named for the read under way; null: check every file. */
  private named: Changed = null;

  private last: { key: string; target: Target; files: Set<string> } | null = null;

  /** Before a read: the files an event named (trick 2), or null to check every file. */
  expect(changed: Changed): void {
    this.named = changed;
  }

  /**
   * The target of `root` and `scope` (trick 4): the last one while the named files neither add
   * nor remove a ledger (a ledger is GATES.md or gates/*.md of the target's folder), else `resolve`.
   */
  target(root: string, scope: string | null, resolve: () => Target): Target {
    const key = `${root}\0${scope ?? ""}`;
    const last = this.last;
    if (this.named !== null && last?.key === key && !this.movesLedgers(last.target, last.files, this.named))
      return last.target;
    const target = resolve();
    this.last = { key, target, files: new Set(target.files) };
    return target;
  }

  private movesLedgers(t: Target, files: Set<string>, named: ReadonlySet<string>): boolean {
    if (t.discoveryErrors.length > 0 || (t.mode !== "scope" && t.mode !== "legacy")) return true;
    const dir = t.mode === "scope" ? path.join(t.root, ".unlazy", t.scope!) : t.root;
    const gates = path.join(dir, "gates");
    for (const p of named) {
      if (p === dir || p === gates) return true;
      const ledger = p === path.join(dir, "GATES.md") || (path.dirname(p) === gates && p.endsWith(".md"));
      if (ledger && files.has(p) !== (lstatOrNull(p) !== null)) return true;
    }
    return false;
  }

  /**
   * A short stand-in for an entry's text in the view's change hash (trick 3): an entry handed
   * back from the cache is the same text, a re-read one gets a new token (a ledger's text holds no NUL). Hashing 10,000 ledger
   * texts on every reload cost about 20 ms at 10,000 leaves.
   */
  token(entry: LedgerEntry): string {
    // An entry the cache does not hold (unreadable, moved while read) is new on every read: its text stands for it.
    if (this.entries.get(entry.file)?.entry !== entry) return entry.ledger?.text ?? "";
    let t = this.tokens.get(entry);
    if (t === undefined) this.tokens.set(entry, (t = `\0cached ${++this.serial}`));
    return t;
  }

  readonly load = (file: string, root: string, constrained: boolean, realDirs?: Map<string, string>): LedgerEntry => {
    const known = this.entries.get(file);
    const same = known !== undefined && known.root === root && known.constrained === constrained;
    if (same && this.named !== null && !this.named.has(file)) return known.entry;
    const before = lstatOrNull(file);
    const hit = this.texts.get(file, before);
    if (hit && same && known.text === hit.text) return known.entry;
    // Parsed once for both sides: the plan side's reader asks the same text cache for this ledger.
    const read = loadLedgerFile(file, root, constrained, realDirs, (text, stem) => {
      this.texts.set(file, before, text);
      return this.texts.ledger(file, text, stem);
    });
    const text = read.unreadable ? null : (read.ledger?.text ?? null);
    // The same text written again (a rewrite, a rename of equal bytes) keeps its entry: nothing shown changed.
    const entry = same && text !== null && known.text === text ? known.entry : read;
    const after = text === null ? null : lstatOrNull(file);
    // Remembered only when the file did not move while it was read; problems are re-read each time.
    if (text !== null && before && after && sameState(before, after)) {
      this.texts.set(file, after, text);
      this.entries.set(file, { text, root, constrained, entry });
    } else {
      this.texts.set(file, null, null);
      this.entries.delete(file);
    }
    return entry;
  };
}
