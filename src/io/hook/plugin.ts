// OpenCode has no command hooks; a plugin observes its events. kbz's plugin file
// (.opencode/plugin/kbz-stop-guard.js, or ~/.config/opencode/plugin/ with --global) is kbz's
// alone: on `session.idle` it runs the installed command with a Claude-shaped payload and, when
// the answer blocks, prompts the same session with the reason (the agent's next instruction).
// Install writes the file, uninstall deletes it; nothing else of OpenCode's is touched.
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureRealDir, writeAtomic } from "../fs.ts";
import { SettingsRefusal, MARKER, type InstallOutcome } from "./install.ts";
import { kbz } from "../../core/text/command.ts";

export const PLUGIN_MARKER = `// kbz stop guard ${MARKER}`;

export function pluginText(command: string): string {
  return `${PLUGIN_MARKER} (written by \`${kbz("hook install", { agent: "opencode" })}\`; \`--uninstall\` deletes this file)
// On session.idle: run kbz's stop guard; when it blocks, prompt the session with its reason.
import { spawnSync } from "node:child_process";

const COMMAND = ${JSON.stringify(command)};
const continuing = new Map();

export const KbzStopGuard = async ({ client, directory }) => ({
  event: async ({ event }) => {
    if (!event || event.type !== "session.idle") return;
    const id = event.properties && event.properties.sessionID;
    if (!id) return;
    const payload = { hook_event_name: "session.idle", session_id: id, cwd: directory, stop_hook_active: continuing.get(id) === true };
    const r = spawnSync("/bin/sh", ["-c", COMMAND], { cwd: directory, input: JSON.stringify(payload), encoding: "utf8", timeout: 20000 });
    let answer = null;
    try {
      answer = JSON.parse(r.stdout || "null");
    } catch {}
    if (!answer || answer.decision !== "block" || typeof answer.reason !== "string") {
      continuing.delete(id);
      return;
    }
    continuing.set(id, true);
    const body = { parts: [{ type: "text", text: answer.reason }] };
    const send = client.session.promptAsync || client.session.prompt;
    await send.call(client.session, { path: { id }, body });
  },
});
`;
}

/** The command a plugin file runs, when it is kbz's; null otherwise. */
export function pluginCommand(text: string): string | null {
  if (!text.startsWith(PLUGIN_MARKER)) return null;
  const m = /^const COMMAND = (".*");$/m.exec(text);
  try {
    return m ? (JSON.parse(m[1]!) as string) : null;
  } catch {
    return null;
  }
}

function readOrNull(file: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (!st.isFile()) throw new SettingsRefusal("not a regular file (a link or a special file)", file);
  return fs.readFileSync(file, "utf8");
}

export function installPlugin(file: string, command: string | null): InstallOutcome {
  const existing = readOrNull(file);
  const base = { target: file, backup: null };
  if (existing !== null && pluginCommand(existing) === null)
    throw new SettingsRefusal("the file exists and is not kbz's plugin", file);
  if (command === null) {
    if (existing === null) return { ...base, result: "nothing-to-remove", removed: 0 };
    fs.unlinkSync(file);
    return { ...base, result: "removed", removed: 1 };
  }
  const text = pluginText(command);
  if (existing === text) return { ...base, result: "already-installed", removed: 0 };
  ensureRealDir(path.dirname(file), undefined, 0o755);
  writeAtomic(file, text, { mode: 0o644 });
  return { ...base, result: "installed", removed: existing === null ? 0 : 1 };
}
