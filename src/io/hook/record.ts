// Where this user installed kbz's guard (<KBZ_HOME>/installs.json): `kbz doctor` checks each
// recorded place still holds the guard, so a hook removed by hand or by another tool shows as not
// firing instead of as "not installed". Written by `kbz hook install`, pruned by `--uninstall`.
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureRealDir, writeAtomic } from "../fs.ts";
import { isHostName, type HostName } from "../../core/hook/targets.ts";
import { kbzHome } from "./shim.ts";

export interface InstallRecord {
  host: HostName;
  file: string;
  /** The flags that re-create it: --global, --shared, --fallback, --scope ID. */
  flags: string[];
  /** Deny rules kbz added to this file (the user's own identical rules are never recorded, so never removed). */
  deny?: string[];
}

export function recordPath(home: string, env: Record<string, string | undefined>): string {
  return path.join(kbzHome(home, env), "installs.json");
}

export function findRecord(
  home: string,
  env: Record<string, string | undefined>,
  host: HostName,
  file: string,
): InstallRecord | undefined {
  return readRecords(home, env).find((r) => r.host === host && r.file === file);
}

export function readRecords(home: string, env: Record<string, string | undefined>): InstallRecord[] {
  try {
    const raw = JSON.parse(fs.readFileSync(recordPath(home, env), "utf8"));
    const list: unknown[] = Array.isArray(raw?.installs) ? raw.installs : [];
    return list.filter(
      (r): r is InstallRecord =>
        !!r &&
        typeof r === "object" &&
        isHostName(String((r as InstallRecord).host)) &&
        typeof (r as InstallRecord).file === "string" &&
        Array.isArray((r as InstallRecord).flags) &&
        (r as InstallRecord).flags.every((f) => typeof f === "string"),
    );
  } catch {
    return [];
  }
}

/** Add (or with `remove`, drop) the record of one place. Best effort: a record never fails an install. */
export function updateRecord(
  home: string,
  env: Record<string, string | undefined>,
  rec: InstallRecord,
  remove: boolean,
): void {
  try {
    const rest = readRecords(home, env).filter((r) => !(r.host === rec.host && r.file === rec.file));
    const next = remove ? rest : [...rest, rec];
    const file = recordPath(home, env);
    ensureRealDir(path.dirname(file), undefined, 0o755);
    writeAtomic(file, JSON.stringify({ schema: 1, installs: next }, null, 2) + "\n", { mode: 0o600 });
  } catch {}
}
