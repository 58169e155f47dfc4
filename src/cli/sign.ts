// kbz sign: a person signs off one manual gate (ops/sign.ts signGate, shared with the
// dashboard's `s`): ticks its box and writes the EVIDENCE text in one atomic write under the
// ledger's lock. Runnable gates are refused: only kbz check ticks those.
import * as path from "node:path";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import { signGate } from "../ops/sign.ts";
import { stemOf } from "../core/ledger/model.ts";
import type { ExitCode, Verb } from "./index.ts";
import { out } from "./output.ts";
import { emit, envelope } from "./envelope.ts";
import { rootFor } from "./context.ts";

interface SignArgs {
  ledger?: string;
  gate?: string;
  evidence?: string;
  replace?: boolean;
  root?: string;
  json?: boolean;
}

async function sign(argv: SignArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  if (!argv.ledger || !argv.gate)
    throw new UsageError(
      `sign needs LEDGER and GATE (e.g. ${kbz("sign", "GATES.md", "G4", { evidence: ph('"reviewed by Ana"') })})`,
    );
  // Relative to --root when given, else to the current folder (the root found above may lie higher).
  const file = path.resolve(argv.root !== undefined ? root : process.cwd(), argv.ledger);
  const qid = `${stemOf(file)}:${String(argv.gate).replace(/^.*:/, "")}`;
  const r = await signGate({
    root,
    scope: null,
    qid,
    files: [file],
    ...(argv.evidence === undefined ? {} : { evidence: String(argv.evidence) }),
    replace: !!argv.replace,
    env: process.env,
  });
  const shown = path.relative(root, r.file);
  const inputs = r.inputs ? Object.keys(r.inputs).length : null;
  if (argv.json)
    emit(
      envelope(r.status === "written" ? "signed" : "unchanged", 0, {
        gate: qid,
        file: shown,
        inputs,
        replaced: r.replaced,
      }),
    );
  else {
    const bound = inputs !== null ? ` (bound to ${inputs} INPUTS file${inputs === 1 ? "" : "s"})` : "";
    out(
      r.status === "written"
        ? `SIGNED ${qid} in ${shown}${bound}`
        : `${qid} was already signed with this evidence${bound}`,
    );
  }
  return 0;
}

export const verb: Verb = {
  command: "sign <ledger> <gate>",
  describe: "a person signs off a manual gate: tick its box and write the evidence (refuses runnable gates)",
  builder: (y) =>
    y
      .positional("ledger", { type: "string", describe: "the ledger file" })
      .positional("gate", { type: "string", describe: "the gate id (G4 or leaf-1.1:G4)" })
      .option("evidence", { type: "string", describe: "what the person checked, in words", requiresArg: true })
      .option("replace", {
        type: "boolean",
        describe: "sign a gate that is already signed again (the old evidence stays in the log)",
      })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(
        "A person's act: run it in a terminal (kbz refuses without one, and under an agent host: a host's marker or " +
          "a host among its parent processes). With git's user.signingKey set the sign-off is also signed into " +
          ".kbz/signed/ (the signed policy requires it). An agent asks the user to review the gate and sign it. The signature binds the gate's " +
          "INPUTS: when one changes, the gate reads STALE (input changed: FILE) until it is signed again (--replace). " +
          "The ledger must be inside the root.\n\n" +
          "Exit codes: 0 signed (or already); 1 refused (no person here); 2 usage, a runnable, abandoned or unknown gate, " +
          "a ledger outside the root, or an invalid ledger (nothing written).",
      ),
  handler: (argv) => sign(argv as SignArgs),
};
