// `kbz hook status`: for every host and place it reads hooks from, whether kbz's stop guard is
// installed, the command it runs, whether that command still points at an existing program, and
// for Codex whether the hook still waits for the user's trust (untrusted hooks are skipped,
// silently under `codex exec`).
import * as fs from "node:fs";
import * as path from "node:path";
import { findOurs, readSettings, SettingsRefusal, shellWords } from "./install.ts";
import { codexHome, HOST_NAMES, TARGETS, type HostName, type Location } from "../../core/hook/targets.ts";

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

function runnable(command: string): { ok: boolean; problem: string | null } {
  const words = shellWords(command);
  const program = words[0] ?? "";
  if (!path.isAbsolute(program)) return { ok: false, problem: `the program ${JSON.stringify(program)} is not an absolute path` };
  if (!executable(program)) return { ok: false, problem: `${program} does not exist or is not executable; run kbz hook install again` };
  const script = words[1];
  if (script && /\.(mjs|ts|js)$/.test(script) && !fs.existsSync(script)) return { ok: false, problem: `${script} does not exist; run kbz hook install again` };
  return { ok: true, problem: null };
}

/** Codex keys trust by `<hooks file>:<event>:<group>:<handler>` under [hooks.state."…"] in its config.toml. */
export function codexTrust(configToml: string, file: string, group: number, index: number): "trusted" | "needs-review" {
  const key = `${file}:stop:${group}:${index}`;
  const header = `[hooks.state.${JSON.stringify(key)}]`;
  const at = configToml.indexOf(header);
  if (at < 0) return "needs-review";
  const body = configToml.slice(at + header.length).split(/\n\s*\[/)[0]!;
  return /^\s*trusted_hash\s*=\s*"[^"]+"/m.test(body) ? "trusted" : "needs-review";
}

export function hookStatus(cwd: string, home: string, env: Record<string, string | undefined>, ownPaths: string[]): HookPlace[] {
  const places: HookPlace[] = [];
  let codexConfig: string | null = null;
  for (const host of HOST_NAMES) {
    const t = TARGETS[host];
    for (const location of t.locations) {
      const file = t.file(location, cwd, home, env);
      const place: HookPlace = { host, location, file, state: "absent", command: null, runnable: null, problem: null, trust: null };
      places.push(place);
      let parsed;
      try {
        parsed = readSettings(file, t);
      } catch (e) {
        if (!(e instanceof SettingsRefusal)) throw e;
        place.state = "unreadable";
        place.problem = e.message;
        continue;
      }
      const ours = parsed ? findOurs(parsed.settings, t, ownPaths) : [];
      if (ours.length === 0) continue;
      const first = ours[0]!;
      place.state = "installed";
      place.command = typeof first.handler.command === "string" ? first.handler.command : null;
      if (Array.isArray(first.handler.args)) {
        place.runnable = false;
        place.problem = "exec form (command + args): Claude Code before 2.1.139 runs the bare program; run kbz hook install again";
      } else if (place.command) {
        const r = runnable(place.command);
        place.runnable = r.ok;
        place.problem = r.problem;
      }
      if (ours.length > 1) place.problem = `${ours.length} kbz entries; run kbz hook install again to keep one`;
      if (host === "codex") {
        codexConfig ??= readOr(path.join(codexHome(home, env), "config.toml"));
        place.trust = codexTrust(codexConfig, file, first.group, first.index);
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
