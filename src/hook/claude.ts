// Claude Code (Stop, SubagentStop, TaskCompleted, StopFailure; also what Cursor sends to hooks it
// loads from Claude files). Payload: session_id, cwd, stop_hook_active, prompt_id (2.1.196+, one
// user prompt), last_assistant_message (2.1.47+), background_tasks[] (2.1.145+); SubagentStop adds
// agent_id and agent_type; TaskCompleted sends task_id, task_subject, task_description,
// teammate_name. Output on exit 0: {"decision":"block","reason"} keeps Claude working, the reason
// becoming its next instruction; {"systemMessage"} is shown to the user; nothing allows the stop.
// TaskCompleted is refused only by exit 2, its stderr fed back to the model. StopFailure (an API
// error) ignores every answer: kbz never counts it. Docs: code.claude.com/docs/en/hooks.
import { terminalJson, sanitizeCompact } from "../core/text/sanitize.ts";
import type { HookOutput } from "../core/hook/decide.ts";
import {
  backgroundTasks,
  noMessage,
  plainStop,
  str,
  strings,
  type HostAdapter,
  type HostStop,
  type Rendered,
} from "./host.ts";

/** The Claude-shaped JSON every host but Cursor accepts, rendered as one terminal-safe line. */
export function claudeJson(output: HookOutput): Rendered {
  return { stdout: output === null ? "" : terminalJson(output) + "\n", stderr: "" };
}

/** Claude-shaped answers, with TaskCompleted's refusal said the only way that event reads: exit 2 and stderr. */
export function claudeRender(output: HookOutput, stop: HostStop | null): Rendered {
  if (stop?.kind === "task" && output !== null && "decision" in output) {
    return { stdout: "", stderr: sanitizeCompact(output.reason, 9000) + "\n", code: 2 };
  }
  return claudeJson(output);
}

/** The payload of Claude Code and of hosts that copied its contract (Qwen Code). */
export function readClaudeShape(o: Record<string, unknown>): HostStop {
  const event = str(o.hook_event_name);
  const session = str(o.session_id) ?? str(o.sessionId) ?? "anonymous";
  const prompt = str(o.prompt_id);
  const base = plainStop(str(o.cwd), prompt ? `${session}\0prompt:${prompt}` : session, o.stop_hook_active === false);
  base.background = backgroundTasks(o.background_tasks);
  if (event === "StopFailure") return { ...base, uncounted: "failed" };
  if (event === "TaskCompleted") {
    const id = str(o.task_id);
    return {
      ...base,
      kind: "task",
      session: `${session}\0task:${id ?? "?"}`,
      worker: { ids: strings(o, ["task_id", "teammate_name"]), text: strings(o, ["task_subject", "task_description"]) },
    };
  }
  const uncounted = noMessage(o, "last_assistant_message");
  if (event === "SubagentStop" || str(o.agent_id) !== null) {
    return {
      ...base,
      kind: "subagent",
      uncounted,
      worker: { ids: strings(o, ["agent_id"]), text: strings(o, ["agent_type"]) },
    };
  }
  return { ...base, uncounted };
}

export const claude: HostAdapter = {
  name: "claude",
  read: readClaudeShape,
  render: claudeRender,
};
