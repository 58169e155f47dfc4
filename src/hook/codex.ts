// OpenAI Codex CLI (Stop). Payload (codex-rs/hooks/schema/generated/stop.command.input.schema.json):
// session_id, turn_id, cwd, stop_hook_active, ... Output (stop.command.output.schema.json) allows
// only continue, decision ("block"), reason, stopReason, suppressOutput and systemMessage, with no
// other key: an extra key makes Codex ignore the answer and let the stop through. Codex has no
// block cap of its own, and a block continues the same turn, so kbz counts per session and turn.
import { claudeJson } from "./claude.ts";
import { str, type HostAdapter } from "./host.ts";

export const codex: HostAdapter = {
  name: "codex",
  read(o) {
    const session = str(o.session_id) ?? "anonymous";
    const turn = str(o.turn_id);
    return {
      cwd: str(o.cwd),
      session: turn ? `${session}\0turn:${turn}` : session,
      fresh: o.stop_hook_active === false,
      continuations: null,
    };
  },
  render: claudeJson,
};
