// The repository's kbz settings, `.kbz/settings.json` (kbz's own file; unlazy has none):
//   { "sandbox": true, "writable": ["build", "/var/cache/x"] }
// `sandbox: true` runs every CHECK of the repository under the sandbox (as `kbz check --sandbox`
// does), including the dashboard's runs; `writable` adds paths the sandbox leaves writable.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";

export const SETTINGS_FILE = path.join(".kbz", "settings.json");
const MAX_SETTINGS_BYTES = 64 * 1024;

export interface RepoSettings {
  sandbox: boolean;
  writable: string[];
  file: string;
}

export function readRepoSettings(root: string): RepoSettings {
  const file = path.join(root, SETTINGS_FILE);
  const none: RepoSettings = { sandbox: false, writable: [], file };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return none;
  }
  const bad = (message: string) => new UsageError(`${file}:1: ${message}; expected {"sandbox": true, "writable": ["path", ...]}`);
  if (!st.isFile()) throw bad("must be a regular file");
  if (st.size > MAX_SETTINGS_BYTES) throw bad(`larger than ${MAX_SETTINGS_BYTES} bytes`);
  let v: unknown;
  try {
    v = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw bad(`not valid JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw bad("must be a JSON object");
  const o = v as Record<string, unknown>;
  // "coordinator" belongs to the store (src/io/store/config.ts validates it).
  for (const key of Object.keys(o)) if (key !== "sandbox" && key !== "writable" && key !== "coordinator") throw bad(`unknown key ${JSON.stringify(key)}`);
  if (o.sandbox !== undefined && typeof o.sandbox !== "boolean") throw bad('"sandbox" must be true or false');
  const writable = o.writable ?? [];
  if (!Array.isArray(writable) || !writable.every((w) => typeof w === "string" && w !== "")) throw bad('"writable" must be a list of paths');
  return { sandbox: o.sandbox === true, writable: writable as string[], file };
}
