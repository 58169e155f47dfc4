// Cursor (stop, in .cursor/hooks.json). Payload: conversation_id, generation_id, workspace_roots,
// status, loop_count (follow-ups this hook already triggered, from 0); no cwd and no
// stop_hook_active. Output: {"followup_message": "..."} is submitted as the next user message;
// nothing, or an empty message, lets the agent stop. Cursor has no field for a note to the user,
// so kbz's notes go to stderr (Cursor's hook log). Docs: cursor.com/docs/hooks.
import type { HookOutput } from "../core/hook/decide.ts";
import { sanitizeCompact, terminalJson } from "../core/text/sanitize.ts";
import { count, str, type HostAdapter } from "./host.ts";

export const cursor: HostAdapter = {
  name: "cursor",
  read(o, env) {
    const roots = Array.isArray(o.workspace_roots) ? o.workspace_roots : [];
    const loops = count(o.loop_count);
    return {
      cwd: str(roots[0]) ?? str(env.CURSOR_PROJECT_DIR) ?? null,
      session: str(o.conversation_id) ?? str(o.session_id) ?? "anonymous",
      fresh: loops === 0,
      continuations: loops,
    };
  },
  render(output: HookOutput) {
    if (output === null) return { stdout: "", stderr: "" };
    if ("decision" in output) return { stdout: terminalJson({ followup_message: output.reason }) + "\n", stderr: "" };
    return { stdout: "", stderr: sanitizeCompact(output.systemMessage, 4000) + "\n" };
  },
};
