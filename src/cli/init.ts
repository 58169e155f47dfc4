// kbz init: start a ledger from the skill's templates. Never overwrites an existing file.
import { initLedgers } from "../ops/init.ts";
import { commitLine } from "../core/workspace/local-state.ts";
import { kbz, optional, placeholder as ph } from "../core/text/command.ts";
import type { ExitCode, Verb } from "./index.ts";
import { emit, envelope } from "./envelope.ts";
import { out } from "./output.ts";

interface InitArgs {
  scope?: string;
  root?: string;
  json?: boolean;
}

function run(argv: InitArgs): ExitCode {
  const { root, written, gitignore } = initLedgers(argv.root ?? process.cwd(), argv.scope);
  if (argv.json) {
    emit(envelope("created", 0, { result: "created", root, files: written, gitignore }));
  } else {
    out(`created ${written.join(", ")}`);
    out(commitLine(gitignore.added.length, gitignore.skipped));
    if (argv.scope)
      out(
        `next: ${kbz("plan add", { scope: argv.scope }, ph("LEAF"), { owns: ph("GLOB"), needs: optional(ph("A,B")) })} for each leaf, then ${kbz("next", { scope: argv.scope })}`,
      );
    else
      out(
        `Replace the example gates with the outcomes of your task, then run: ${kbz("lint", written[written.length - 1]!)}`,
      );
  }
  return 0;
}

export const verb: Verb = {
  command: "init",
  describe: "write a starter GATES.md (or, with --scope, .unlazy/ID/ with PLAN.md, ACCESS.json, GATES.md, gates/)",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "start a scope, .unlazy/ID", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: current directory)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: (argv: InitArgs) => run(argv),
};
