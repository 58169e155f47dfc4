// The hook installer for every host (docs/formats.md#hook-install, issue 21): add, repair or remove kbz's one
// stop-time handler and never anything else. Other handlers, groups and keys survive byte-for-byte
// in meaning; a linked, special or malformed file, or a shape the host would not accept, is
// refused before anything is written. Where each host looks and what it accepts: targets.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { codexRulesText } from "../../core/hook/deny.ts";
import { ReadError } from "../../core/errors.ts";
import { readStable } from "../read.ts";
import { ensureRealDir, writeAtomic } from "../fs.ts";
import { KbzError } from "../../core/errors.ts";
import type { HostTarget } from "../../core/hook/targets.ts";
import { shellQuote } from "../../core/text/shell.ts";

export { HOOK_TIMEOUT } from "../../core/hook/targets.ts";
export { shellWords } from "../../core/text/shell.ts";
export const MARKER = "--unlazy-hook-v2";
const LEGACY_MARKER = "--unlazy";
const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

/** The command string a host runs: program, its leading words, the agent, the marker, the scope. */
export function hookCommand(words: string[], host: string, scope: string | null): string {
  return [...words, "--agent", host, MARKER, ...(scope ? ["--scope", scope] : [])].map(shellQuote).join(" ");
}

export class SettingsRefusal extends KbzError {
  constructor(message: string, file?: string, hint = "fix the settings file by hand, then run the command again") {
    super(message, { code: "settings-refused", file, hint });
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** The shape we can edit without guessing, and that the host itself would accept; else why not. */
export function shapeProblem(settings: unknown, t: HostTarget): string | null {
  if (!isObject(settings)) return "the root is not a JSON object";
  if (t.rootKeys) {
    const extra = Object.keys(settings).filter((k) => !t.rootKeys!.includes(k));
    if (extra.length)
      return `unknown root key ${JSON.stringify(extra[0])} (${t.host} accepts only ${t.rootKeys.join(" and ")})`;
  }
  for (const [k, v] of Object.entries(t.rootFixed)) {
    if (settings[k] !== undefined && settings[k] !== v) return `${k} is ${JSON.stringify(settings[k])}, not ${v}`;
  }
  if (settings.hooks === undefined) return null;
  if (!isObject(settings.hooks)) return "hooks is not an object";
  for (const event of t.events) {
    const list = settings.hooks[event];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `hooks.${event} is not an array`;
    for (let i = 0; i < list.length; i++) {
      const group = list[i];
      if (!t.grouped) {
        if (!isObject(group)) return `hooks.${event}[${i}] is not an object`;
        continue;
      }
      if (!isObject(group) || !Array.isArray(group.hooks))
        return `hooks.${event}[${i}] is not an object with a hooks array`;
      for (let j = 0; j < group.hooks.length; j++) {
        if (!isObject(group.hooks[j])) return `hooks.${event}[${i}].hooks[${j}] is not an object`;
      }
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
export function isOurs(handler: JsonObject, ownPaths: string[], commandKey = "command"): boolean {
  const command = handler[commandKey];
  if (typeof command !== "string") return false;
  const args = Array.isArray(handler.args) ? handler.args.filter((a): a is string => typeof a === "string") : [];
  const tokens = [...command.split(/\s+/), ...args.flatMap((a) => a.split(/\s+/))].filter((t) => t !== "").map(unquote);
  if (tokens.some((t) => t.startsWith("--unlazy-") && t !== MARKER)) return false;
  if (tokens.includes(MARKER)) return true;
  const text = [command, ...args].join(" ").replace(/\\/g, "/");
  if (ownPaths.some((p) => p !== "" && text.includes(p.replace(/\\/g, "/")))) return true;
  if (text.includes("/.claude/skills/unlazy/scripts/stop-hook.mjs")) return true;
  return (
    tokens.includes(LEGACY_MARKER) && tokens.some((t) => /(^|\/)scripts\/stop-hook\.mjs$/.test(t.replace(/\\/g, "/")))
  );
}

function sameObject(a: JsonObject, b: JsonObject): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** One handler of ours in a parsed file: its event, and where it sits (group and handler index, as Codex keys trust). */
export interface OurHandler {
  event: string;
  handler: JsonObject;
  group: number;
  index: number;
}

/** Our handlers in a parsed file, event by event in the target's order. */
export function findOurs(settings: JsonObject, t: HostTarget, ownPaths: string[]): OurHandler[] {
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const found: OurHandler[] = [];
  for (const event of t.events) {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as JsonObject[]) : [];
    list.forEach((g, gi) => {
      if (!isObject(g)) return;
      if (!t.grouped) {
        if (isOurs(g, ownPaths, t.commandKey)) found.push({ event, handler: g, group: gi, index: 0 });
        return;
      }
      if (Array.isArray(g.hooks))
        g.hooks.forEach(
          (h, hi) =>
            isObject(h) && isOurs(h, ownPaths, t.commandKey) && found.push({ event, handler: h, group: gi, index: hi }),
        );
    });
  }
  return found;
}

export type InstallPlan =
  | { kind: "unchanged"; why: "already-installed" | "nothing-to-remove" }
  | { kind: "write"; settings: JsonObject; removed: number };

/**
 * The edit, as data: for every event the target guards, remove every handler of ours, then
 * (unless uninstalling, `command` null) append one. Other handlers, groups and keys stay as they are.
 */
export function planSettings(
  settings: JsonObject,
  t: HostTarget,
  command: string | null,
  ownPaths: string[],
): InstallPlan {
  const hooks: JsonObject = isObject(settings.hooks) ? { ...settings.hooks } : {};
  let removed = 0;
  let unchanged = command !== null;
  for (const event of t.events) {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as JsonObject[]) : [];
    const want = command === null ? null : (t.handler(command, event) as JsonObject);
    const ours: JsonObject[] = [];
    const kept: JsonObject[] = [];
    for (const group of list) {
      if (!t.grouped) {
        if (isOurs(group, ownPaths, t.commandKey)) ours.push(group);
        else kept.push(group);
        continue;
      }
      const handlers = group.hooks as JsonObject[];
      const rest = handlers.filter((h) => !isOurs(h, ownPaths, t.commandKey));
      ours.push(...handlers.filter((h) => isOurs(h, ownPaths, t.commandKey)));
      if (rest.length === handlers.length) kept.push(group);
      else if (rest.length > 0) kept.push({ ...group, hooks: rest });
    }
    removed += ours.length;
    if (want === null) {
      if (kept.length > 0) hooks[event] = kept;
      else delete hooks[event];
      continue;
    }
    if (!(ours.length === 1 && sameObject(ours[0]!, want))) unchanged = false;
    hooks[event] = [...kept, t.grouped ? { hooks: [{ ...want }] } : { ...want }];
  }
  if (command === null) {
    if (removed === 0) return { kind: "unchanged", why: "nothing-to-remove" };
    const next: JsonObject = { ...settings, hooks };
    if (Object.keys(hooks).length === 0) delete next.hooks;
    return { kind: "write", settings: next, removed };
  }
  if (unchanged) return { kind: "unchanged", why: "already-installed" };
  // Keep the events' original order in the file: replace in place, append only new events.
  const ordered: JsonObject = {};
  const original = isObject(settings.hooks) ? settings.hooks : {};
  for (const k of Object.keys(original)) ordered[k] = hooks[k]!;
  for (const k of Object.keys(hooks)) if (!(k in ordered)) ordered[k] = hooks[k]!;
  return { kind: "write", settings: { ...t.rootFixed, ...settings, hooks: ordered }, removed };
}

export interface InstallRequest {
  file: string;
  target: HostTarget;
  command: string | null; // null: uninstall
  ownPaths: string[];
  /** The host's deny rules in this file: add the missing ones (install) or remove `remove` (uninstall). */
  deny?: { path: [string, string]; add: string[]; remove: string[] } | null;
}

/**
 * Add the missing `add` rules to the list at `path` and drop the `remove` ones; every other rule
 * (the user's own) stays where it was. Empty containers kbz's rules created are removed again.
 */
export function planDeny(
  settings: JsonObject,
  at: [string, string],
  add: string[],
  remove: string[],
): { settings: JsonObject; added: string[]; dropped: number } {
  const outer = isObject(settings[at[0]]) ? (settings[at[0]] as JsonObject) : null;
  if (settings[at[0]] !== undefined && !outer) throw new SettingsRefusal(`${at[0]} is not an object`);
  const list = outer?.[at[1]];
  if (list !== undefined && !(Array.isArray(list) && list.every((r) => typeof r === "string")))
    throw new SettingsRefusal(`${at.join(".")} is not a list of strings`);
  const current = (list as string[] | undefined) ?? [];
  const kept = current.filter((r) => !remove.includes(r));
  const added = add.filter((r) => !kept.includes(r));
  const next = [...kept, ...added];
  if (added.length === 0 && kept.length === current.length) return { settings, added, dropped: 0 };
  const nextOuter: JsonObject = { ...(outer ?? {}) };
  if (next.length) nextOuter[at[1]] = next;
  else delete nextOuter[at[1]];
  const out: JsonObject = { ...settings };
  if (Object.keys(nextOuter).length) out[at[0]] = nextOuter;
  else delete out[at[0]];
  return { settings: out, added, dropped: current.length - kept.length };
}

export interface InstallOutcome {
  target: string;
  result: "installed" | "already-installed" | "removed" | "nothing-to-remove";
  removed: number;
  backup: string | null;
  /** Deny rules this run added (install) or removed (uninstall). */
  deny?: { added: string[]; removed: number };
}

/** Read and check a host's file; `null` when it does not exist. Throws SettingsRefusal. */
export function readSettings(file: string, t: HostTarget): { bytes: Buffer; settings: JsonObject } | null {
  let bytes: Buffer;
  try {
    bytes = readStable(file, { label: "settings file", maxBytes: MAX_SETTINGS_BYTES });
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
  const problem = shapeProblem(parsed, t);
  if (problem) throw new SettingsRefusal(problem);
  return { bytes, settings: parsed as JsonObject };
}

/** Read, plan, back up and write. Throws SettingsRefusal (nothing written) or a write error. */
export function installSettings(req: InstallRequest): InstallOutcome {
  const existing = readSettings(req.file, req.target);
  const plan = planSettings(existing?.settings ?? {}, req.target, req.command, req.ownPaths);
  const base = { target: req.file, backup: null };
  const hooksDone = plan.kind === "write" ? plan.settings : (existing?.settings ?? {});
  const deny = req.deny
    ? planDeny(hooksDone, req.deny.path, req.deny.add, req.deny.remove)
    : { settings: hooksDone, added: [], dropped: 0 };
  const denyOut = { added: deny.added, removed: deny.dropped };
  if (plan.kind === "unchanged" && deny.added.length === 0 && deny.dropped === 0)
    return { ...base, result: plan.why, removed: 0, deny: denyOut };
  // Re-read just before writing: a file swapped or edited meanwhile is not overwritten.
  const again = readSettings(req.file, req.target);
  if ((existing === null) !== (again === null) || (existing && again && !existing.bytes.equals(again.bytes))) {
    throw new SettingsRefusal("the file changed while it was being updated; run the command again");
  }
  let backup: string | null = null;
  if (existing) {
    backup = `${req.file}.unlazy.bak`;
    writeAtomic(backup, existing.bytes, { mode: 0o600 });
  } else {
    ensureRealDir(path.dirname(req.file), undefined, 0o755);
  }
  writeAtomic(req.file, JSON.stringify(deny.settings, null, 2) + "\n", { mode: 0o600 });
  return {
    ...base,
    backup,
    result: req.command !== null ? "installed" : "removed",
    removed: plan.kind === "write" ? plan.removed : 0,
    deny: denyOut,
  };
}

/** Codex's execpolicy rules file next to the hooks file (`.codex/rules/` or `$CODEX_HOME/rules/`), kbz's alone. */
export function codexRulesPath(hooksFile: string): string {
  return path.join(path.dirname(hooksFile), "rules", "kbz-person-only.rules");
}

/** Write (install) or delete (uninstall) kbz's Codex rules file. */
export function codexRules(hooksFile: string, install: boolean): void {
  const file = codexRulesPath(hooksFile);
  if (!install) return void fs.rmSync(file, { force: true });
  try {
    if (fs.readFileSync(file, "utf8") === codexRulesText()) return;
  } catch {}
  ensureRealDir(path.dirname(file), undefined, 0o755);
  writeAtomic(file, codexRulesText(), { mode: 0o644 });
}
