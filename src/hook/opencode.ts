// OpenCode (npm opencode-ai). OpenCode has no command hooks; its plugins observe events. The plugin
// kbz installs (.opencode/plugin/kbz-stop-guard.js, written by io/hook/plugin.ts) runs this command
// on `session.idle` with {"hook_event_name":"session.idle","session_id","cwd","last_assistant_message"}
// and, on {"decision":"block","reason"}, prompts the same session with the reason; on anything else
// it lets the session rest. It sends `stop_hook_active: true` while it is continuing a block.
import { claudeJson } from "./claude.ts";
import { noMessage, plainStop, str, type HostAdapter } from "./host.ts";

export const opencode: HostAdapter = {
  name: "opencode",
  read(o) {
    const stop = plainStop(str(o.cwd), str(o.session_id) ?? "anonymous", o.stop_hook_active === false);
    stop.uncounted = noMessage(o, "last_assistant_message");
    return stop;
  },
  render: claudeJson,
};
