// Where each agent host reads its stop-time hooks, and the entries kbz writes there: one handler
// per completion event the host has (the main agent's stop, a sub-agent's stop, a task's
// completion). Every handler is ONE shell command string: Claude Code reads a separate `args` list
// only from v2.1.139 (older versions ran a bare `kbz`, which never blocks), Codex drops `args`
// silently, and Cursor, Gemini CLI, Qwen Code and Copilot CLI document only a command string.
// OpenCode has no command hooks: kbz installs a plugin file there (io/hook/plugin.ts).
// Per host: docs/agents.md, docs/formats.md#hook-install and skill/references/stop-hook.md.
import * as path from "node:path";
import { MAX_BLOCKS } from "./decide.ts";

export const HOST_NAMES = ["claude", "codex", "cursor", "gemini", "copilot", "qwen", "opencode"] as const;
export type HostName = (typeof HOST_NAMES)[number];

export function isHostName(v: string): v is HostName {
  return (HOST_NAMES as readonly string[]).includes(v);
}

/** Claude Code only has a committed (shared) and an uncommitted (local) project file. */
export type Location = "local" | "shared" | "global";

export interface HostTarget {
  host: HostName;
  /** `settings`: a JSON file kbz edits in place; `plugin`: a file that is kbz's alone (OpenCode). */
  kind: "settings" | "plugin";
  /** The completion events kbz guards; the first is the main agent's stop. */
  events: string[];
  /** Claude, Codex, Gemini, Qwen: event -> [{ matcher?, hooks: [handler] }]. Cursor, Copilot: event -> [handler]. */
  grouped: boolean;
  /** The handler key holding the command string (Copilot: `bash`). */
  commandKey: string;
  /** Root keys the host accepts (Codex refuses a hooks.json with any other); null: any. */
  rootKeys: string[] | null;
  /** Keys the root must hold with exactly these values (Cursor, Copilot: version 1). */
  rootFixed: Record<string, number>;
  /** Project locations this host has; the first is the default. */
  locations: Location[];
  file(location: Location, cwd: string, home: string, env: Record<string, string | undefined>): string;
  handler(command: string, event: string): Record<string, string | number>;
}

/** Seconds a host waits for kbz; the hook answers in well under a second, or 3 s on a stuck stdin. */
export const HOOK_TIMEOUT = 20;

export function codexHome(home: string, env: Record<string, string | undefined>): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, ".codex");
}

export function copilotHome(home: string, env: Record<string, string | undefined>): string {
  return env.COPILOT_HOME ? path.resolve(env.COPILOT_HOME) : path.join(home, ".copilot");
}

function opencodeConfig(home: string, env: Record<string, string | undefined>): string {
  return path.join(env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(home, ".config"), "opencode");
}

const plainHandler = (command: string) => ({ type: "command", command, timeout: HOOK_TIMEOUT });

export const TARGETS: Record<HostName, HostTarget> = {
  claude: {
    host: "claude",
    kind: "settings",
    events: ["Stop", "SubagentStop", "TaskCompleted"],
    grouped: true,
    commandKey: "command",
    rootKeys: null,
    rootFixed: {},
    locations: ["local", "shared", "global"],
    file: (loc, cwd, home) =>
      loc === "global"
        ? path.join(home, ".claude", "settings.json")
        : path.join(cwd, ".claude", loc === "shared" ? "settings.json" : "settings.local.json"),
    handler: plainHandler,
  },
  codex: {
    host: "codex",
    kind: "settings",
    events: ["Stop", "SubagentStop"],
    grouped: true,
    commandKey: "command",
    rootKeys: ["description", "hooks"],
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home, env) =>
      loc === "global" ? path.join(codexHome(home, env), "hooks.json") : path.join(cwd, ".codex", "hooks.json"),
    handler: plainHandler,
  },
  cursor: {
    host: "cursor",
    kind: "settings",
    events: ["stop", "subagentStop"],
    grouped: false,
    commandKey: "command",
    rootKeys: null,
    rootFixed: { version: 1 },
    locations: ["shared", "global"],
    file: (loc, cwd, home) => path.join(loc === "global" ? home : cwd, ".cursor", "hooks.json"),
    // Cursor's own cap (loop_limit, default 5) would end the loop before kbz's six blocks.
    handler: (command) => ({ command, timeout: HOOK_TIMEOUT, loop_limit: MAX_BLOCKS }),
  },
  gemini: {
    host: "gemini",
    kind: "settings",
    events: ["AfterAgent"],
    grouped: true,
    commandKey: "command",
    rootKeys: null,
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home) => path.join(loc === "global" ? home : cwd, ".gemini", "settings.json"),
    // Gemini's timeout is in milliseconds.
    handler: (command) => ({ type: "command", name: "kbz-stop-guard", command, timeout: HOOK_TIMEOUT * 1000 }),
  },
  copilot: {
    host: "copilot",
    kind: "settings",
    events: ["agentStop", "subagentStop"],
    grouped: false,
    commandKey: "bash",
    rootKeys: null,
    rootFixed: { version: 1 },
    locations: ["shared", "global"],
    // A file of kbz's own among the repository's hook files; Copilot reads every *.json there.
    file: (loc, cwd, home, env) =>
      loc === "global"
        ? path.join(copilotHome(home, env), "hooks", "kbz.json")
        : path.join(cwd, ".github", "hooks", "kbz.json"),
    handler: (command) => ({ type: "command", bash: command, timeoutSec: HOOK_TIMEOUT }),
  },
  qwen: {
    host: "qwen",
    kind: "settings",
    events: ["Stop", "SubagentStop"],
    grouped: true,
    commandKey: "command",
    rootKeys: null,
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home) => path.join(loc === "global" ? home : cwd, ".qwen", "settings.json"),
    // Qwen Code reads hook timeouts in seconds (values of 60000 and more keep an old millisecond meaning).
    handler: plainHandler,
  },
  opencode: {
    host: "opencode",
    kind: "plugin",
    events: ["session.idle"],
    grouped: false,
    commandKey: "command",
    rootKeys: null,
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home, env) =>
      path.join(
        loc === "global" ? opencodeConfig(home, env) : path.join(cwd, ".opencode"),
        "plugin",
        "kbz-stop-guard.js",
      ),
    handler: (command) => ({ command }),
  },
};
