// kbz sign: a person signs off one manual gate. Ticks its box and writes the EVIDENCE text in one
// atomic write under the ledger's lock. Runnable gates are refused: only kbz check ticks those.
import * as path from "node:path";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { applyGateEdit } from "../core/ledger/edit.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import { loadLedgerFile } from "../io/read.ts";
import { writeAtomic } from "../io/fs.ts";
import { withFileLock } from "../io/lock.ts";
import type { ExitCode, Verb } from "./index.ts";
import { out } from "./output.ts";
import { emit, envelope } from "./envelope.ts";
import { rootFor } from "./context.ts";
import { guarded, infra, RefusedError } from "./pipeline.ts";

interface SignArgs {
  ledger?: string;
  gate?: string;
  evidence?: string;
  root?: string;
  json?: boolean;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

function load(file: string, root: string) {
  const entry = loadLedgerFile(file, root, false);
  if (!entry.ledger || entry.problems.length > 0) throw new FileProblemsError(entry.problems);
  return entry;
}

async function sign(argv: SignArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  if (!argv.ledger || !argv.gate) throw new UsageError("sign needs LEDGER and GATE (e.g. kbz sign GATES.md G4 --evidence \"reviewed by Ana\")");
  const evidence = String(argv.evidence ?? "").trim();
  if (evidence === "" || evidence.toLowerCase() === "pending") throw new UsageError("--evidence: expected what the person checked, in words (not blank, not pending)");
  if (CONTROL.test(evidence) || evidence.length > 500) throw new UsageError("--evidence: expected one line of at most 500 printable characters");
  // Relative to --root when given, else to the current folder (the root found above may lie higher).
  const file = path.resolve(argv.root !== undefined ? root : process.cwd(), argv.ledger);
  const gateId = String(argv.gate).replace(/^.*:/, "");
  const entry = load(file, root);
  const find = (l: NonNullable<typeof entry.ledger>) => {
    const g = l.gates.find((x) => x.id === gateId);
    if (!g) throw new UsageError(`GATE: no gate ${gateId} in ${entry.display} (have: ${l.gates.map((x) => x.id).join(", ") || "none"})`);
    if (isRunnable(g)) throw new RefusedError(`${entry.stem}:${gateId} is runnable (it has CHECK/EXPECT): kbz check ticks it when its CHECK passes; only manual gates are signed`);
    if (l.abandons.has(g.id)) throw new RefusedError(`${entry.stem}:${gateId} is abandoned; remove its ABANDON: line first`);
    return g;
  };
  find(entry.ledger!);
  const changed = await infra(() =>
    withFileLock(root, file, () => {
      const fresh = load(file, root).ledger!;
      const text = applyGateEdit(fresh, find(fresh), { checked: true, evidence });
      if (parseLedger(text, entry.stem).errors.length > 0) throw new RefusedError(`signing ${gateId} would make ${entry.display} invalid; nothing written`);
      if (text === fresh.text) return false;
      writeAtomic(file, text);
      return true;
    }),
  );
  const qid = `${entry.stem}:${gateId}`;
  if (argv.json) emit(envelope(changed ? "signed" : "unchanged", 0, { gate: qid, file: entry.display, evidence }));
  else out(changed ? `SIGNED ${qid}: ${evidence}` : `${qid} was already signed with this evidence`);
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
      .option("root", { type: "string", describe: "repository root (default: current directory)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(
        "For the person who reviewed the outcome, not for the agent on its own judgement: an agent asks the user " +
          "to review a manual gate, and runs kbz sign only with the evidence text the user gave.\n\n" +
          "Exit codes: 0 signed (or already); 2 usage, a runnable or unknown gate, or an invalid ledger (nothing written).",
      ),
  handler: (argv) => guarded(argv as SignArgs, () => sign(argv as SignArgs)),
};
