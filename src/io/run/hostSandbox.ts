// Does an agent host run the agent's commands in a sandbox that cannot write the approval store
// (docs/formats.md#host-sandboxes)? Read from each host's own settings: Claude Code's
// `sandbox.enabled` (.claude/settings.local.json, .claude/settings.json, ~/.claude/settings.json,
// the first that says), Codex's `sandbox_mode` in config.toml (workspace-write or read-only, and no
// writable root holding the store), Gemini CLI's `sandbox` setting or GEMINI_SANDBOX. `kbz doctor`
// prints it per installed host, with what to set where it can write the store.
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz } from "../../core/text/command.ts";
import { isInside } from "../../core/workspace/inside.ts";

type Env = Record<string, string | undefined>;

export interface HostSandbox {
  /** true: the agent's commands cannot write the store; false: they can; null: the host's settings do not say. */
  sandboxed: boolean | null;
  /** What kbz read, in words. */
  how: string;
  /** What to set, when not sandboxed. */
  fix: string | null;
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

function claude(cwd: string, home: string): HostSandbox {
  const fix = '"sandbox": {"enabled": true} in .claude/settings.json (its commands then write only the project)';
  for (const f of [
    path.join(cwd, ".claude", "settings.local.json"),
    path.join(cwd, ".claude", "settings.json"),
    path.join(home, ".claude", "settings.json"),
  ]) {
    const s = readJson(f)?.sandbox as { enabled?: unknown } | undefined;
    if (s && typeof s.enabled === "boolean") {
      return s.enabled
        ? { sandboxed: true, how: `sandbox.enabled in ${f}`, fix: null }
        : { sandboxed: false, how: `sandbox.enabled is false in ${f}`, fix };
    }
  }
  return { sandboxed: false, how: "no sandbox setting (Claude Code runs commands unsandboxed by default)", fix };
}

function codex(home: string, env: Env, store: string): HostSandbox {
  const file = path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml");
  const fix = `sandbox_mode = "workspace-write" in ${file}, with no writable root holding ${store}`;
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {}
  // Top-level keys only: stop at the first table header.
  const top = text.split(/^\s*\[/m)[0] ?? "";
  const mode = /^\s*sandbox_mode\s*=\s*"([^"]*)"/m.exec(top)?.[1] ?? null;
  if (mode === null)
    return { sandboxed: null, how: `no sandbox_mode in ${file} (Codex picks one by its approval mode)`, fix };
  if (mode === "danger-full-access")
    return { sandboxed: false, how: `sandbox_mode = "danger-full-access" in ${file}`, fix };
  const roots = [...text.matchAll(/writable_roots\s*=\s*\[([^\]]*)\]/g)].flatMap((m) =>
    [...m[1]!.matchAll(/"([^"]+)"/g)].map((r) => r[1]!.replace(/^~(?=\/|$)/, home)),
  );
  const holding = roots.find((r) => isInside(path.resolve(r), store));
  if (holding)
    return {
      sandboxed: false,
      how: `sandbox_mode = "${mode}", but writable root ${holding} holds the approval store`,
      fix,
    };
  return { sandboxed: true, how: `sandbox_mode = "${mode}" in ${file}`, fix: null };
}

function gemini(cwd: string, home: string, env: Env): HostSandbox {
  const fix = '"sandbox": true in .gemini/settings.json (or run gemini --sandbox)';
  if (env.GEMINI_SANDBOX && env.GEMINI_SANDBOX !== "false" && env.GEMINI_SANDBOX !== "0")
    return { sandboxed: true, how: `GEMINI_SANDBOX=${env.GEMINI_SANDBOX}`, fix: null };
  for (const f of [path.join(cwd, ".gemini", "settings.json"), path.join(home, ".gemini", "settings.json")]) {
    const s = readJson(f);
    const v = s?.sandbox ?? (s?.tools as Record<string, unknown> | undefined)?.sandbox;
    if (v !== undefined)
      return v === false
        ? { sandboxed: false, how: `sandbox is false in ${f}`, fix }
        : { sandboxed: true, how: `sandbox in ${f}`, fix: null };
  }
  return { sandboxed: false, how: "no sandbox setting (Gemini CLI runs commands unsandboxed unless --sandbox)", fix };
}

/** Whether `host` keeps its agent's commands away from the approval store `store`. */
export function hostSandbox(host: string, cwd: string, home: string, env: Env, store: string): HostSandbox {
  if (host === "claude") return claude(cwd, home);
  if (host === "codex") return codex(home, env, store);
  if (host === "gemini") return gemini(cwd, home, env);
  return {
    sandboxed: false,
    how: `kbz knows no sandbox setting of ${host}`,
    fix: `use the signed policy (${kbz("approvals policy", "signed")}) with a key the agent cannot use`,
  };
}
