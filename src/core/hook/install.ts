// The Claude Code settings installer (unlazy §6.2): add, repair or remove our Stop handler
// and never anything else. Other handlers, groups and keys survive byte-for-byte in meaning;
// a linked, special or malformed settings file is refused before anything is written.
import * as path from "node:path";
import { ReadError, readStable } from "../workspace/read.ts";
import { ensureRealDir, writeAtomic } from "../workspace/fs.ts";
import { KbzError } from "../errors.ts";

export const MARKER = "--unlazy-hook-v2";
const LEGACY_MARKER = "--unlazy";
export const HOOK_TIMEOUT = 20;
const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

export type SettingsKind = "local" | "shared" | "global";

export function settingsPath(kind: SettingsKind, cwd: string, home: string): string {
  if (kind === "global") return path.join(home, ".claude", "settings.json");
  return path.join(cwd, ".claude", kind === "shared" ? "settings.json" : "settings.local.json");
}

/** Exec form: Claude Code spawns `command` with `args` directly, no shell in between. */
export interface ManagedHandler {
  type: "command";
  command: string;
  args: string[];
  timeout: number;
}

export function managedHandler(program: string, leadingArgs: string[], scope: string | null): ManagedHandler {
  return {
    type: "command",
    command: program,
    args: [...leadingArgs, MARKER, ...(scope ? ["--scope", scope] : [])],
    timeout: HOOK_TIMEOUT,
  };
}

/** POSIX single-quote quoting, for showing an exec-form command to a person. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9@%_+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function displayCommand(h: { command: string; args: string[] }): string {
  return [h.command, ...h.args].map(shellQuote).join(" ");
}

export class SettingsRefusal extends KbzError {
  constructor(message: string, file?: string) {
    super(message, { code: "settings-refused", file, hint: "fix the settings file by hand, then run the command again" });
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** The shape we can edit without guessing; anything else is refused. */
export function shapeProblem(settings: unknown): string | null {
  if (!isObject(settings)) return "the settings root is not a JSON object";
  if (settings.hooks === undefined) return null;
  if (!isObject(settings.hooks)) return "hooks is not an object";
  const stop = settings.hooks.Stop;
  if (stop === undefined) return null;
  if (!Array.isArray(stop)) return "hooks.Stop is not an array";
  for (let i = 0; i < stop.length; i++) {
    const group = stop[i];
    if (!isObject(group) || !Array.isArray(group.hooks)) return `hooks.Stop[${i}] is not an object with a hooks array`;
    for (let j = 0; j < group.hooks.length; j++) {
      if (!isObject(group.hooks[j])) return `hooks.Stop[${i}].hooks[${j}] is not an object`;
    }
  }
  return null;
}

function unquote(token: string): string {
  return token.replace(/^["']+|["']+$/g, "");
}

/**
 * Ownership of a handler. The marker decides; a foreign `--unlazy-*` option never is ours;
 * unmarked legacy installs are recognised by their stop-hook path. Substrings alone never
 * imply ownership: `--unlazy-helper` or a path inside a longer word does not count.
 */
export function isOurs(handler: JsonObject, ownPaths: string[]): boolean {
  if (typeof handler.command !== "string") return false;
  const args = Array.isArray(handler.args) ? handler.args.filter((a): a is string => typeof a === "string") : [];
  const tokens = [...handler.command.split(/\s+/), ...args.flatMap((a) => a.split(/\s+/))].filter((t) => t !== "").map(unquote);
  if (tokens.some((t) => t.startsWith("--unlazy-") && t !== MARKER)) return false;
  if (tokens.includes(MARKER)) return true;
  const text = [handler.command, ...args].join(" ").replace(/\\/g, "/");
  if (ownPaths.some((p) => p !== "" && text.includes(p.replace(/\\/g, "/")))) return true;
  if (text.includes("/.claude/skills/unlazy/scripts/stop-hook.mjs")) return true;
  return tokens.includes(LEGACY_MARKER) && tokens.some((t) => /(^|\/)scripts\/stop-hook\.mjs$/.test(t.replace(/\\/g, "/")));
}

function sameHandler(h: JsonObject, want: ManagedHandler): boolean {
  return (
    h.type === want.type &&
    h.command === want.command &&
    h.timeout === want.timeout &&
    Array.isArray(h.args) &&
    h.args.length === want.args.length &&
    h.args.every((a, i) => a === want.args[i])
  );
}

export type InstallPlan =
  | { kind: "unchanged"; why: "already-installed" | "nothing-to-remove" }
  | { kind: "write"; settings: JsonObject; removed: number };

/** The edit, as data: remove every handler of ours, then (unless uninstalling) append one. */
export function planSettings(settings: JsonObject, want: ManagedHandler | null, ownPaths: string[]): InstallPlan {
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const groups = Array.isArray(hooks.Stop) ? (hooks.Stop as JsonObject[]) : [];
  const ours: JsonObject[] = [];
  const kept: JsonObject[] = [];
  for (const group of groups) {
    const handlers = group.hooks as JsonObject[];
    const rest = handlers.filter((h) => !isOurs(h, ownPaths));
    ours.push(...handlers.filter((h) => isOurs(h, ownPaths)));
    if (rest.length === handlers.length) kept.push(group);
    else if (rest.length > 0) kept.push({ ...group, hooks: rest });
  }
  if (want === null) {
    if (ours.length === 0) return { kind: "unchanged", why: "nothing-to-remove" };
    const nextHooks: JsonObject = { ...hooks };
    if (kept.length > 0) nextHooks.Stop = kept;
    else delete nextHooks.Stop;
    const next: JsonObject = { ...settings, hooks: nextHooks };
    if (Object.keys(nextHooks).length === 0) delete next.hooks;
    return { kind: "write", settings: next, removed: ours.length };
  }
  if (ours.length === 1 && sameHandler(ours[0]!, want)) return { kind: "unchanged", why: "already-installed" };
  const handler: JsonObject = { type: want.type, command: want.command, args: want.args, timeout: want.timeout };
  return {
    kind: "write",
    settings: { ...settings, hooks: { ...hooks, Stop: [...kept, { hooks: [handler] }] } },
    removed: ours.length,
  };
}

export interface InstallRequest {
  target: string;
  handler: ManagedHandler | null; // null: uninstall
  ownPaths: string[];
}

export interface InstallOutcome {
  target: string;
  result: "installed" | "already-installed" | "removed" | "nothing-to-remove";
  removed: number;
  backup: string | null;
}

function readSettings(target: string): { bytes: Buffer; settings: JsonObject } | null {
  let bytes: Buffer;
  try {
    bytes = readStable(target, { label: "settings file", maxBytes: MAX_SETTINGS_BYTES });
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return null;
    throw new SettingsRefusal((e as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new SettingsRefusal("the file is not valid JSON");
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new SettingsRefusal(problem);
  return { bytes, settings: parsed as JsonObject };
}

/** Read, plan, back up and write. Throws SettingsRefusal (nothing written) or a write error. */
export function installSettings(req: InstallRequest): InstallOutcome {
  const existing = readSettings(req.target);
  const plan = planSettings(existing?.settings ?? {}, req.handler, req.ownPaths);
  const base = { target: req.target, backup: null };
  if (plan.kind === "unchanged") return { ...base, result: plan.why, removed: 0 };
  // Re-read just before writing: a file swapped or edited meanwhile is not overwritten.
  const again = readSettings(req.target);
  if ((existing === null) !== (again === null) || (existing && again && !existing.bytes.equals(again.bytes))) {
    throw new SettingsRefusal("the file changed while it was being updated; run the command again");
  }
  let backup: string | null = null;
  if (existing) {
    backup = `${req.target}.unlazy.bak`;
    writeAtomic(backup, existing.bytes, { mode: 0o600 });
  } else {
    ensureRealDir(path.dirname(req.target), undefined, 0o755);
  }
  writeAtomic(req.target, JSON.stringify(plan.settings, null, 2) + "\n", { mode: 0o600 });
  return { ...base, backup, result: req.handler ? "installed" : "removed", removed: plan.removed };
}
