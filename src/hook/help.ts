// `kbz hook stop --help`: the payload kbz reads on stdin, with an example, and what it answers.
// Answered before yargs loads (src/main.ts), like the hook itself. Each host's fields:
// skill/references/stop-hook.md (issue 43: ≤ 800 B, and an example payload, not field names only).
import { kbz, optional, placeholder as ph } from "../core/text/command.ts";
export const STOP_HELP = `${kbz("hook stop", { agent: optional(ph("HOST")), scope: optional(ph("S")) })} < payload.json
Decides one stop event; the host runs it (${kbz("hook install")} writes it).
Payload (claude, codex, qwen; the others: skill references/stop-hook.md):
  {"session_id":"s1","cwd":"/repo","hook_event_name":"Stop","stop_hook_active":false}
Try it: echo '{"session_id":"s1","cwd":"."}' | ${kbz("hook stop")}
Answers on stdout, exit 0:
  unmet    {"decision":"block","reason":"kbz: 2 gate(s) need work: ..."}
           (gemini {"decision":"deny",...}; cursor {"followup_message":...})
  allowed  nothing, or {"systemMessage":"..."} with a note (gemini {})
  TaskCompleted refused: exit 2, the reason on stderr
A block: do what its reason says (${kbz("status")} shows the gates). Six
blocks without progress let the stop through, with a warning.
`;
