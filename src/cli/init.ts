// kbz init: start a ledger from the skill's templates. Never overwrites an existing file.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/ids.ts";
import { canonicalRoot } from "../io/discover.ts";
import { ensureRealDir, lstatOrNull, writeAtomic } from "../io/fs.ts";
import { freshAccess, freshPlan } from "../core/plan/edit.ts";
import { TEMPLATES } from "../skill/files.ts";
import type { ExitCode, Verb } from "./index.ts";
import { emit, envelope } from "./envelope.ts";
import { out } from "./output.ts";

interface InitArgs {
  scope?: string;
  root?: string;
  json?: boolean;
}

/** The leaf template as a solo GATES.md: no OWNS line (nothing to lease) and a task title. */
export function soloLedger(): string {
  return TEMPLATES.leaf
    .replace(/^# Gates: .*$/m, "# Gates: <what this task delivers>")
    .replace(/^OWNS: .*\n/m, "");
}

/** Atomic and no-clobber: the full file appears under its name at once, or not at all. */
function createNew(target: string, text: string): void {
  const tmp = `${target}.init.tmp`;
  writeAtomic(tmp, text, { mode: 0o644 });
  try {
    fs.linkSync(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new UsageError(`${target} already exists; kbz init never overwrites a ledger`);
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function run(argv: InitArgs): ExitCode {
  const root = canonicalRoot(argv.root ?? process.cwd());
  if (argv.scope !== undefined && !isValidId(argv.scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  const files: [string, string][] = argv.scope
    ? [
        [path.join(".unlazy", argv.scope, "PLAN.md"), freshPlan(argv.scope)],
        [path.join(".unlazy", argv.scope, "ACCESS.json"), freshAccess()],
        [path.join(".unlazy", argv.scope, "GATES.md"), TEMPLATES.node.split("<scope>").join(argv.scope)],
      ]
    : [["GATES.md", soloLedger()]];
  for (const [rel] of files) {
    if (lstatOrNull(path.join(root, rel))) throw new UsageError(`${rel} already exists; kbz init never overwrites a ledger`);
  }
  if (argv.scope) ensureRealDir(path.join(root, ".unlazy", argv.scope, "gates"), root, 0o755);
  for (const [rel, text] of files) createNew(path.join(root, rel), text);
  const written = files.map(([rel]) => rel);
  if (argv.json) {
    emit(envelope("created", 0, { result: "created", root, files: written }));
  } else {
    out(`created ${written.join(", ")}`);
    if (argv.scope) out(`next: kbz plan add --scope ${argv.scope} LEAF --owns GLOB [--needs A,B] for each leaf, then kbz next --scope ${argv.scope}`);
    else out(`Replace the example gates with the outcomes of your task, then run: kbz lint ${written[written.length - 1]}`);
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
