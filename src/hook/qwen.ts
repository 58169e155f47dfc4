// Qwen Code (a Gemini CLI fork whose hooks follow Claude Code's contract, not Gemini's AfterAgent):
// `Stop` and `SubagentStop` in .qwen/settings.json, payload session_id, cwd, stop_hook_active,
// last_assistant_message, background_tasks; {"decision":"block","reason"} continues the prompt, and
// Qwen ends the chain itself after its own block cap. Verified against @qwen-code/qwen-code 0.24.4
// (its Stop event builder and hook output reader), not its docs alone.
import { claudeRender, readClaudeShape } from "./claude.ts";
import type { HostAdapter } from "./host.ts";

export const qwen: HostAdapter = {
  name: "qwen",
  read: readClaudeShape,
  render: claudeRender,
};
