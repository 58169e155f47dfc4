// Observing the oracle while a CHECK runs (issue 39; docs/checks.md#oracle). At approval, the
// person's consent covers one traced run: what it reads that is oracle (io/oracle/observe.ts,
// core/run/conventions.ts) joins the gate's observed files (io/oracle/observed.ts) before the
// approval is recorded, so the approval binds their digests; that run's outcome is the gate's run.
// Every later run is traced again: a file it reads that is oracle and not in the approved set is an
// oracle change: the run does not count, the file joins the observed set (so the gate needs a
// person's approval) and the verdict says which file.
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz } from "../../core/text/command.ts";
import { isBookkeeping, isOracleByConvention, matchesAny } from "../../core/run/conventions.ts";
import { workPatterns } from "../oracle/binding.ts";
import { finishTrace, observerFor, observerLine, startTrace, type Observed } from "../oracle/observe.ts";
import { observedFiles, recordObserved } from "../oracle/observed.ts";
import { approvalDirFor } from "../run/approval.ts";
import { executeCheck, type ExecuteRequest, type RunOutcome } from "../run/execute.ts";
import type { Env } from "../run/shell.ts";
import { checkEnvironment } from "../oracle/env.ts";
import { chainKey, childEnv, inheritedChain } from "./chain.ts";
import { declaredEnv, oracleFor, type CheckTask, type RunSettings } from "./plan.ts";
import { oracleSignature } from "../../core/run/oracle.ts";

let saidBroken = false;

/** The tracer failed to start once in this process: said once, then every run is untraced. */
function tracerBroken(why: string): void {
  if (saidBroken) return;
  saidBroken = true;
  process.stderr.write(
    `kbz: the tracer failed to start (${why}); the static closure stands in for what the CHECK reads\n`,
  );
}

export interface ObservedRun {
  outcome: RunOutcome;
  /** What the run read, or null when it ran untraced. */
  seen: Observed | null;
  /** When it started (files changed after it are the run's output, not its oracle). */
  since: number;
}

/** Run one CHECK, traced when the task's oracle was observed by a tracer and one is in force. */
export async function runObserved(task: CheckTask, root: string, env: Env, req: ExecuteRequest): Promise<ObservedRun> {
  const since = Date.now();
  const observer =
    task.oracle.programs?.observer === "strace" && !task.oracle.sandbox && !saidBroken ? observerFor(env) : null;
  if (!observer || observer.kind !== "strace") return { outcome: await executeCheck(req), seen: null, since };
  for (let attempt = 0; attempt < 2; attempt++) {
    const trace = startTrace(observer.path);
    const outcome = await executeCheck({ ...req, tracePrefix: trace.prefix });
    const seen = finishTrace(trace, root, task.oracle.cwd);
    // Under load, a traced tree was seen killed (SIGKILL, no output, not by kbz): run it once more.
    if (outcome.signal === "SIGKILL" && outcome.bytes === 0 && outcome.error === null && attempt === 0) continue;
    if (seen !== null) return { outcome, seen, since };
    break;
  }
  tracerBroken(`${observerLine(observer)} wrote no trace`);
  return { outcome: await executeCheck(req), seen: null, since };
}

/** The files of `seen` that are the gate's oracle (root-relative): tests, fixtures, configs, tools, programs in the root, its bound files. */
export function oracleKeysSeen(task: CheckTask, root: string, seen: Observed, since: number): string[] {
  const work = workPatterns({ root, cwd: task.oracle.cwd, gate: task.gate, owns: task.owns });
  const bound = task.oracle.bound?.files ?? {};
  const ran = new Set(seen.ran);
  const out: string[] = [];
  for (const abs of seen.read) {
    const key = path.relative(root, abs).split(path.sep).join("/");
    if (!key || key.startsWith("..") || isBookkeeping(key)) continue;
    if (work.length > 0 && matchesAny(key, work)) continue;
    if (!(key in bound) && !ran.has(abs) && !isOracleByConvention(key)) continue; // the application: the work
    try {
      // Written by the run itself (a cache, a report): its output, not its oracle.
      if (fs.statSync(abs).mtimeMs >= since) continue;
    } catch {
      continue;
    }
    out.push(key);
  }
  return out.sort();
}

/** At approval: remember what the traced run read as the gate's observed files. */
export function rememberObserved(task: CheckTask, root: string, env: Env, run: ObservedRun): boolean {
  if (!run.seen) return false;
  const keys = oracleKeysSeen(task, root, run.seen, run.since);
  recordObserved(approvalDirFor(env), task.file, task.gate.id, keys);
  return true;
}

/**
 * After a later run: the oracle files it read that the approved oracle does not hold. They join
 * the observed set (the gate then needs a person's approval) and the run does not count.
 */
export function newOracleFiles(task: CheckTask, root: string, env: Env, run: ObservedRun): string[] {
  if (!run.seen) return [];
  const bound = task.oracle.bound?.files ?? {};
  const fresh = oracleKeysSeen(task, root, run.seen, run.since).filter((k) => !(k in bound));
  if (fresh.length > 0) {
    const dir = approvalDirFor(env);
    recordObserved(dir, task.file, task.gate.id, [...observedFiles(dir, task.file, task.gate.id), ...fresh]);
  }
  return fresh;
}

/** The outcome of a run that read oracle files the approval does not cover. */
export function oracleChangedOutcome(outcome: RunOutcome, fresh: string[]): RunOutcome {
  const shown = fresh.length > 4 ? `${fresh.slice(0, 4).join(", ")}, +${fresh.length - 4} more` : fresh.join(", ");
  const error = `ORACLE CHANGED: the CHECK newly read ${shown}, not in the approved oracle; a person reviews it with ${kbz("approve")}`;
  return { ...outcome, ok: false, error, summary: error };
}

/** The request that runs one task's CHECK as `kbz check` does (the approval's traced run and the gate's run share it). */
export function executeRequestFor(
  task: CheckTask,
  settings: RunSettings,
  env: Env,
  chain: string[],
  onOutput?: (text: string) => void,
): ExecuteRequest {
  return {
    shell: settings.shell,
    check: task.gate.check!,
    expect: { text: task.gate.expect!, regex: task.gate.expectRegex },
    cwd: task.oracle.cwd,
    env: childEnv(checkEnvironment(env, declaredEnv(task.gate, settings)), chain, chainKey(task.file, task.gate.id)),
    timeoutMs: settings.timeoutMs,
    sandbox: task.oracle.sandbox ?? null,
    ...(onOutput ? { onOutput } : {}),
  };
}

/**
 * `kbz approve` (issue 39): the person's consent covers one traced run of the CHECK; what it reads
 * that is oracle joins the gate's observed files and the task's oracle is bound again with them
 * (the record then covers them). Returns the files the run added, or null when no tracer ran.
 */
export async function observeForApproval(
  task: CheckTask,
  settings: RunSettings,
  env: Env,
  base: string,
): Promise<string[] | null> {
  if (task.oracle.programs?.observer !== "strace") return null;
  const before = new Set(Object.keys(task.oracle.bound?.files ?? {}));
  const observed = await runObserved(
    task,
    settings.root,
    env,
    executeRequestFor(task, settings, env, inheritedChain(env)),
  );
  if (!rememberObserved(task, settings.root, env, observed)) return null;
  task.oracle = oracleFor(task.file, base, task.gate, settings, task.oracle.sandbox ?? null, task.owns);
  task.signature = oracleSignature(task.oracle);
  return Object.keys(task.oracle.bound?.files ?? {}).filter((k) => !before.has(k));
}
