// Cursor (stop and subagentStop, in .cursor/hooks.json). Payload: conversation_id, generation_id,
// workspace_roots, status ("completed" | "aborted" | "error"), loop_count (follow-ups this hook
// already triggered, from 0); no cwd and no stop_hook_active; subagentStop adds subagent_type,
// task, description and summary. Output: {"followup_message": "..."} is submitted as the next user
// message (for subagentStop only when status is "completed"); nothing, or an empty message, lets
// the agent stop. Cursor has no field for a note to the user, so kbz's notes go to stderr
// (Cursor's hook log). Docs: cursor.com/docs/hooks.
import type { HookOutput } from "../core/hook/decide.ts";
import { sanitizeCompact, terminalJson } from "../core/text/sanitize.ts";
import { count, plainStop, str, strings, type HostAdapter, type Uncounted } from "./host.ts";

function statusOf(v: unknown): Uncounted | null {
  const s = str(v);
  return s === "aborted" ? "aborted" : s === "error" ? "failed" : null;
}

export const cursor: HostAdapter = {
  name: "cursor",
  read(o, env) {
    const roots = Array.isArray(o.workspace_roots) ? o.workspace_roots : [];
    const loops = count(o.loop_count);
    const base = plainStop(
      str(roots[0]) ?? str(env.CURSOR_PROJECT_DIR) ?? null,
      str(o.conversation_id) ?? str(o.session_id) ?? "anonymous",
      loops === 0,
    );
    base.continuations = loops;
    base.uncounted = statusOf(o.status);
    if (str(o.hook_event_name) === "subagentStop" || str(o.subagent_type) !== null) {
      return {
        ...base,
        kind: "subagent",
        worker: { ids: [], text: strings(o, ["task", "description", "subagent_type"]) },
      };
    }
    return base;
  },
  render(output: HookOutput) {
    if (output === null) return { stdout: "", stderr: "" };
    if ("decision" in output) return { stdout: terminalJson({ followup_message: output.reason }) + "\n", stderr: "" };
    return { stdout: "", stderr: sanitizeCompact(output.systemMessage, 4000) + "\n" };
  },
};
