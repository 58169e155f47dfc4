// The CHECK entries of the repository's settings (io/settings.ts reads the file):
//   { "sandbox": true, "writable": ["build", "/var/cache/x"], "readable": ["/opt/toolchain"] }
// `sandbox: true` runs every CHECK of the repository under the sandbox (as `kbz check --sandbox`
// does), including the dashboard's runs; `writable` adds paths the sandbox leaves writable,
// `readable` host folders it shows read-only besides the system's (issue 42 item 3).
import * as path from "node:path";
import { readSettings, SETTINGS_FILE, settingsProblem } from "../settings.ts";

export interface RepoSettings {
  sandbox: boolean;
  writable: string[];
  /** Absolute host paths the sandbox shows read-only besides the system's (issue 42 item 3: /opt, a toolchain). */
  readable: string[];
  /** The settings file (a writable path's origin in the sandbox's messages). */
  file: string;
}

export function readRepoSettings(root: string): RepoSettings {
  const file = path.join(root, SETTINGS_FILE);
  const o = readSettings(root);
  if (o === null) return { sandbox: false, writable: [], readable: [], file };
  const bad = (message: string) => settingsProblem(`${message}; expected {"sandbox": true, "writable": ["path", ...]}`);
  if (o.sandbox !== undefined && typeof o.sandbox !== "boolean") throw bad('"sandbox" must be true or false');
  const writable = o.writable ?? [];
  if (!Array.isArray(writable) || !writable.every((w) => typeof w === "string" && w !== ""))
    throw bad('"writable" must be a list of paths');
  const readable = o.readable ?? [];
  if (!Array.isArray(readable) || !readable.every((w) => typeof w === "string" && path.isAbsolute(w)))
    throw bad('"readable" must be a list of absolute paths');
  return { sandbox: o.sandbox === true, writable: writable as string[], readable: readable as string[], file };
}
