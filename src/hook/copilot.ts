// GitHub Copilot CLI (agentStop, subagentStop in .github/hooks/*.json or ~/.copilot/hooks/*.json).
// Events configured in camelCase get a camelCase payload: sessionId, cwd, timestamp, transcriptPath,
// stopReason ("end_turn"), stopHookActive (1.0.72+); subagentStop adds agentId, agentType and
// response. PascalCase event names get the same fields in snake_case, so both are read. Output on
// exit 0: {"decision":"block","reason"} enqueues the reason as the next user prompt (a block on
// subagentStop continues the child); nothing allows the stop. Copilot ends the turn itself after 8
// consecutive blocks. Docs: docs.github.com/copilot/reference/hooks-reference; verified with
// @github/copilot 1.0.102.
import { claudeJson } from "./claude.ts";
import { noMessage, plainStop, str, strings, type HostAdapter, type Uncounted } from "./host.ts";

function reasonOf(v: unknown): Uncounted | null {
  const r = str(v);
  if (r === null || r === "end_turn") return null;
  return /abort|cancel|interrupt/i.test(r) ? "aborted" : /error|fail/i.test(r) ? "failed" : null;
}

export const copilot: HostAdapter = {
  name: "copilot",
  read(o) {
    const active = o.stopHookActive ?? o.stop_hook_active;
    const base = plainStop(str(o.cwd), str(o.sessionId) ?? str(o.session_id) ?? "anonymous", active === false);
    base.uncounted = reasonOf(o.stopReason ?? o.stop_reason);
    const event = str(o.hookEventName) ?? str(o.hook_event_name);
    const agent = str(o.agentId) ?? str(o.agent_id);
    if (agent !== null || str(o.agentType) !== null || (event !== null && /^subagentstop$/i.test(event))) {
      const uncounted = base.uncounted ?? noMessage(o, "response");
      return {
        ...base,
        kind: "subagent",
        uncounted,
        worker: { ids: agent ? [agent] : [], text: strings(o, ["agentType", "agent_type", "agentName", "agent_name"]) },
      };
    }
    return base;
  },
  render: claudeJson,
};
