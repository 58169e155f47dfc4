// `kbz hook stop --help`: what each host sends on stdin and what kbz answers on stdout. Answered
// before yargs loads (src/main.ts), like the hook itself. skill/references/stop-hook.md has the rest.
import { kbz, optional, placeholder as ph } from "../core/text/command.ts";
export const STOP_HELP = `${kbz("hook stop", { agent: optional(ph("HOST")), scope: optional(ph("S")) })} < payload.json
Decides one stop event; the host runs it (${kbz("hook install")} writes the command).
Reads, per --agent:
  claude   Stop/SubagentStop: session_id cwd stop_hook_active prompt_id
           last_assistant_message background_tasks[] agent_id; TaskCompleted: task_id
           task_subject teammate_name; StopFailure: never counted
  qwen     as claude
  codex    Stop/SubagentStop: session_id turn_id cwd stop_hook_active
           last_assistant_message agent_id
  cursor   stop/subagentStop: conversation_id workspace_roots loop_count status task
  gemini   AfterAgent: session_id cwd stop_hook_active prompt_response
  copilot  agentStop/subagentStop: sessionId cwd stopHookActive stopReason agentId
  opencode session.idle (kbz's plugin): session_id cwd stop_hook_active
Answers on stdout, exit 0:
  gate unmet  {"decision":"block","reason":"..."}; gemini {"decision":"deny",...};
              cursor {"followup_message":"..."}
  allowed     nothing (gemini {}), or {"systemMessage":"..."} with a note
  TaskCompleted refused: exit 2, the reason on stderr
Six blocks without progress release the stop.
`;
