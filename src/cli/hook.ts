// kbz hook stop | install | status: the stop guard for Claude Code, Codex, Cursor and Gemini CLI.
// `kbz hook stop` normally never reaches yargs (src/main.ts answers it first, fast);
// it is registered here so `kbz hook --help` documents it.
import { logConsent, requirePerson } from "../ops/policy.ts";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, KbzError, UsageError } from "../core/errors.ts";
import { codexRules, codexRulesPath, hookCommand, installSettings, SettingsRefusal, type InstallOutcome } from "../io/hook/install.ts";
import { installPlugin } from "../io/hook/plugin.ts";
import { findRecord, updateRecord } from "../io/hook/record.ts";
import { COPILOT_DENY, denyRules } from "../core/hook/deny.ts";
import { shimPath, writeShim } from "../io/hook/shim.ts";
import { hookStatus, type HookPlace } from "../io/hook/status.ts";
import { CONTRACT, findProgram } from "../io/hook/doctor.ts";
import { HOST_NAMES, isHostName, TARGETS, type HostName, type Location } from "../core/hook/targets.ts";
import { SCOPE_ID_MESSAGE, isValidId } from "../core/workspace/ids.ts";
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
      out(`  events:  ${TARGETS[host].events.join(", ")}`);
      out(`  command: ${command}`);
      out(`  scope:   ${scope ?? "resolved per session/scope"}`);
      out(`  backup:  ${o.backup ?? "not needed for a new file"}`);
      out("  note:    keep .unlazy/ and .unlazy-hook-state.json ignored; they are local coordination state.");
      if (location === "shared") out("  warning: shared settings contain this machine's absolute paths.");
      if (o.deny?.added.length) out(`  deny:    ${o.deny.added.length} rule(s) refusing the agent the person's acts (approve, sign, approvals revoke/prune/policy, hook uninstall)`);
      if (host === "codex") out(`  deny:    ${codexRulesPath(o.target)} forbids the person's acts to the agent`);
      if (host === "copilot") out(`  deny:    Copilot has no rules file for this; start it with ${COPILOT_DENY}`);
  }
  if (host === "codex") out(`  next:    ${TRUST_HINT}; kbz hook status shows whether it is trusted.`);
}

/** The flags that re-create this install, for `kbz doctor`'s fix lines. */
function installFlags(argv: HookArgs, scope: string | null): string[] {
  return [...(argv.global ? ["--global"] : []), ...(argv.shared ? ["--shared"] : []), ...(argv.fallback ? ["--fallback"] : []), ...(scope ? ["--scope", scope] : [])];
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
  const home = os.homedir();
  const file = t.file(location, process.cwd(), home, process.env);
  // Removing the guard is a person's act (ops/policy.ts); installing it is anyone's.
  const consent = argv.uninstall ? requirePerson("uninstall", { env: process.env }) : null;
  let command: string | null = null;
  if (!argv.uninstall) {
    // The hosts run a stable path (the shim), never this binary's own: an upgrade or a move
    // rewrites the shim alone, so the command string, and Codex's trust in it, stay the same.
    const shim = shimPath(home, process.env, !!argv.fallback);
    const words = program ?? programWords(argv);
    try {
      writeShim(shim, words);
    } catch (e) {
      throw new KbzError(`could not write the hook's stable path: ${describe(e)}`, { code: "settings-write", file: shim, hint: "check that ~/.kbz (or KBZ_HOME) is a writable directory, then run the command again" });
    }
    command = hookCommand([shim], host, scope);
  }
  // The host's own rules refusing the agent the person's acts: added with the guard, and on
  // uninstall only the ones kbz added (recorded), so the user's identical rules stay.
  const record = findRecord(home, process.env, host, file);
  const rules = denyRules(host);
  const deny = rules && { path: rules.path, add: command === null ? [] : rules.rules, remove: command === null ? (record?.deny ?? rules.rules) : [] };
  let outcome: InstallOutcome;
  try {
    outcome = t.kind === "plugin" ? installPlugin(file, command) : installSettings({ file, target: t, command, ownPaths: ownPaths ?? [fallbackHookPath()], deny });
    const added = [...new Set([...(record?.deny ?? []), ...(outcome.deny?.added ?? [])])];
    updateRecord(home, process.env, { host, file, flags: installFlags(argv, scope), ...(added.length ? { deny: added } : {}) }, command === null);
    if (host === "codex") codexRules(file, command !== null);
  } catch (e) {
    const hint = "fix or move the file by hand (or remove the link), then run the command again";
    if (e instanceof SettingsRefusal) throw new SettingsRefusal(`refusing to touch this file: ${e.message}`, file, hint);
    throw new KbzError(`could not update this file: ${describe(e)}`, { code: "settings-write", file, hint: "check the directory's permissions and the disk, then run the command again" });
  }
  if (consent && outcome.removed) logConsent(consent, `${outcome.target} removed ${outcome.removed} handler(s)`);
  const handlers = command === null ? null : Object.fromEntries(t.events.map((e) => [e, t.handler(command!, e)]));
  const fields = { agent: host, target: outcome.target, command, events: t.events, handlers, scope, backup: outcome.backup, removed: outcome.removed };
  return report(!!argv.json, envelope(outcome.result, 0, fields), () => report_(outcome, host, command, scope, location));
}

/**
 * Codex's trust is Codex's own record: a machine without Codex has nothing to trust with, so an
 * untrusted Codex hook there is a note, not a problem (issue 30: status said 1 on a machine
 * without Codex). Every other finding is kbz's own (a missing program, a lost handler) and counts.
 */
function trustPending(p: HookPlace, env: Record<string, string | undefined>): "counts" | "note" | null {
  if (p.trust !== "needs-review") return null;
  return findProgram(CONTRACT[p.host].cli, env) ? "counts" : "note";
}

function placeLine(p: HookPlace, trust: "counts" | "note" | null): string {
  const where = `${p.host} ${p.location}`.padEnd(14);
  if (p.state === "unreadable") return `${where} unreadable ${p.file}: ${p.problem}`;
  const trustNote = trust === "counts" ? TRUST_HINT : trust === "note" ? `${p.host} is not installed here (not on PATH); when it is: ${TRUST_HINT}` : null;
  const notes = [p.problem, trustNote].filter(Boolean);
  return `${where} ${p.runnable && !p.problem && trust !== "counts" ? "ok        " : "attention "} ${p.file}${notes.length ? `: ${notes.join("; ")}` : ""}`;
}

function status(argv: HookArgs): ExitCode {
  const all = hookStatus(process.cwd(), os.homedir(), process.env, [fallbackHookPath()]);
  const places = argv.agent ? all.filter((x) => x.host === argv.agent) : all;
  const trust = new Map(places.map((p) => [p, trustPending(p, process.env)]));
  const bad = places.filter((p) => p.state === "unreadable" || (p.state === "installed" && (!p.runnable || p.problem || trust.get(p) === "counts")));
  const installed = places.filter((p) => p.state === "installed");
  const verdict = bad.length ? "needs-attention" : installed.length ? "ok" : "not-installed";
  const fields = { places: places.map((p) => (trust.get(p) === "note" ? { ...p, hostInstalled: false } : p)) };
  return report(!!argv.json, envelope(verdict, bad.length ? 1 : 0, fields), () => {
    // Only where kbz's hook is (or a file is unusable): --json lists every place looked at.
    for (const p of places) if (p.state !== "absent") out(placeLine(p, trust.get(p)!));
    if (installed.length === 0) out(`No kbz stop hook is installed: run kbz hook install --agent ${HOST_NAMES.join("|")}`);
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
        describe:
          "the host: claude (.claude/settings.local.json), codex (.codex/hooks.json), cursor (.cursor/hooks.json), gemini (.gemini/settings.json), copilot (.github/hooks/kbz.json), qwen (.qwen/settings.json), opencode (.opencode/plugin/kbz-stop-guard.js); default claude",
      })
      .option("scope", { type: "string", requiresArg: true, describe: "pin the hook to one scope, .unlazy/ID" })
      .option("shared", { type: "boolean", describe: "claude: install into .claude/settings.json (committed)" })
      .option("global", { type: "boolean", describe: "install into the user's file (~/.claude, $CODEX_HOME or ~/.codex, ~/.cursor, ~/.gemini, $COPILOT_HOME or ~/.copilot, ~/.qwen, ~/.config/opencode)" })
      .option("fallback", { type: "boolean", describe: "run hooks/stop-hook.mjs with node instead of this binary" })
      .option("uninstall", { type: "boolean", describe: "remove only kbz handlers, keeping every other hook" })
      .option("json", { type: "boolean", describe: "print one JSON object (install, status)" })
      .epilog("kbz hook stop --help: the payload fields each host sends and what kbz answers."),
  handler: async (argv: HookArgs): Promise<ExitCode> => {
    if (argv.action === "install") return install(argv);
    if (argv.action === "status") return status(argv);
    const { stopHookMain } = await import("../hook/entry.ts");
    return stopHookMain(process.argv.slice(process.argv.indexOf("stop") + 1));
  },
};
