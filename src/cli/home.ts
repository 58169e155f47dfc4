// `kbz` with no verb: on a terminal the live dashboard (which offers the demo in a folder with no
// ledgers); otherwise the status of this folder, or of the built-in demo when it has none.
import { resolveTarget } from "../io/discover.ts";
import { demoSnapshot } from "../demo/index.ts";
import { requestedScope, rootFor, snapshotFor } from "./context.ts";
import { onTerminal, openDashboard } from "./dashboard.ts";
import type { Verb } from "./index.ts";
import { out } from "./output.ts";
import { printStatus } from "./render.ts";

export const verb: Verb = {
  command: "$0",
  describe: "on a terminal open the dashboard; otherwise show this folder's gates (the built-in demo when it has none)",
  builder: (y) =>
    y
      .option("root", { type: "string", describe: "repository root (default: the nearest folder above holding .unlazy/, GATES.md or gates/, else the git top level)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: (argv) => {
    const root = rootFor(argv);
    if (!argv.json && onTerminal()) return openDashboard(root, requestedScope({}));
    const target = resolveTarget({ root, scope: requestedScope({}) });
    if (target.mode !== "none") return printStatus(snapshotFor({ root }), !!argv.json);
    if (!argv.json) {
      out("No gate ledgers here (GATES.md, gates/*.md or .unlazy/<scope>/); showing the built-in demo.");
      out();
    }
    // The demo's verdict is not this folder's: showing it succeeded.
    return printStatus(demoSnapshot(), !!argv.json, true) === 2 ? 2 : 0;
  },
};
