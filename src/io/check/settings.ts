// The CHECK entries of the repository's settings (io/settings.ts reads the file):
//   { "sandbox": true, "writable": ["build", "/var/cache/x"] }
// `sandbox: true` runs every CHECK of the repository under the sandbox (as `kbz check --sandbox`
// does), including the dashboard's runs; `writable` adds paths the sandbox leaves writable.
import * as path from "node:path";
import { readSettings, SETTINGS_FILE, settingsProblem } from "../settings.ts";

export interface RepoSettings {
  sandbox: boolean;
  writable: string[];
  /** The settings file (a writable path's origin in the sandbox's messages). */
  file: string;
}

export function readRepoSettings(root: string): RepoSettings {
  const file = path.join(root, SETTINGS_FILE);
  const o = readSettings(root);
  if (o === null) return { sandbox: false, writable: [], file };
  const bad = (message: string) => settingsProblem(`${message}; expected {"sandbox": true, "writable": ["path", ...]}`);
  if (o.sandbox !== undefined && typeof o.sandbox !== "boolean") throw bad('"sandbox" must be true or false');
  const writable = o.writable ?? [];
  if (!Array.isArray(writable) || !writable.every((w) => typeof w === "string" && w !== ""))
    throw bad('"writable" must be a list of paths');
  return { sandbox: o.sandbox === true, writable: writable as string[], file };
}
