// The yargs edge: one module per verb, registered explicitly (no commandDir in a bundle).
import yargs, { type Argv } from "yargs";
import { UsageError } from "../core/errors.ts";
import { kbz, type KbzVerb } from "../core/text/command.ts";
import { VERSION_LINE } from "../version.ts";
import { fail, USAGE_HINT, type ExitCode } from "./envelope.ts";
import { helpPage, TOP_HELP } from "./help.ts";
import { err, out } from "./output.ts";
import { suggestion } from "./suggest.ts";
export type { ExitCode } from "./envelope.ts";

export interface Verb {
  command: string | string[];
  describe: string;
  builder: (y: Argv) => Argv<any>;
  handler: (argv: any) => Promise<ExitCode> | ExitCode;
  /**
   * Keys an existing consumer reads in this verb's failure object (next: schedule.mjs's
   * `{"action":"invalid","error":…}`), added to the envelope; the envelope itself is the same.
   */
  errorFields?: (message: string, args: string[]) => Record<string, unknown>;
}

// Each verb's module is loaded only when needed: a run names one verb, so only its code is
// evaluated at startup (the others cost ~30-50 ms of module evaluation). Help and unknown
// verbs load them all, in this order, which is the order `kbz --help` lists them.
const VERB_MODULES: [name: string, load: () => Promise<Verb>][] = [
  ["", async () => (await import("./home.ts")).verb],
  ["status", async () => (await import("./status.ts")).verb],
  ["lint", async () => (await import("./lint.ts")).verb],
  ["check", async () => (await import("./check.ts")).verb],
  ["approvals", async () => (await import("./approvals.ts")).verb],
  ["approve", async () => (await import("./approve.ts")).verb],
  ["scope", async () => (await import("./scope.ts")).verb],
  ["wave", async () => (await import("./wave.ts")).verb],
  ["next", async () => (await import("./next.ts")).verb],
  ["plan", async () => (await import("./plan.ts")).verb],
  ["advance", async () => (await import("./advance.ts")).verb],
  ["verify", async () => (await import("./verify.ts")).verb],
  ["structure", async () => (await import("./structure.ts")).verb],
  ["hook", async () => (await import("./hook.ts")).verb],
  ["doctor", async () => (await import("./doctor.ts")).verb],
  ["skill", async () => (await import("./skill.ts")).verb],
  ["init", async () => (await import("./init.ts")).verb],
  ["sign", async () => (await import("./sign.ts")).verb],
  ["ci", async () => (await import("./ci.ts")).verb],
  ["dash", async () => (await import("./dash.ts")).verb],
  ["coordinator", async () => (await import("./coordinator.ts")).verb],
  ["demo", async () => (await import("./dash.ts")).demoVerb],
];

/** The verbs this invocation needs: the named one (plus the default), or all of them. */
async function loadVerbs(args: string[]): Promise<Verb[]> {
  const first = args.find((a) => !a.startsWith("-"));
  const wantsHelp = args.some((a) => a === "--help" || a === "-h");
  const named = VERB_MODULES.find(([name]) => name !== "" && name === first);
  if (named && !(wantsHelp && args.indexOf(first!) > args.findIndex((a) => a === "--help" || a === "-h")))
    return [await named[1]()];
  if (first === undefined && !wantsHelp) return [await VERB_MODULES[0]![1]()];
  return Promise.all(VERB_MODULES.map(([, load]) => load()));
}

export async function runCli(args: string[]): Promise<ExitCode> {
  // `kbz check --approve=<sig>` (issue 28 item 5): yargs reads --approve as a flag, the signature apart.
  if (args[0] === "check")
    args = args.flatMap((a) =>
      a.startsWith("--approve=") ? ["--approve", `--approve-sig=${a.slice("--approve=".length)}`] : [a],
    );
  const VERBS = await loadVerbs(args);
  // yargs only parses and validates; the chosen verb runs afterwards, so a usage
  // failure found late in validation can never follow a verb that already acted.
  let chosen: { verb: Verb; argv: any } | null = null;
  let usageFailure: string | null = null;
  let arrays = new Set<string>();
  let optionNames: string[] = ["help", "version", "json", "root", "coordinator"];
  const wantsJson = args.includes("--json");
  // After `--` a --help is a file name (kbz lint -- --help).
  const flags = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
  const wantsHelp = flags.includes("--help") || flags.includes("-h");
  // kbz --help, or a verb's or an action's own page (issue 43: `plan add --help` printed all of plan).
  const page = !wantsHelp
    ? null
    : VERB_MODULES.some(([n]) => n !== "" && flags.includes(n))
      ? pageFor(flags)?.text
      : TOP_HELP;
  if (page) {
    for (const line of page.trimEnd().split("\n")) out(line);
    // The check page names the containment in force on this machine (it differs by machine).
    if (pageFor(flags)?.key === "check")
      out(
        `Runs only what a person approved; containment: ${(await import("../ops/check.ts")).checkContainment().describe}.`,
      );
    return 0;
  }
  let y = yargs(args)
    .scriptName("kbz")
    .locale("en")
    .usage("kbz: acceptance gates, approvals and scheduling for coding agents\n\nUsage: kbz [command] [options]")
    .version(VERSION_LINE)
    .alias("version", "V")
    .help()
    .alias("help", "h")
    .strict()
    // Only help is wrapped; asking process.stdout for its width would create the stream.
    // Help is not wrapped: an agent reads it, and padding to a width only costs bytes.
    .wrap(wantsHelp ? null : 100)
    .option("coordinator", {
      type: "string",
      global: true,
      requiresArg: true,
      describe: "etcd://HOST:PORT,…: keep leases and waves on etcd (default: files)",
    })
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
        // A verb's help shows its own options; -h and -V are in kbz --help.
        const built = v.builder(sub).strict().hide("help").hide("version").hide("coordinator");
        const opts = (built as any).getOptions();
        arrays = new Set(opts.array as string[]);
        optionNames = [
          ...Object.keys(opts.key ?? {}),
          ...Object.values((opts.alias ?? {}) as Record<string, string[]>).flat(),
        ];
        return built;
      },
      handler: (argv: any) => {
        chosen = { verb: v, argv };
      },
    } as any);
  }
  const named = VERBS.find((v) => String(v.command).split(" ")[0] === args.find((a) => !a.startsWith("-")));
  const failure = (e: unknown): ExitCode =>
    usageFailed(e, { args, flags, wantsJson, named, verbs: VERB_MODULES.map(([n]) => n).filter(Boolean), optionNames });

  try {
    if (wantsHelp) {
      // yargs prints a verb's help with console.log: print it compacted instead.
      const log = console.log;
      let help = "";
      console.log = (...a: unknown[]) => void (help += a.join(" ") + "\n");
      try {
        await y.parseAsync();
      } finally {
        console.log = log;
      }
      if (help !== "") {
        for (const line of compactHelp(help).trimEnd().split("\n")) out(line);
        if (usageFailure === null) return 0;
      }
    } else await y.parseAsync();
    if (usageFailure !== null) return failure(new UsageError(usageFailure));
    const run = chosen as { verb: Verb; argv: any } | null;
    if (!run) return 0;
    rejectRepeatedValues(run.argv, arrays);
    if (COORDINATED.has(String(run.argv._?.[0] ?? ""))) await useCoordinator(run.argv);
    return await run.verb.handler(run.argv);
  } catch (e) {
    if ((e as Error)?.name === "YError") return failure(new UsageError((e as Error).message));
    return failure(e);
  }
}

/**
 * Report a failure. A mistyped verb, action or flag names the nearest one, and the usage line of
 * the verb (or action) it was given to; the last line names that page, not kbz --help (issue 43).
 */
function usageFailed(
  error: unknown,
  c: {
    args: string[];
    flags: string[];
    wantsJson: boolean;
    named: Verb | undefined;
    verbs: string[];
    optionNames: string[];
  },
): ExitCode {
  let e = error;
  let found: { key: string; text: string } | null = null;
  let didYouMean: string | null = null;
  if (e instanceof UsageError && e.hint === USAGE_HINT) {
    didYouMean = suggestion(e.message, c.args, { verbs: c.verbs, options: c.optionNames });
    found = c.named ? pageFor(c.flags) : null;
    const usage = found ? `usage: ${found.text.split("\n")[0]}` : null;
    const both = [didYouMean, usage].filter((x) => x !== null).join("; ");
    if (both !== "") e = new UsageError(e.message, { hint: both });
  }
  // The scheduler's consumers match its error classes ("unknown or duplicate option", …).
  if (c.named?.errorFields && e instanceof UsageError)
    e = new UsageError(usageMessage(e.message), e.hint === undefined ? {} : { hint: e.hint });
  if (found !== null && !c.wantsJson) {
    err(`kbz: ${(e as Error).message}`);
    if (didYouMean !== null) err(`  hint: ${didYouMean}`);
    err(`  usage: ${found.text.split("\n")[0]}`);
    err(`run ${kbz(found.key as KbzVerb)} --help for the whole page`);
    return 2;
  }
  return fail(e, c.wantsJson, c.named?.errorFields?.(e instanceof Error ? e.message : String(e), c.args) ?? {});
}

/** The help page `kbz VERB [ACTION] …` asks for: the verb's, or its action's when it has one. */
function pageFor(flags: string[]): { key: string; text: string } | null {
  const words = flags.filter((a) => !a.startsWith("-"));
  const verb = words[0];
  if (verb === undefined) return null;
  const action = words.slice(1).find((w) => helpPage(verb, w) !== helpPage(verb, undefined));
  const text = helpPage(verb, action);
  return text === null ? null : { key: action === undefined ? verb : `${verb} ${action}`, text };
}

/** A verb's help without what costs bytes and says little: flag type tags, empty array defaults. */
export function compactHelp(text: string): string {
  return text
    .replace(/ {2}\[boolean\]$/gm, "")
    .replace(/ {2}\[array\] \[default: \[\]\]$/gm, "")
    .replace(/\n{3,}/g, "\n\n");
}

/** yargs' wording mapped onto the original scheduler's error classes (next and structure). */
export function usageMessage(message: string): string {
  if (/Unknown argument|more than once/i.test(message)) return `unknown or duplicate option (${message})`;
  if (/Not enough arguments|needs a non-empty value/i.test(message)) return `missing option value (${message})`;
  return message;
}

/** A value option given twice is ambiguous (which one wins?); a repeated boolean is harmless. */
function rejectRepeatedValues(argv: Record<string, unknown>, arrays: Set<string>): void {
  for (const [key, value] of Object.entries(argv)) {
    if (value === "" && key !== "_" && key !== "--" && !arrays.has(key))
      throw new UsageError(`option --${key} needs a non-empty value`);
    if (!Array.isArray(value) || key === "_" || key === "--" || key === "$0" || arrays.has(key) || key.includes("-"))
      continue;
    if (value.every((v) => typeof v === "boolean")) argv[key] = value[value.length - 1];
    else throw new UsageError(`option --${key} was given more than once`);
  }
}

/** Verbs that read or write coordination state (leases, waves, log, session, leaf states). */
const COORDINATED = new Set(["", "status", "check", "scope", "wave", "next", "structure", "dash", "advance", "plan"]);

/**
 * Install the coordination adapter (the files, or etcd) for the command's root before it reads anything. With a coordinator, every
 * lease this clone lost since its last command is reported first: its paths are no longer its own.
 */
async function useCoordinator(argv: { root?: string; coordinator?: string; scope?: string }): Promise<void> {
  const { openCoordination } = await import("../ops/workspace.ts");
  const { rootFor } = await import("./context.ts");
  const root = rootFor(argv);
  const lost = await openCoordination(root, argv.coordinator, argv.scope ?? process.env.UNLAZY_SCOPE ?? null);
  for (const l of lost) {
    err(
      `kbz: warning: lease ${l.scope}/${l.leaf} was lost (${l.reason}); ${l.globs.join(", ")} may now be claimed by others: stop editing them and run ${kbz("scope claim", { scope: l.scope, leaf: l.leaf })}`,
    );
  }
}
