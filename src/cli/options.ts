// Options shared by several verbs, declared once.
import type { Argv } from "yargs";

export function targetOptions<T>(y: Argv<T>) {
  return y
    .positional("ledger", { type: "string", array: true, describe: "ledger files (default: found from the root)" })
    .option("scope", { type: "string", describe: "use .unlazy/ID (or UNLAZY_SCOPE)", requiresArg: true })
    .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
    .option("json", { type: "boolean", describe: "print one JSON object" });
}

/** Every positional, including those after `--`. */
export function positionals(argv: { ledger?: string[]; "--"?: string[] }): string[] {
  return [...(argv.ledger ?? []), ...(argv["--"] ?? [])].map(String);
}
