// kbz hook stop | install: the Claude Code Stop hook and its settings installer.
// `kbz hook stop` normally never reaches yargs (src/main.ts answers it first, fast);
// it is registered here so `kbz hook --help` documents it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import {
  displayCommand,
  installSettings,
  managedHandler,
  settingsPath,
  SettingsRefusal,
  type InstallOutcome,
  type ManagedHandler,
  type SettingsKind,
} from "../core/hook/install.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/discover.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, json, out } from "./output.ts";
import { describe } from "../core/errors.ts";

interface HookArgs {
  action: string;
  scope?: string;
  shared?: boolean;
  global?: boolean;
  fallback?: boolean;
  uninstall?: boolean;
  json?: boolean;
}

/** A compiled binary runs from Bun's embedded filesystem; `bun src/main.ts` does not. */
function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
}

/** hooks/stop-hook.mjs next to the checkout this kbz was built from. */
export function fallbackHookPath(): string {
  return isCompiled()
    ? path.resolve(path.dirname(process.execPath), "..", "hooks", "stop-hook.mjs")
    : path.resolve(import.meta.dir, "..", "..", "hooks", "stop-hook.mjs");
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return null;
}

function wantedHandler(argv: HookArgs, scope: string | null): ManagedHandler {
  if (!argv.fallback) {
    return isCompiled()
      ? managedHandler(process.execPath, ["hook", "stop"], scope)
      : managedHandler(process.execPath, [path.resolve(import.meta.dir, "..", "main.ts"), "hook", "stop"], scope);
  }
  const script = fallbackHookPath();
  if (!fs.existsSync(script)) throw new UsageError(`the Node fallback hook is not at ${script}; install from a kbz checkout`);
  const node = findOnPath("node");
  if (!node) throw new UsageError("--fallback needs node (>= 16) on PATH");
  return managedHandler(node, [script], scope);
}

function scopeOption(argv: HookArgs): string | null {
  if (argv.scope === undefined) return null;
  if (!isValidId(argv.scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  return argv.scope;
}

function report(o: InstallOutcome, handler: ManagedHandler | null, scope: string | null, kind: SettingsKind): void {
  switch (o.result) {
    case "already-installed":
      out(`Already installed in ${o.target} (idempotent, nothing changed).`);
      return;
    case "nothing-to-remove":
      out(`Nothing to remove: no kbz Stop hook found in ${o.target}`);
      return;
    case "removed":
      out(`Removed kbz Stop hook (${o.removed} handler(s)) from ${o.target}. Sibling handlers were preserved.`);
      return;
    case "installed":
      out(`Installed kbz Stop hook into ${o.target}`);
      out(`  command: ${displayCommand(handler!)}`);
      out(`  scope:   ${scope ?? "resolved per session/pipeline"}`);
      out(`  backup:  ${o.backup ?? "not needed for a new file"}`);
      out("  note:    keep .unlazy/ and .unlazy-hook-state.json ignored; they are local coordination state.");
      if (kind === "shared") out("  warning: shared settings contain this machine's absolute paths.");
  }
}

function install(argv: HookArgs): ExitCode {
  if (argv.shared && argv.global) throw new UsageError("--shared and --global are mutually exclusive");
  if (argv.uninstall && argv.fallback) throw new UsageError("--fallback only applies when installing");
  // --scope is validated but irrelevant to --uninstall, which removes every kbz handler (as unlazy).
  const scope = scopeOption(argv);
  const kind: SettingsKind = argv.global ? "global" : argv.shared ? "shared" : "local";
  const target = settingsPath(kind, process.cwd(), os.homedir());
  const handler = argv.uninstall ? null : wantedHandler(argv, scope);
  let outcome: InstallOutcome;
  try {
    outcome = installSettings({ target, handler, ownPaths: [fallbackHookPath()] });
  } catch (e) {
    const why = e instanceof SettingsRefusal ? `refusing to touch ${target}: ${e.message}` : `could not update ${target}: ${describe(e)}`;
    err(`kbz: ${why}`);
    if (argv.json) json({ schema: 1, result: "refused", target, error: why });
    return 2;
  }
  if (argv.json) {
    json({
      schema: 1,
      result: outcome.result,
      target: outcome.target,
      handler,
      scope,
      backup: outcome.backup,
      removed: outcome.removed,
    });
  } else {
    report(outcome, handler, scope, kind);
  }
  return 0;
}

export const verb: Verb = {
  command: "hook <action>",
  describe: "the Claude Code Stop hook: `hook stop` (reads the payload on stdin) or `hook install`",
  builder: (y) =>
    y
      .positional("action", { choices: ["stop", "install"], describe: "stop: decide one Stop event; install: write Claude Code settings" })
      .option("scope", { type: "string", requiresArg: true, describe: "pin the hook to one .unlazy/ID pipeline" })
      .option("shared", { type: "boolean", describe: "install into .claude/settings.json (committed)" })
      .option("global", { type: "boolean", describe: "install into ~/.claude/settings.json" })
      .option("fallback", { type: "boolean", describe: "run hooks/stop-hook.mjs with node instead of this binary" })
      .option("uninstall", { type: "boolean", describe: "remove only kbz handlers, keeping every other hook" })
      .option("json", { type: "boolean", describe: "print one JSON object (install)" }),
  handler: async (argv: HookArgs): Promise<ExitCode> => {
    if (argv.action === "install") return install(argv);
    const { stopHookMain } = await import("../hook/entry.ts");
    return stopHookMain(process.argv.slice(process.argv.indexOf("stop") + 1));
  },
};
