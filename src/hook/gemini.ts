// Gemini CLI (AfterAgent). Payload: session_id, cwd, prompt, prompt_response, stop_hook_active
// (always false before v0.34.0). Output on exit 0: {"decision":"deny","reason"} rejects the
// response and sends the reason as a new user prompt; {"systemMessage"} is shown. Gemini parses
// stderr when stdout is empty, so an allow prints `{}`. Docs: gemini-cli docs/hooks/reference.md.
import type { HookOutput } from "../core/hook/decide.ts";
import { terminalJson } from "../core/text/sanitize.ts";
import { noMessage, plainStop, str, type HostAdapter } from "./host.ts";

export const gemini: HostAdapter = {
  name: "gemini",
  read(o) {
    const stop = plainStop(str(o.cwd), str(o.session_id) ?? "anonymous", o.stop_hook_active === false);
    stop.uncounted = noMessage(o, "prompt_response");
    return stop;
  },
  render(output: HookOutput) {
    if (output === null) return { stdout: "{}\n", stderr: "" };
    if ("decision" in output)
      return { stdout: terminalJson({ decision: "deny", reason: output.reason }) + "\n", stderr: "" };
    return { stdout: terminalJson(output) + "\n", stderr: "" };
  },
};
