// kbz hook stop | install | status: the stop guard for Claude Code, Codex, Cursor and Gemini CLI.
// `kbz hook stop` normally never reaches yargs (src/main.ts answers it first, fast);
// it is registered here so `kbz hook --help` documents it.
import * as os from "node:os";
import * as path from "node:path";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import { COPILOT_DENY } from "../core/hook/deny.ts";
import { HOST_NAMES, isHostName, TARGETS, type HostName, type Location } from "../core/hook/targets.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/ids.ts";
import { codexRulesPath, hookPlaces, installHook, type HookPlace, type InstallOutcome } from "../ops/hook.ts";
import { COMMITTED, LOCAL_STATE, type IgnoreResult } from "../core/workspace/local-state.ts";
import { keepLocalStateOut } from "../ops/init.ts";
import type { ExitCode, Verb } from "./index.ts";
import { envelope, report } from "./envelope.ts";
import { out } from "./output.ts";

export interface HookArgs {
  action: string;
  agent?: string;
  scope?: string;
  shared?: boolean;
  global?: boolean;
  fallback?: boolean;
  uninstall?: boolean;
  json?: boolean;
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
  if (argv.shared && host !== "claude")
    throw new UsageError(
      `--shared applies to claude only; ${host}'s project file is always shared (${TARGETS[host].file("shared", ".", "~", {})})`,
    );
  return argv.shared ? "shared" : TARGETS[host].locations[0]!;
}

const TRUST_HINT =
  "codex skips an untrusted hook (silently under codex exec): open codex, run /hooks and trust kbz's Stop hook";

function report_(
  o: InstallOutcome,
  host: HostName,
  command: string | null,
  location: Location,
  ignored: IgnoreResult | null,
): void {
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
      // Short (issue 30): where, for which events, the command, a backup when one was made, unlazy's
      // note, the deny rules; the scope is in the command (--scope) and --json keeps every field.
      out(`Installed kbz stop hook for ${host} into ${o.target} (${TARGETS[host].events.join(", ")})`);
      out(`  command: ${command}`);
      if (o.backup) out(`  backup:  ${o.backup}`);
      // Exactly what is ignored and what to commit (issue 43: unlazy's "keep .unlazy/ ignored" hid
      // the plan): the local state as written to .gitignore, the ledgers and plan, a shared hook file.
      if (ignored) {
        const where =
          ignored.skipped ??
          (ignored.added.length > 0 ? `.gitignore: ${ignored.added.length} line(s) added` : ".gitignore has them");
        out(`  ignore:  ${LOCAL_STATE.join(" ")} (${where})`);
        const file = location === "shared" ? [path.relative(process.cwd(), o.target) || o.target] : [];
        out(`  commit:  ${[...COMMITTED, ...file].join(" ")}`);
      }
      if (location === "shared") out("  warning: shared settings contain this machine's absolute paths.");
      if (o.deny?.added.length) out(`  deny:    ${o.deny.added.length} rule(s) keep the person's acts from the agent`);
      if (host === "codex") out(`  deny:    ${codexRulesPath(o.target)} forbids the person's acts to the agent`);
      if (host === "copilot") out(`  deny:    Copilot has no rules file for this; start it with ${COPILOT_DENY}`);
  }
  if (host === "codex") out(`  next:    ${TRUST_HINT}; ${kbz("hook status")} shows whether it is trusted.`);
}

/** The flags that re-create this install, for `kbz doctor`'s fix lines. */
function installFlags(argv: HookArgs, scope: string | null): string[] {
  return [
    ...(argv.global ? ["--global"] : []),
    ...(argv.shared ? ["--shared"] : []),
    ...(argv.fallback ? ["--fallback"] : []),
    ...(scope ? ["--scope", scope] : []),
  ];
}

/**
 * `kbz hook install [--uninstall]`. `program` and `ownPaths` default to this kbz's; the Node
 * installer of the npm package (src/hook/install-fallback.ts) passes node + its stop-hook.mjs.
 */
export function install(argv: HookArgs, program?: string[], ownPaths?: string[]): ExitCode {
  const host = agentOption(argv);
  if (argv.uninstall && argv.fallback) throw new UsageError("--fallback only applies when installing");
  // --scope is validated but irrelevant to --uninstall, which removes every kbz handler (as unlazy).
  const scope = scopeOption(argv);
  const location = locationOption(argv, host);
  const t = TARGETS[host];
  const { outcome, command } = installHook({
    host,
    location,
    scope,
    uninstall: !!argv.uninstall,
    fallback: !!argv.fallback,
    flags: installFlags(argv, scope),
    cwd: process.cwd(),
    home: os.homedir(),
    env: process.env,
    ...(program ? { program } : {}),
    ...(ownPaths ? { ownPaths } : {}),
  });
  // A repository's install also keeps kbz's local state out of git (unlazy's note only said to).
  const ignored =
    outcome.result === "installed" || outcome.result === "already-installed"
      ? location === "global"
        ? null
        : keepLocalStateOut(process.cwd())
      : null;
  const handlers = command === null ? null : Object.fromEntries(t.events.map((e) => [e, t.handler(command!, e)]));
  const fields = {
    agent: host,
    target: outcome.target,
    command,
    events: t.events,
    handlers,
    scope,
    backup: outcome.backup,
    removed: outcome.removed,
    gitignore: ignored,
  };
  return report(!!argv.json, envelope(outcome.result, 0, fields), () =>
    report_(outcome, host, command, location, ignored),
  );
}

function placeLine(p: HookPlace, trust: "counts" | "note" | null): string {
  const where = `${p.host} ${p.location}`.padEnd(14);
  if (p.state === "unreadable") return `${where} unreadable ${p.file}: ${p.problem}`;
  const trustNote =
    trust === "counts"
      ? TRUST_HINT
      : trust === "note"
        ? `${p.host} is not installed here (not on PATH); when it is: ${TRUST_HINT}`
        : null;
  const notes = [p.problem, trustNote].filter(Boolean);
  return `${where} ${p.runnable && !p.problem && trust !== "counts" ? "ok        " : "attention "} ${p.file}${notes.length ? `: ${notes.join("; ")}` : ""}`;
}

function status(argv: HookArgs): ExitCode {
  const found = hookPlaces(process.cwd(), os.homedir(), process.env, argv.agent);
  const places = found.map((f) => f.place);
  const trust = new Map(found.map((f) => [f.place, f.trust]));
  const bad = places.filter(
    (p) =>
      p.state === "unreadable" || (p.state === "installed" && (!p.runnable || p.problem || trust.get(p) === "counts")),
  );
  const installed = places.filter((p) => p.state === "installed");
  const verdict = bad.length ? "needs-attention" : installed.length ? "ok" : "not-installed";
  const fields = { places: places.map((p) => (trust.get(p) === "note" ? { ...p, hostInstalled: false } : p)) };
  return report(!!argv.json, envelope(verdict, bad.length ? 1 : 0, fields), () => {
    // Only where kbz's hook is (or a file is unusable): --json lists every place looked at.
    for (const p of places) if (p.state !== "absent") out(placeLine(p, trust.get(p)!));
    if (installed.length === 0)
      out(`No kbz stop hook is installed: run ${kbz("hook install", { agent: ph(HOST_NAMES.join("|")) })}`);
  });
}

export const verb: Verb = {
  command: "hook <action>",
  describe: "the stop guard for agent hosts: `hook stop` (reads the payload on stdin), `hook install`, `hook status`",
  builder: (y) =>
    y
      .positional("action", {
        choices: ["stop", "install", "status"],
        describe:
          "stop: decide one stop event; install: write the host's hook file; status: where kbz's hook is installed and whether it works",
      })
      .option("agent", {
        type: "string",
        choices: [...HOST_NAMES],
        requiresArg: true,
        describe: "the host (default claude); the file each writes: docs/agents.md",
      })
      .option("scope", { type: "string", requiresArg: true, describe: "pin the hook to one scope, .unlazy/ID" })
      .option("shared", { type: "boolean", describe: "claude: install into .claude/settings.json (committed)" })
      .option("global", { type: "boolean", describe: "install into the user's file, not the repository's" })
      .option("fallback", { type: "boolean", describe: "run hooks/stop-hook.mjs with node instead of this binary" })
      .option("uninstall", { type: "boolean", describe: "remove only kbz handlers, keeping every other hook" })
      .option("json", { type: "boolean", describe: "print one JSON object (install, status)" })
      .epilog(`${kbz("hook stop")} --help: the payload fields each host sends and what kbz answers.`),
  handler: async (argv: HookArgs): Promise<ExitCode> => {
    if (argv.action === "install") return install(argv);
    if (argv.action === "status") return status(argv);
    const { stopHookMain } = await import("../hook/entry.ts");
    return stopHookMain(process.argv.slice(process.argv.indexOf("stop") + 1));
  },
};
