// Claude Code (Stop and SubagentStop; also what Cursor sends to hooks it loads from Claude files).
// Payload: session_id, cwd, stop_hook_active. Output on exit 0: {"decision":"block","reason"} keeps
// Claude working, the reason becoming its next instruction; {"systemMessage"} is shown to the user;
// nothing allows the stop. Docs: code.claude.com/docs/en/hooks ("Stop decision control").
import { terminalJson } from "../core/text/sanitize.ts";
import type { HookOutput } from "../core/hook/decide.ts";
import { str, type HostAdapter, type Rendered } from "./host.ts";

/** The Claude-shaped JSON every host but Cursor accepts, rendered as one terminal-safe line. */
export function claudeJson(output: HookOutput): Rendered {
  return { stdout: output === null ? "" : terminalJson(output) + "\n", stderr: "" };
}

export const claude: HostAdapter = {
  name: "claude",
  read(o) {
    return {
      cwd: str(o.cwd),
      session: str(o.session_id) ?? str(o.sessionId) ?? "anonymous",
      fresh: o.stop_hook_active === false,
      continuations: null,
    };
  },
  render: claudeJson,
};
