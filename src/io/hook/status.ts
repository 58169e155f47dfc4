// `kbz hook status`: for every host and place it reads hooks from, whether kbz's stop guard is
// installed, the command it runs, whether that command still points at an existing program, and
// for Codex whether the hook still waits for the user's trust (untrusted hooks are skipped,
// silently under `codex exec`).
import * as fs from "node:fs";
import * as path from "node:path";
import { findOurs, readSettings, SettingsRefusal, type OurHandler } from "./install.ts";
import { shellWords } from "../../core/text/shell.ts";
import { pluginCommand } from "./plugin.ts";
import { shimTarget } from "./shim.ts";
import {
  codexHome,
  HOST_NAMES,
  TARGETS,
  type HostName,
  type HostTarget,
  type Location,
} from "../../core/hook/targets.ts";
import { kbz } from "../../core/text/command.ts";

export interface HookPlace {
  host: HostName;
  location: Location;
  file: string;
  /** installed: ours found; absent: no file or no entry of ours; unreadable: the file cannot be used. */
  state: "installed" | "absent" | "unreadable";
  command: string | null;
  /** The program (and for node, its script) exists and can run. */
  runnable: boolean | null;
  problem: string | null;
  /** Codex only: whether Codex records the user's trust in this exact hook. */
  trust: "trusted" | "needs-review" | null;
}

function executable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function programRunnable(words: string[]): { ok: boolean; problem: string | null } {
  const program = words[0] ?? "";
  if (!path.isAbsolute(program))
    return { ok: false, problem: `the program ${JSON.stringify(program)} is not an absolute path` };
  if (!executable(program))
    return { ok: false, problem: `${program} does not exist or is not executable; run ${kbz("hook install")} again` };
  const script = words[1];
  if (script && /\.(mjs|ts|js)$/.test(script) && !fs.existsSync(script))
    return { ok: false, problem: `${script} does not exist; run ${kbz("hook install")} again` };
  return { ok: true, problem: null };
}

/** The command's program exists; when it is kbz's stable-path shim, so does the kbz the shim runs. */
export function runnable(command: string): { ok: boolean; problem: string | null } {
  const words = shellWords(command);
  const first = programRunnable(words);
  if (!first.ok) return first;
  const target = shimTarget(words[0]!);
  return target === null ? first : programRunnable(target);
}

/** Codex's name for an event in its trust keys: `Stop` -> `stop`, `SubagentStop` -> `subagent_stop`. */
export function codexEventKey(event: string): string {
  return event.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Codex keys trust by `<hooks file>:<event>:<group>:<handler>` under [hooks.state."…"] in its config.toml. */
export function codexTrust(
  configToml: string,
  file: string,
  group: number,
  index: number,
  event = "Stop",
): "trusted" | "needs-review" {
  const key = `${file}:${codexEventKey(event)}:${group}:${index}`;
  const header = `[hooks.state.${JSON.stringify(key)}]`;
  const at = configToml.indexOf(header);
  if (at < 0) return "needs-review";
  const body = configToml.slice(at + header.length).split(/\n\s*\[/)[0]!;
  return /^\s*trusted_hash\s*=\s*"[^"]+"/m.test(body) ? "trusted" : "needs-review";
}

/** Our handlers in one place, or the plugin's command; throws SettingsRefusal when the file cannot be used. */
export function oursIn(file: string, t: HostTarget, ownPaths: string[]): OurHandler[] {
  if (t.kind === "plugin") {
    let text: string;
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile()) throw new SettingsRefusal("not a regular file (a link or a special file)");
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      if (e instanceof SettingsRefusal) throw e;
      return [];
    }
    const command = pluginCommand(text);
    return command === null ? [] : [{ event: t.events[0]!, handler: { command }, group: 0, index: 0 }];
  }
  const parsed = readSettings(file, t);
  return parsed ? findOurs(parsed.settings, t, ownPaths) : [];
}

export function hookStatus(
  cwd: string,
  home: string,
  env: Record<string, string | undefined>,
  ownPaths: string[],
): HookPlace[] {
  const places: HookPlace[] = [];
  let codexConfig: string | null = null;
  for (const host of HOST_NAMES) {
    const t = TARGETS[host];
    for (const location of t.locations) {
      const file = t.file(location, cwd, home, env);
      const place: HookPlace = {
        host,
        location,
        file,
        state: "absent",
        command: null,
        runnable: null,
        problem: null,
        trust: null,
      };
      places.push(place);
      let ours: OurHandler[];
      try {
        ours = oursIn(file, t, ownPaths);
      } catch (e) {
        if (!(e instanceof SettingsRefusal)) throw e;
        place.state = "unreadable";
        place.problem = e.message;
        continue;
      }
      if (ours.length === 0) continue;
      const first = ours[0]!;
      place.state = "installed";
      const cmd = first.handler[t.commandKey];
      place.command = typeof cmd === "string" ? cmd : null;
      if (Array.isArray(first.handler.args)) {
        place.runnable = false;
        place.problem = `exec form (command + args): Claude Code before 2.1.139 runs the bare program; run ${kbz("hook install")} again`;
      } else if (place.command) {
        const r = runnable(place.command);
        place.runnable = r.ok;
        place.problem = r.problem;
      }
      const missing = t.events.filter((e) => !ours.some((o) => o.event === e));
      if (missing.length) place.problem = `no kbz handler for ${missing.join(", ")}; run ${kbz("hook install")} again`;
      const perEvent = t.events.map((e) => ours.filter((o) => o.event === e).length);
      if (perEvent.some((n) => n > 1))
        place.problem = `${Math.max(...perEvent)} kbz entries for one event; run ${kbz("hook install")} again to keep one`;
      if (host === "codex") {
        codexConfig ??= readOr(path.join(codexHome(home, env), "config.toml"));
        const trust = ours.map((o) => codexTrust(codexConfig!, file, o.group, o.index, o.event));
        place.trust = trust.every((x) => x === "trusted") ? "trusted" : "needs-review";
      }
    }
  }
  return places;
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
