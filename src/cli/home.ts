// `kbz` with no verb: on a terminal the live dashboard, or the built-in demo in a folder with no
// ledgers; otherwise the status of this folder, or the demo's story when it has none.
import { targetOf } from "../ops/workspace.ts";
import { requestedScope, rootFor, snapshotFor } from "./context.ts";
import { onTerminal, openDashboard, openDemo } from "./dashboard.ts";
import type { Verb } from "./index.ts";
import { printStatus } from "./render.ts";

export const verb: Verb = {
  command: "$0",
  describe: "on a terminal open the dashboard; otherwise show this folder's gates (the built-in demo when it has none)",
  builder: (y) =>
    y
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: async (argv) => {
    const root = rootFor(argv);
    const target = targetOf(root, [], requestedScope({}));
    const terminal = !argv.json && onTerminal();
    if (target.mode !== "none")
      return terminal ? openDashboard(root, requestedScope({})) : printStatus(snapshotFor({ root }), !!argv.json);
    if (terminal) return openDemo();
    const { printDemo } = await import("./demo.ts");
    return printDemo(
      !!argv.json,
      "No gate ledgers here (GATES.md, gates/*.md or .unlazy/<scope>/); showing the built-in demo.",
    );
  },
};
