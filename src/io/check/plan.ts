// The pending list (docs/formats.md#check-run, docs/formats.md#approvals): which gates run, where, and under
// which exact runtime oracle.
import * as fs from "node:fs";
import * as path from "node:path";
import { scopeLedgerRoot } from "../../core/workspace/inside.ts";
export { scopeLedgerRoot };
import { UsageError } from "../../core/errors.ts";
import type { Gate } from "../../core/ledger/model.ts";
import { isRunnable } from "../../core/ledger/model.ts";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { GateState } from "../../core/ledger/state.ts";
import type { Snapshot } from "../../core/snapshot.ts";
import { oracleSignature, runtimeOracle, type RuntimeOracle } from "../../core/run/oracle.ts";
import type { Env, PathFacts } from "../run/shell.ts";
import { resolveBwrap, sandboxProfile, type SandboxProfile } from "../run/sandbox.ts";
import type { LedgerSandbox } from "../../core/ledger/model.ts";
import { displayPath } from "../../core/snapshot.ts";
import { oracleBinding } from "../oracle/binding.ts";
import { programBinding } from "../oracle/programs.ts";
import { observerFor } from "../oracle/observe.ts";
import { observedFiles } from "../oracle/observed.ts";
import { approvalDirFor } from "../run/approval.ts";
import { cwdShown } from "../../core/run/show.ts";
export { cwdShown };

export interface RunSettings {
  shell: string; // resolved
  path: PathFacts;
  timeoutMs: number;
  /** `--cwd` resolved against the root, when given. */
  cwd: string | null;
  sandbox: SandboxSettings;
  /** The canonical root and the caller's environment: the oracle binding reads both (issue 27). */
  root: string;
  env: Env;
  /**
   * Names `verify run --env` declares for every gate of the run (issue 42 item 7): they reach the
   * CHECK and the approval binds their values, as a gate's own `ENV:` names do.
   */
  passEnv?: readonly string[];
}

/** The names whose values a gate's CHECK receives and its approval binds: its `ENV:` and the run's `--env`. */
export function declaredEnv(gate: Gate, settings: Pick<RunSettings, "passEnv">): readonly string[] | null {
  const extra = settings.passEnv ?? [];
  if (extra.length === 0) return gate.env;
  return [...new Set([...(gate.env ?? []), ...extra])];
}

/** What decides the sandbox: `--sandbox` or the repository setting, and each ledger's SANDBOX. */
export interface SandboxSettings {
  /** Every ledger runs sandboxed (`--sandbox`, or `.kbz/settings.json` says so). */
  all: boolean;
  /** Writable paths from the repository setting, with where each was declared. */
  writable: { path: string; origin: string }[];
  /** Host folders the settings add to what the sandbox shows read-only (issue 42 item 3). */
  readable?: string[];
  root: string;
  env: Env;
}

const profiles = new WeakMap<SandboxSettings, Map<string, SandboxProfile | null>>();

/** The sandbox profile a ledger's CHECKs run under, or null for none (memoised per ledger). */
export function sandboxFor(settings: RunSettings, file: string, ledger: LedgerSandbox | null): SandboxProfile | null {
  const s = settings.sandbox;
  let byFile = profiles.get(s);
  if (!byFile) profiles.set(s, (byFile = new Map()));
  if (byFile.has(file)) return byFile.get(file)!;
  let profile: SandboxProfile | null = null;
  if (s.all || ledger) {
    const writable = [
      ...s.writable,
      ...(ledger?.writable ?? []).map((w) => ({ path: w, origin: `${file}:${ledger!.line}` })),
    ];
    profile = sandboxProfile(resolveBwrap(s.env), s.root, writable, s.env.HOME || "/root", s.env, s.readable ?? []);
  }
  byFile.set(file, profile);
  return profile;
}

export interface CheckTask {
  index: number;
  qid: string;
  file: string;
  gate: Gate;
  /** The CWD as written (lexical); `oracle.cwd` is its real path, where the CHECK runs. */
  cwd: string;
  oracle: RuntimeOracle;
  /** The ledger's OWNS: (a leaf's files): the work of its gates, never their oracle. */
  owns: readonly string[];
  signature: string;
  digest: string;
  startState: GateState;
}

/**
 * The one CHECK directory rule (every runner and the dashboard use it): `--cwd` when given;
 * else a ledger inside `.unlazy/<scope>/` runs from the repository root (the folder holding
 * `.unlazy`), however it was named; else an explicit ledger runs from its own folder (unlazy's
 * rule) and a discovered one from the root. A relative `CWD:` resolves against this base.
 */
export function baseDir(snap: Snapshot, file: string, settings: RunSettings): string {
  if (settings.cwd) return settings.cwd;
  if (snap.target.mode !== "explicit") return snap.target.root;
  return scopeLedgerRoot(file) ?? path.dirname(file);
}

/** A gate's CWD as written, resolved lexically: what evidence records and people read. */
export function gateCwd(base: string, gate: Gate): string {
  return gate.cwd ? path.resolve(base, gate.cwd) : base;
}

/**
 * The place a CWD names: its real path, which the approval binds and the CHECK runs in, so a
 * retargeted link needs a new approval (issue 15). A missing directory keeps its lexical path
 * (pendingTasks refuses it before anything runs).
 */
export function realCwd(cwd: string): string {
  try {
    return fs.realpathSync(cwd);
  } catch {
    return cwd;
  }
}

/** The runtime oracle of a gate of `file`: its CHECK, where and how it runs, and its bound files. */
export function oracleFor(
  file: string,
  base: string,
  gate: Gate,
  settings: RunSettings,
  sandbox: SandboxProfile | null = null,
  owns: readonly string[] = [],
): RuntimeOracle {
  const cwd = realCwd(gateCwd(base, gate));
  const env = declaredEnv(gate, settings);
  const bindGate = env === gate.env ? gate : { ...gate, env: env as string[] };
  const observed = observedFiles(approvalDirFor(settings.env), file, gate.id);
  const binding = oracleBinding({
    root: settings.root,
    display: displayPath(settings.root, file),
    gate: bindGate,
    cwd,
    env: settings.env,
    observed,
    owns,
  });
  const programs = programBinding(settings.root, binding.programs, settings.path.value, cwd);
  // A sandboxed CHECK is not traced (io/oracle/observe.ts): its oracle is the static closure.
  const observer = sandbox ? "static" : observerFor(settings.env).kind;
  // A CHECK that runs no program by name and no file (`echo ok`) keeps unlazy's exact oracle (the
  // PATH string), so its existing approvals hold; it has nothing to observe either.
  const runsNothing =
    Object.keys(programs.programs).length === 0 &&
    programs.pathInRoot.length === 0 &&
    Object.keys(binding.files).length === 0 &&
    Object.keys(binding.env).length === 0;
  return runtimeOracle({
    sandbox,
    bound: binding,
    programs: runsNothing ? null : { observer, pathInRoot: programs.pathInRoot, resolved: programs.programs },
    check: gate.check ?? "",
    expect: gate.expect ?? "",
    cwd,
    shell: settings.shell,
    timeoutMs: settings.timeoutMs,
    path: settings.path.value,
  });
}

/** Runnable, non-abandoned gates: the unmet ones, or all of them with reverify. */
export function pendingTasks(snap: Snapshot, settings: RunSettings, reverify: boolean): CheckTask[] {
  const tasks: CheckTask[] = [];
  const ledgers = new Map(snap.ledgers.map((l) => [l.file, l.ledger]));
  for (const v of snap.gates) {
    if (v.state === "abandoned" || !isRunnable(v.gate)) continue;
    if (!reverify && v.state === "met") continue;
    const base = baseDir(snap, v.file, settings);
    const owns = ledgers.get(v.file)?.owns ?? [];
    const oracle = oracleFor(
      v.file,
      base,
      v.gate,
      settings,
      sandboxFor(settings, v.file, ledgers.get(v.file)?.sandbox ?? null),
      owns,
    );
    tasks.push({
      index: tasks.length,
      qid: v.qid,
      file: v.file,
      gate: v.gate,
      cwd: gateCwd(base, v.gate),
      oracle,
      owns,
      signature: oracleSignature(oracle),
      digest: gateDigest(v.gate)!,
      startState: v.state,
    });
  }
  // Every CWD is checked before anything executes.
  for (const t of tasks) {
    let st: fs.Stats;
    try {
      st = fs.statSync(t.cwd);
    } catch {
      throw new UsageError(`gate ${t.qid} CWD does not exist: ${t.cwd}`);
    }
    if (!st.isDirectory()) throw new UsageError(`gate ${t.qid} CWD is not a directory: ${t.cwd}`);
  }
  return tasks;
}
