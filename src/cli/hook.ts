// kbz hook stop | install | status: the stop guard for Claude Code, Codex, Cursor and Gemini CLI.
// `kbz hook stop` normally never reaches yargs (src/main.ts answers it first, fast);
// it is registered here so `kbz hook --help` documents it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, KbzError, UsageError } from "../core/errors.ts";
import { hookCommand, installSettings, SettingsRefusal, type InstallOutcome, type JsonObject } from "../io/hook/install.ts";
import { hookStatus, type HookPlace } from "../io/hook/status.ts";
import { HOST_NAMES, isHostName, TARGETS, type HostName, type Location } from "../core/hook/targets.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/ids.ts";
import type { ExitCode, Verb } from "./index.ts";
import { envelope, report } from "./envelope.ts";
import { out } from "./output.ts";

interface HookArgs {
  action: string;
  agent?: string;
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

/**
 * hooks/stop-hook.mjs of the checkout this kbz was built from (dist/kbz → hooks/), or of the `kbz`
 * npm package whose platform package holds this binary: node_modules/kbz-<target>/bin/kbz beside
 * node_modules/kbz/, or nested in node_modules/kbz/node_modules/. The first that exists; else the first.
 */
export function fallbackHookPath(execPath = process.execPath, compiled = isCompiled()): string {
  const hook = (...dir: string[]) => path.resolve(...dir, "hooks", "stop-hook.mjs");
  if (!compiled) return hook(import.meta.dir, "..", "..");
  const bin = path.dirname(execPath);
  const candidates = [hook(bin, "..")];
  const pkg = path.dirname(bin);
  if (path.basename(pkg).startsWith("kbz-")) candidates.push(hook(pkg, "..", "kbz"), hook(pkg, "..", ".."));
  return candidates.find((c) => fs.existsSync(c)) ?? candidates[0]!;
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

/** The words before `--agent`: this binary (or bun + main.ts), or node + the fallback script. */
function programWords(argv: HookArgs): string[] {
  if (!argv.fallback) {
    return isCompiled() ? [process.execPath, "hook", "stop"] : [process.execPath, path.resolve(import.meta.dir, "..", "main.ts"), "hook", "stop"];
  }
  const script = fallbackHookPath();
  if (!fs.existsSync(script)) throw new UsageError(`the Node fallback hook is not at ${script}; install kbz with npm (npm install -g kbz) or build it in a kbz checkout`);
  const node = findOnPath("node");
  if (!node) throw new UsageError("--fallback needs node (>= 16) on PATH");
  return [node, script];
}

function agentOption(argv: HookArgs): HostName {
  const a = argv.agent ?? "claude";
  if (!isHostName(a)) throw new UsageError(`--agent must be one of ${HOST_NAMES.join(", ")}`);
  return a;
}

function scopeOption(argv: HookArgs): string | null {
  if (argv.scope === undefined) return null;
  if (!isValidId(argv.scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  return argv.scope;
}

function locationOption(argv: HookArgs, host: HostName): Location {
  if (argv.shared && argv.global) throw new UsageError("--shared and --global are mutually exclusive");
  if (argv.global) return "global";
  if (argv.shared && host !== "claude") throw new UsageError(`--shared applies to claude only; ${host}'s project file is always shared (${TARGETS[host].file("shared", ".", "~", {})})`);
  return argv.shared ? "shared" : TARGETS[host].locations[0]!;
}

const TRUST_HINT = "codex skips an untrusted hook (silently under codex exec): open codex, run /hooks and trust kbz's Stop hook";

function report_(o: InstallOutcome, host: HostName, command: string | null, scope: string | null, location: Location): void {
  switch (o.result) {
    case "already-installed":
      out(`Already installed in ${o.target} (idempotent, nothing changed).`);
      break;
    case "nothing-to-remove":
      out(`Nothing to remove: no kbz stop hook found in ${o.target}`);
      return;
    case "removed":
      out(`Removed kbz stop hook (${o.removed} handler(s)) from ${o.target}. Sibling handlers were preserved.`);
      return;
    case "installed":
      out(`Installed kbz stop hook for ${host} into ${o.target}`);
      out(`  command: ${command}`);
      out(`  scope:   ${scope ?? "resolved per session/pipeline"}`);
      out(`  backup:  ${o.backup ?? "not needed for a new file"}`);
      out("  note:    keep .unlazy/ and .unlazy-hook-state.json ignored; they are local coordination state.");
      if (location === "shared") out("  warning: shared settings contain this machine's absolute paths.");
  }
  if (host === "codex") out(`  next:    ${TRUST_HINT}; kbz hook status shows whether it is trusted.`);
}

function install(argv: HookArgs): ExitCode {
  const host = agentOption(argv);
  if (argv.uninstall && argv.fallback) throw new UsageError("--fallback only applies when installing");
  // --scope is validated but irrelevant to --uninstall, which removes every kbz handler (as unlazy).
  const scope = scopeOption(argv);
  const location = locationOption(argv, host);
  const t = TARGETS[host];
  const file = t.file(location, process.cwd(), os.homedir(), process.env);
  const command = argv.uninstall ? null : hookCommand(programWords(argv), host, scope);
  const handler: JsonObject | null = command === null ? null : t.handler(command);
  let outcome: InstallOutcome;
  try {
    outcome = installSettings({ file, target: t, handler, ownPaths: [fallbackHookPath()] });
  } catch (e) {
    const hint = "fix or move the file by hand (or remove the link), then run the command again";
    if (e instanceof SettingsRefusal) throw new SettingsRefusal(`refusing to touch this file: ${e.message}`, file, hint);
    throw new KbzError(`could not update this file: ${describe(e)}`, { code: "settings-write", file, hint: "check the directory's permissions and the disk, then run the command again" });
  }
  const fields = { agent: host, target: outcome.target, handler, scope, backup: outcome.backup, removed: outcome.removed };
  return report(!!argv.json, envelope(outcome.result, 0, fields), () => report_(outcome, host, command, scope, location));
}

function placeLine(p: HookPlace): string {
  const where = `${p.host} ${p.location}`.padEnd(14);
  if (p.state === "unreadable") return `${where} unreadable ${p.file}: ${p.problem}`;
  const notes = [p.problem, p.trust === "needs-review" ? TRUST_HINT : null].filter(Boolean);
  return `${where} ${p.runnable && !p.problem && p.trust !== "needs-review" ? "ok        " : "attention "} ${p.file}${notes.length ? `: ${notes.join("; ")}` : ""}`;
}

function status(argv: HookArgs): ExitCode {
  const all = hookStatus(process.cwd(), os.homedir(), process.env, [fallbackHookPath()]);
  const places = argv.agent ? all.filter((x) => x.host === argv.agent) : all;
  const bad = places.filter((p) => p.state === "unreadable" || (p.state === "installed" && (!p.runnable || p.problem || p.trust === "needs-review")));
  const installed = places.filter((p) => p.state === "installed");
  const verdict = bad.length ? "needs-attention" : installed.length ? "ok" : "not-installed";
  return report(!!argv.json, envelope(verdict, bad.length ? 1 : 0, { places }), () => {
    // Only where kbz's hook is (or a file is unusable): --json lists every place looked at.
    for (const p of places) if (p.state !== "absent") out(placeLine(p));
    if (installed.length === 0) out("No kbz stop hook is installed: run kbz hook install --agent claude|codex|cursor|gemini");
  });
}

export const verb: Verb = {
  command: "hook <action>",
  describe: "the stop guard for agent hosts: `hook stop` (reads the payload on stdin), `hook install`, `hook status`",
  builder: (y) =>
    y
      .positional("action", {
        choices: ["stop", "install", "status"],
        describe: "stop: decide one stop event; install: write the host's hook file; status: where kbz's hook is installed and whether it works",
      })
      .option("agent", {
        type: "string",
        choices: [...HOST_NAMES],
        requiresArg: true,
        describe: "the host: claude (.claude/settings.local.json), codex (.codex/hooks.json), cursor (.cursor/hooks.json), gemini (.gemini/settings.json); default claude",
      })
      .option("scope", { type: "string", requiresArg: true, describe: "pin the hook to one .unlazy/ID pipeline" })
      .option("shared", { type: "boolean", describe: "claude: install into .claude/settings.json (committed)" })
      .option("global", { type: "boolean", describe: "install into the user's file (~/.claude, $CODEX_HOME or ~/.codex, ~/.cursor, ~/.gemini)" })
      .option("fallback", { type: "boolean", describe: "run hooks/stop-hook.mjs with node instead of this binary" })
      .option("uninstall", { type: "boolean", describe: "remove only kbz handlers, keeping every other hook" })
      .option("json", { type: "boolean", describe: "print one JSON object (install, status)" }),
  handler: async (argv: HookArgs): Promise<ExitCode> => {
    if (argv.action === "install") return install(argv);
    if (argv.action === "status") return status(argv);
    const { stopHookMain } = await import("../hook/entry.ts");
    return stopHookMain(process.argv.slice(process.argv.indexOf("stop") + 1));
  },
};
