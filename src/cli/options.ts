// Options shared by several verbs, declared once.
import type { Argv } from "yargs";
import { UsageError } from "../core/errors.ts";
import { pathList } from "../core/plan/table.ts";

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

/** A comma-separated flag value: no blank items, no duplicates. */
export function list(flag: string, raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const items = String(raw)
    .split(",")
    .map((s) => s.trim());
  if (items.some((s) => s === ""))
    throw new UsageError(`--${flag}: expected a comma-separated list with no blank items, got ${JSON.stringify(raw)}`);
  if (new Set(items).size !== items.length) throw new UsageError(`--${flag}: contains duplicates (${raw})`);
  return items;
}

/** A comma-separated list of path globs relative to the root (plan add's --owns, structure split's parts). */
export function globs(flag: string, raw: string | undefined, required: boolean): string[] {
  const items = list(flag, raw);
  if (required && items.length === 0)
    throw new UsageError(`--${flag}: expected at least one path glob relative to the root (e.g. src/feature/**)`);
  return pathList(items, `--${flag}`, (m) => {
    throw new UsageError(`${m}; expected relative path globs with no .., no leading / and no placeholders`);
  });
}
