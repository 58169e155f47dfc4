// Re-reading a 1,000-ledger scope on every event costs far more than the one file that changed.
// A ledger entry is reused while its file's identity and times are unchanged; any write (in
// place or by rename) changes the inode, size, mtime or ctime, and the file is read again with
// the stable reader. The event is only a hint; the stat decides.
import * as fs from "node:fs";
import { loadLedgerFile, ScopeTextCache } from "../io/read.ts";
import { type LedgerEntry } from "../core/snapshot.ts";

function statKey(file: string): string | null {
  try {
    const st = fs.lstatSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.nlink}:${st.mode}`;
  } catch {
    return null;
  }
}

export class LedgerCache {
  /** The plan side's scope texts (PLAN.md, ACCESS.json, leaf ledgers), by the same rule. */
  readonly texts = new ScopeTextCache();
  private readonly entries = new Map<string, { key: string; entry: LedgerEntry; root: string; constrained: boolean }>();

  readonly load = (file: string, root: string, constrained: boolean): LedgerEntry => {
    const key = statKey(file);
    const hit = this.entries.get(file);
    if (key !== null && hit && hit.key === key && hit.root === root && hit.constrained === constrained) return hit.entry;
    const entry = loadLedgerFile(file, root, constrained);
    // Only a file that read cleanly is worth remembering; problems are re-checked every time.
    if (key !== null && !entry.unreadable && statKey(file) === key) this.entries.set(file, { key, entry, root, constrained });
    else this.entries.delete(file);
    return entry;
  };
}
