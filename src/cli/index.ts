// The yargs edge: one module per verb, registered explicitly (no commandDir in a bundle).
import yargs, { type Argv } from "yargs";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { VERSION } from "../version.ts";
import { err, json, printProblems } from "./output.ts";
import * as status from "./status.ts";
import * as lint from "./lint.ts";
import * as home from "./home.ts";
import * as dash from "./dash.ts";

export type ExitCode = 0 | 1 | 2;

export interface Verb {
  command: string | string[];
  describe: string;
  builder: (y: Argv) => Argv<any>;
  handler: (argv: any) => Promise<ExitCode> | ExitCode;
}

const VERBS: Verb[] = [home.verb, status.verb, lint.verb, dash.verb, dash.demoVerb];

export async function runCli(args: string[]): Promise<ExitCode> {
  let code: ExitCode = 0;
  let usageFailure: string | null = null;
  const wantsJson = args.includes("--json");
  let y = yargs(args)
    .scriptName("kbz")
    .locale("en")
    .usage("kbz: acceptance gates, approvals and scheduling for coding agents\n\nUsage: kbz [command] [options]")
    .version(VERSION)
    .alias("version", "V")
    .help()
    .alias("help", "h")
    .strict()
    .wrap(Math.min(100, process.stdout.columns || 100))
    .parserConfiguration({ "populate--": true, "duplicate-arguments-array": false })
    .exitProcess(false)
    .fail((msg, e) => {
      if (e && !(e instanceof UsageError)) throw e;
      usageFailure = msg || e?.message || "usage error";
    });
  for (const v of VERBS) {
    y = y.command({
      command: v.command,
      describe: v.describe,
      builder: v.builder,
      handler: async (argv: any) => {
        code = await v.handler(argv);
      },
    } as any);
  }
  try {
    await y.parseAsync();
  } catch (e) {
    return reportFailure(e, wantsJson);
  }
  if (usageFailure !== null) {
    err(`kbz: ${usageFailure}`);
    err("run kbz --help for usage");
    return 2;
  }
  return code;
}

function reportFailure(e: unknown, wantsJson: boolean): ExitCode {
  if (e instanceof FileProblemsError) {
    printProblems(e.problems);
    if (wantsJson) json({ schema: 1, verdict: "invalid", exit: 2, errors: e.problems });
    return 2;
  }
  if (e instanceof UsageError) {
    err(`kbz: ${e.message}`);
    if (wantsJson) json({ schema: 1, verdict: "invalid", exit: 2, errors: [{ message: e.message }] });
    return 2;
  }
  err(`kbz: internal error: ${(e as Error)?.stack ?? String(e)}`);
  return 2;
}
