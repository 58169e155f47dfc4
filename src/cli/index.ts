// The yargs edge: one module per verb, registered explicitly (no commandDir in a bundle).
import yargs, { type Argv } from "yargs";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { VERSION } from "../version.ts";
import { err, json, printProblems } from "./output.ts";
import * as status from "./status.ts";
import * as lint from "./lint.ts";
import * as home from "./home.ts";
import * as scope from "./scope.ts";
import * as wave from "./wave.ts";
import * as check from "./check.ts";
import * as approvals from "./approvals.ts";
import * as next from "./next.ts";
import * as hook from "./hook.ts";
import * as skill from "./skill.ts";
import * as init from "./init.ts";
import * as dash from "./dash.ts";
import * as verify from "./verify.ts";
import * as structure from "./structure.ts";

export type ExitCode = 0 | 1 | 2;

export interface Verb {
  command: string | string[];
  describe: string;
  builder: (y: Argv) => Argv<any>;
  handler: (argv: any) => Promise<ExitCode> | ExitCode;
  /** A verb whose callers parse its errors (e.g. next's `{"action":"invalid"}`) reports usage errors itself. */
  usageError?: (message: string, args: string[]) => ExitCode;
}

const VERBS: Verb[] = [
  home.verb,
  status.verb,
  lint.verb,
  check.verb,
  approvals.verb,
  scope.verb,
  wave.verb,
  next.verb,
  verify.verb,
  structure.verb,
  hook.verb,
  skill.verb,
  init.verb,
  dash.verb,
  dash.demoVerb,
];

export async function runCli(args: string[]): Promise<ExitCode> {
  // yargs only parses and validates; the chosen verb runs afterwards, so a usage
  // failure found late in validation can never follow a verb that already acted.
  let chosen: { verb: Verb; argv: any } | null = null;
  let usageFailure: string | null = null;
  let arrays = new Set<string>();
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
    .parserConfiguration({ "populate--": true })
    .exitProcess(false)
    .fail((msg, e) => {
      usageFailure = msg || e?.message || "usage error";
    });
  // yargs renders and caches the full help text after every command it runs, in case
  // showHelp() is called later; we never call it, and rendering costs ~50 ms per run.
  (y as any).getInternalMethods().getUsageInstance().cacheHelpMessage = () => {};
  for (const v of VERBS) {
    y = y.command({
      command: v.command,
      describe: v.describe,
      builder: (sub: Argv) => {
        const built = v.builder(sub).strict();
        arrays = new Set((built as any).getOptions().array as string[]);
        return built;
      },
      handler: (argv: any) => {
        chosen = { verb: v, argv };
      },
    } as any);
  }
  const named = VERBS.find((v) => v.usageError && String(v.command).split(" ")[0] === args[0]);
  try {
    await y.parseAsync();
    if (usageFailure !== null && named) return named.usageError!(usageFailure, args);
    if (usageFailure !== null) {
      err(`kbz: ${usageFailure}`);
      err("run kbz --help for usage");
      return 2;
    }
    const run = chosen as { verb: Verb; argv: any } | null;
    if (!run) return 0;
    rejectRepeatedValues(run.argv, arrays);
    return await run.verb.handler(run.argv);
  } catch (e) {
    if (named && e instanceof UsageError) return named.usageError!(e.message, args);
    return reportFailure(e, wantsJson);
  }
}

/** A value option given twice is ambiguous (which one wins?); a repeated boolean is harmless. */
function rejectRepeatedValues(argv: Record<string, unknown>, arrays: Set<string>): void {
  for (const [key, value] of Object.entries(argv)) {
    if (value === "" && key !== "_" && key !== "--" && !arrays.has(key)) throw new UsageError(`option --${key} needs a non-empty value`);
    if (!Array.isArray(value) || key === "_" || key === "--" || key === "$0" || arrays.has(key) || key.includes("-")) continue;
    if (value.every((v) => typeof v === "boolean")) argv[key] = value[value.length - 1];
    else throw new UsageError(`option --${key} was given more than once`);
  }
}

function reportFailure(e: unknown, wantsJson: boolean): ExitCode {
  if (e instanceof FileProblemsError) {
    printProblems(e.problems);
    if (wantsJson) json({ schema: 1, verdict: "invalid", exit: 2, errors: e.problems });
    return 2;
  }
  if (e instanceof UsageError) {
    err(`kbz: ${e.message}`);
    err("run kbz --help for usage");
    if (wantsJson) json({ schema: 1, verdict: "invalid", exit: 2, errors: [{ message: e.message }] });
    return 2;
  }
  if ((e as Error)?.name === "YError") {
    err(`kbz: ${(e as Error).message}`);
    err("run kbz --help for usage");
    return 2;
  }
  err(`kbz: internal error: ${(e as Error)?.stack ?? String(e)}`);
  return 2;
}
