// Where each agent host reads its stop-time hooks, and the one entry kbz writes there. Every
// handler is ONE shell command string: Claude Code reads a separate `args` list only from v2.1.139
// (older versions ran a bare `kbz`, which never blocks), Codex drops `args` silently, and Cursor
// and Gemini CLI document only `command`. Per host: docs/formats.md#hook-install and docs/agents.md.
import * as path from "node:path";
import { MAX_BLOCKS } from "./decide.ts";

export const HOST_NAMES = ["claude", "codex", "cursor", "gemini"] as const;
export type HostName = (typeof HOST_NAMES)[number];

export function isHostName(v: string): v is HostName {
  return (HOST_NAMES as readonly string[]).includes(v);
}

/** Claude Code only has a committed (shared) and an uncommitted (local) project file. */
export type Location = "local" | "shared" | "global";

export interface HostTarget {
  host: HostName;
  /** The event kbz guards. */
  event: string;
  /** Claude, Codex, Gemini: event -> [{ matcher?, hooks: [handler] }]. Cursor: event -> [handler]. */
  grouped: boolean;
  /** Root keys the host accepts (Codex refuses a hooks.json with any other); null: any. */
  rootKeys: string[] | null;
  /** Keys the root must hold with exactly these values (Cursor: version 1). */
  rootFixed: Record<string, number>;
  /** Project locations this host has; the first is the default. */
  locations: Location[];
  file(location: Location, cwd: string, home: string, env: Record<string, string | undefined>): string;
  handler(command: string): Record<string, string | number>;
}

/** Seconds a host waits for kbz; the hook answers in well under a second, or 3 s on a stuck stdin. */
export const HOOK_TIMEOUT = 20;

export function codexHome(home: string, env: Record<string, string | undefined>): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, ".codex");
}

export const TARGETS: Record<HostName, HostTarget> = {
  claude: {
    host: "claude",
    event: "Stop",
    grouped: true,
    rootKeys: null,
    rootFixed: {},
    locations: ["local", "shared", "global"],
    file: (loc, cwd, home) =>
      loc === "global" ? path.join(home, ".claude", "settings.json") : path.join(cwd, ".claude", loc === "shared" ? "settings.json" : "settings.local.json"),
    handler: (command) => ({ type: "command", command, timeout: HOOK_TIMEOUT }),
  },
  codex: {
    host: "codex",
    event: "Stop",
    grouped: true,
    rootKeys: ["description", "hooks"],
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home, env) => (loc === "global" ? path.join(codexHome(home, env), "hooks.json") : path.join(cwd, ".codex", "hooks.json")),
    handler: (command) => ({ type: "command", command, timeout: HOOK_TIMEOUT }),
  },
  cursor: {
    host: "cursor",
    event: "stop",
    grouped: false,
    rootKeys: null,
    rootFixed: { version: 1 },
    locations: ["shared", "global"],
    file: (loc, cwd, home) => path.join(loc === "global" ? home : cwd, ".cursor", "hooks.json"),
    // Cursor's own cap (loop_limit, default 5) would end the loop before kbz's six blocks.
    handler: (command) => ({ command, timeout: HOOK_TIMEOUT, loop_limit: MAX_BLOCKS }),
  },
  gemini: {
    host: "gemini",
    event: "AfterAgent",
    grouped: true,
    rootKeys: null,
    rootFixed: {},
    locations: ["shared", "global"],
    file: (loc, cwd, home) => path.join(loc === "global" ? home : cwd, ".gemini", "settings.json"),
    // Gemini's timeout is in milliseconds.
    handler: (command) => ({ type: "command", name: "kbz-stop-guard", command, timeout: HOOK_TIMEOUT * 1000 }),
  },
};
