// The repository's kbz settings, `.kbz/settings.json` (kbz's own file; unlazy has none), read here
// and only here:
//   { "sandbox": true, "writable": ["build"], "readable": ["/opt/x"], "coordinator": "etcd://…" | {"url", "repository", "ttl"} }
// Each entry is checked by the module it configures (io/check/settings.ts: sandbox, writable, readable;
// io/coordination/config.ts: coordinator), with settingsProblem for its errors. A bad file is one
// `.kbz/settings.json:1: <message>` error, exit 2.
import * as path from "node:path";
import { FileProblemsError, ReadError } from "../core/errors.ts";
import { readStable } from "./read.ts";

export const SETTINGS_FILE = path.join(".kbz", "settings.json");
const MAX_SETTINGS_BYTES = 64 * 1024;
const KEYS = ["sandbox", "writable", "readable", "coordinator"];

/** A problem with `.kbz/settings.json`, as every reader of it reports one. */
export function settingsProblem(message: string): FileProblemsError {
  return new FileProblemsError([{ file: SETTINGS_FILE, line: 1, message }]);
}

/** The settings object, or null when the repository has no settings file. */
export function readSettings(root: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readStable(path.join(root, SETTINGS_FILE), {
      label: "kbz settings",
      maxBytes: MAX_SETTINGS_BYTES,
      root,
    }).toString("utf8");
  } catch (e) {
    if (!(e instanceof ReadError)) throw e;
    if (e.code === "ENOENT") return null;
    // The path is the error's field, never part of its message: the message is taken whole.
    throw settingsProblem(e.message);
  }
  const shape = `expected an object of ${KEYS.map((k) => JSON.stringify(k)).join(", ")}`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw settingsProblem(`not valid JSON; ${shape}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw settingsProblem(`must be a JSON object; ${shape}`);
  for (const key of Object.keys(v))
    if (!KEYS.includes(key)) throw settingsProblem(`unknown key ${JSON.stringify(key).slice(0, 60)}; ${shape}`);
  return v as Record<string, unknown>;
}
