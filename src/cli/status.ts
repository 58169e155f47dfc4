// kbz status: report every gate's state and the verdict; never executes, never writes.
import { snapshotFor } from "./context.ts";
import type { Verb } from "./index.ts";
import { targetOptions } from "./options.ts";
import { printStatus } from "./render.ts";

export const verb: Verb = {
  command: "status [ledger..]",
  describe: "show the gates not met and the verdict (never executes, never writes)",
  builder: (y) => targetOptions(y).option("all", { type: "boolean", describe: "list every gate, met ones too" }),
  handler: (argv) => printStatus(snapshotFor(argv, { solo: true }), !!argv.json, false, !!argv.all),
};
