// kbz dash / kbz demo: the live dashboard (dashboard.ts opens it), or kbz status off a terminal.
import { UsageError } from "../core/errors.ts";
import { kbz } from "../core/text/command.ts";
import { parseInteger } from "../core/text/integer.ts";
import { DEFAULT_SLOTS } from "../ops/next.ts";
import { requestedScope, rootFor, snapshotFor } from "./context.ts";
import { onTerminal, openDashboard, openDemo } from "./dashboard.ts";
import type { Verb } from "./index.ts";
import { printStatus } from "./render.ts";

export const verb: Verb = {
  command: "dash",
  describe: `open the live dashboard (prints ${kbz("status")} when not on a terminal)`,
  builder: (y) =>
    y
      .option("scope", {
        type: "string",
        describe: "use .unlazy/ID (or UNLAZY_SCOPE); a picker when several exist",
        requiresArg: true,
      })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("slots", {
        type: "string",
        describe: `slots for the Queue's ${kbz("next")} advice (default ${DEFAULT_SLOTS})`,
        requiresArg: true,
      }),
  handler: async (argv) => {
    const slots = argv.slots === undefined ? undefined : parseInteger(argv.slots, 1);
    if (slots === null) throw new UsageError("--slots must be a positive integer");
    const root = rootFor(argv);
    const scope = requestedScope(argv);
    if (!onTerminal()) return printStatus(snapshotFor({ root, scope: scope ?? undefined }), false);
    return openDashboard(root, scope, slots);
  },
};

export const demoVerb: Verb = {
  command: "demo",
  describe: "open the dashboard on a built-in example plan whose leaves advance while you watch",
  builder: (y) => y,
  handler: async () => {
    if (onTerminal()) return openDemo();
    const { printDemo } = await import("./demo.ts");
    return printDemo(false, null);
  },
};
