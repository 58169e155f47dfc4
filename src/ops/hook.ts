// The stop guard's use cases besides the stop decision itself (ops/hookStop.ts): install or
// remove kbz's hook in an agent host's file (with the shim, the install record and the host's deny
// rules), where it is installed and whether it works (`kbz hook status`), and whether each
// installed guard fires (`kbz doctor`). Options in, data out; cli/hook.ts and cli/doctor.ts print.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, KbzError, UsageError } from "../core/errors.ts";
import { denyRules } from "../core/hook/deny.ts";
import { TARGETS, type HostName, type Location } from "../core/hook/targets.ts";
import { CONTRACT, doctor, findProgram, type DoctorPlace } from "../io/hook/doctor.ts";
import { codexRules, hookCommand, installSettings, SettingsRefusal, type InstallOutcome } from "../io/hook/install.ts";
import { installPlugin } from "../io/hook/plugin.ts";
import { findRecord, updateRecord } from "../io/hook/record.ts";
import { shimPath, shimTarget, writeShim } from "../io/hook/shim.ts";
import { hookStatus, oursIn, type HookPlace } from "../io/hook/status.ts";
import { findRoot } from "../io/root.ts";
import { isInside } from "../core/workspace/inside.ts";
import { logConsent, requirePerson } from "../io/run/consent.ts";

export type { DoctorPlace, HookPlace, InstallOutcome };
export { codexRulesPath } from "../io/hook/install.ts";

type Env = Record<string, string | undefined>;

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

/** The words before `--agent`: this binary (or bun + main.ts), or node + the fallback script. */
function programWords(fallback: boolean, env: Env): string[] {
  if (!fallback) {
    return isCompiled()
      ? [process.execPath, "hook", "stop"]
      : [process.execPath, path.resolve(import.meta.dir, "..", "main.ts"), "hook", "stop"];
  }
  const script = fallbackHookPath();
  if (!fs.existsSync(script))
    throw new UsageError(
      `the Node fallback hook is not at ${script}; install kbz with npm (npm install -g kbz) or build it in a kbz checkout`,
    );
  const node = findProgram("node", env);
  if (!node) throw new UsageError("--fallback needs node (>= 16) on PATH");
  return [node, script];
}

export interface InstallRequest {
  host: HostName;
  location: Location;
  scope: string | null;
  uninstall: boolean;
  fallback: boolean;
  /** The flags that re-create this install, for `kbz doctor`'s fix lines. */
  flags: string[];
  cwd: string;
  home: string;
  env: Env;
  /** The hook's program words; default this kbz's (the Node installer passes node + its script). */
  program?: string[];
  /** The paths that are kbz's own handlers; default this kbz's fallback script. */
  ownPaths?: string[];
}

export interface Installed {
  outcome: InstallOutcome;
  /** The command the host runs; null on --uninstall. */
  command: string | null;
}

/** `kbz hook install [--uninstall]`: write (or remove) kbz's handlers in the host's file. */
export function installHook(r: InstallRequest): Installed {
  const t = TARGETS[r.host];
  const file = t.file(r.location, r.cwd, r.home, r.env);
  // Removing the guard is a person's act (io/run/consent.ts); installing it is anyone's.
  const consent = r.uninstall ? requirePerson("uninstall", { env: r.env }) : null;
  let command: string | null = null;
  let rehook: ReturnType<typeof requirePerson> | null = null;
  if (!r.uninstall) {
    // The hosts run a stable path (the shim), never this binary's own: an upgrade or a move
    // rewrites the shim alone, so the command string, and Codex's trust in it, stay the same.
    const shim = shimPath(r.home, r.env, r.fallback);
    const words = r.program ?? programWords(r.fallback, r.env);
    // Issue 40 item 4: the hook is the person's. Its shim and command never live inside the
    // repository (the agent would replace them), and changing an installed hook is a person's act.
    const root = findRoot(fs.realpathSync(r.cwd));
    if (root !== realOr(r.home) && isInside(root, path.resolve(shim)))
      throw new UsageError(
        `the hook's command would live inside the repository (${path.resolve(shim)}): the agent could replace it; set KBZ_HOME outside ${root}`,
      );
    rehook = changesInstalledHook(r, file, hookCommand([shim], r.host, r.scope), shim, words)
      ? requirePerson("rehook", { env: r.env })
      : null;
    try {
      writeShim(shim, words);
    } catch (e) {
      throw new KbzError(`could not write the hook's stable path: ${describe(e)}`, {
        code: "settings-write",
        file: shim,
        hint: "check that ~/.kbz (or KBZ_HOME) is a writable directory, then run the command again",
      });
    }
    command = hookCommand([shim], r.host, r.scope);
  }
  // The host's own rules refusing the agent the person's acts: added with the guard, and on
  // uninstall only the ones kbz added (recorded), so the user's identical rules stay.
  const record = findRecord(r.home, r.env, r.host, file);
  const rules = denyRules(r.host);
  const deny = rules && {
    path: rules.path,
    add: command === null ? [] : rules.rules,
    remove: command === null ? (record?.deny ?? rules.rules) : [],
  };
  let outcome: InstallOutcome;
  try {
    outcome =
      t.kind === "plugin"
        ? installPlugin(file, command)
        : installSettings({ file, target: t, command, ownPaths: r.ownPaths ?? [fallbackHookPath()], deny });
    const added = [...new Set([...(record?.deny ?? []), ...(outcome.deny?.added ?? [])])];
    updateRecord(
      r.home,
      r.env,
      { host: r.host, file, flags: r.flags, ...(added.length ? { deny: added } : {}) },
      command === null,
    );
    if (r.host === "codex") codexRules(file, command !== null);
  } catch (e) {
    const hint = "fix or move the file by hand (or remove the link), then run the command again";
    if (e instanceof SettingsRefusal)
      throw new SettingsRefusal(`refusing to touch this file: ${e.message}`, file, hint);
    throw new KbzError(`could not update this file: ${describe(e)}`, {
      code: "settings-write",
      file,
      hint: "check the directory's permissions and the disk, then run the command again",
    });
  }
  if (consent && outcome.removed) logConsent(consent, `${outcome.target} removed ${outcome.removed} handler(s)`);
  if (rehook) logConsent(rehook, `${outcome.target} changed the installed Stop hook`);
  return { outcome, command };
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Whether `r` would change a hook already installed: another command in that file (scope, KBZ_HOME), or the shim re-pointed. */
function changesInstalledHook(
  r: InstallRequest,
  file: string,
  command: string,
  shim: string,
  words: string[],
): boolean {
  let ours: string[] = [];
  try {
    ours = oursIn(file, TARGETS[r.host], r.ownPaths ?? [fallbackHookPath()]).map((h) =>
      String(h.handler.command ?? ""),
    );
  } catch {
    return true; // a file kbz cannot read as settings: only a person decides what happens to it
  }
  if (ours.some((c) => c !== command)) return true;
  const installed = shimTarget(shim);
  const anyInstall = ours.length > 0 || findRecord(r.home, r.env, r.host, file) !== null;
  return anyInstall && installed !== null && installed.join("\0") !== words.join("\0");
}

export interface PlaceStatus {
  place: HookPlace;
  /**
   * A Codex hook Codex has not trusted: "counts" where Codex is installed, a "note" where it is
   * not (nothing to trust with there; issue 30), null for every other place.
   */
  trust: "counts" | "note" | null;
}

/** `kbz hook status`: every place a host's hook file can be, and what kbz found there. */
export function hookPlaces(cwd: string, home: string, env: Env, only: string | undefined): PlaceStatus[] {
  const all = hookStatus(cwd, home, env, [fallbackHookPath()]);
  const places = only ? all.filter((x) => x.host === only) : all;
  return places.map((place) => ({
    place,
    trust: place.trust !== "needs-review" ? null : findProgram(CONTRACT[place.host].cli, env) ? "counts" : "note",
  }));
}

/** `kbz doctor`: whether each installed guard fires (installed, trusted, host version, a dry run). */
export function doctorPlaces(cwd: string, home: string, env: Env, only: HostName | null): Promise<DoctorPlace[]> {
  return doctor(cwd, home, env, [fallbackHookPath()], only);
}

/** Whether an installed host keeps its agent's commands away from the approval store (kbz doctor). */
export { hostSandbox } from "../io/run/hostSandbox.ts";
/** The approval store the environment names. */
export { approvalDirFor as approvalStoreDir } from "../io/run/approval.ts";
