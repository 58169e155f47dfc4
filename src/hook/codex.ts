// OpenAI Codex CLI (Stop, SubagentStop). Payload (codex-rs/hooks/schema/generated/
// {stop,subagent-stop}.command.input.schema.json): session_id, turn_id, cwd, stop_hook_active,
// last_assistant_message (null when the turn produced none); SubagentStop adds agent_id, agent_type
// and agent_transcript_path, with the parent's session_id. Output allows only continue, decision
// ("block"), reason, stopReason, suppressOutput and systemMessage, with no other key: an extra key
// makes Codex ignore the answer and let the stop through; a block on SubagentStop continues the
// child. Codex has no block cap of its own, and a block continues the same turn, so kbz counts per
// session and turn.
import { claudeJson } from "./claude.ts";
import { noMessage, plainStop, str, strings, type HostAdapter } from "./host.ts";

export const codex: HostAdapter = {
  name: "codex",
  read(o) {
    const session = str(o.session_id) ?? "anonymous";
    const turn = str(o.turn_id);
    const base = plainStop(str(o.cwd), turn ? `${session}\0turn:${turn}` : session, o.stop_hook_active === false);
    base.uncounted = noMessage(o, "last_assistant_message");
    if (str(o.hook_event_name) === "SubagentStop" || str(o.agent_id) !== null) {
      return { ...base, kind: "subagent", worker: { ids: strings(o, ["agent_id"]), text: strings(o, ["agent_type"]) } };
    }
    return base;
  },
  render: claudeJson,
};
