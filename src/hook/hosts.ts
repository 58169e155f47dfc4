// The host adapters by name, and the `--agent NAME` argument of `kbz hook stop`.
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { copilot } from "./copilot.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import { opencode } from "./opencode.ts";
import { qwen } from "./qwen.ts";
import { isHostName, type HostAdapter, type HostName } from "./host.ts";

export const HOSTS: Record<HostName, HostAdapter> = { claude, codex, cursor, gemini, copilot, qwen, opencode };

/** `claude` when absent (hooks installed before --agent existed); `null` when given but unknown. */
export function agentArgument(args: string[]): HostAdapter | null {
  let name: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--agent") name = args[++i] ?? "";
    else if (a.startsWith("--agent=")) name = a.slice("--agent=".length);
  }
  if (name === undefined) return claude;
  return isHostName(name) ? HOSTS[name] : null;
}
