// kbz wave: dispatch launch waves in .unlazy/<scope>/dispatch.json (docs/formats.md#dispatch).
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { kbz } from "../core/text/command.ts";
import { transitionProblem } from "../core/plan/transition.ts";
import { setLeafState } from "../ops/plan.ts";
import { commitWave, dispatchState, hasPlan, ledgerSpelling, scopePlan } from "../ops/dispatch.ts";
import {
  dispatchPath,
  DispatchStateError,
  waveSummary,
  type DispatchAction,
  type Wave,
} from "../core/dispatch/waves.ts";
import { alreadyRecorded } from "../core/dispatch/retry.ts";
import { matchLeaf, nearest, taskId } from "../core/plan/leaf-id.ts";
import { displayPath } from "../core/snapshot.ts";
import { requireScope } from "./context.ts";
import { envelope, report, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { err, out } from "./output.ts";
import { printNotes, RefusedError, refusingPlanInput, rootOf, unknownAction, type PipelineArgs } from "./pipeline.ts";

interface WaveArgs extends PipelineArgs {
  wave?: string;
  leaf?: string[];
  handle?: string;
  reason?: string;
}

const ACTIONS = ["open", "start", "seal", "return", "abandon", "status", "list"];

// Hand-written kbz commands: help text in aligned columns, read as written (its flags are checked
// by test/core/text/kbz-strings.test.ts).
const HELP = `kbz next --launch does open, start and seal in one call; these are the single steps.
  kbz wave open    --scope S --wave W --leaf L [--leaf L ...]
  kbz wave start   --scope S --wave W --leaf L --handle OPAQUE_ID   (marks L IN-FLIGHT)
  kbz wave seal    --scope S --wave W
  kbz wave return  --scope S --wave W --leaf L
  kbz wave abandon --scope S --wave W --reason TEXT
  kbz wave status  --scope S --wave W
  kbz wave list    --scope S
Start every leaf with its own handle, seal, then wait for returns. A retry is exit 0.
Exit: 0 done (status: complete); 1 status of an unfinished wave; 2 usage or refused.`;

/** Which of --leaf/--handle/--reason each action takes (docs/formats.md#dispatch). */
const RULES: Record<string, { leaves: "none" | "one" | "many"; handle: boolean; reason: boolean; wave: boolean }> = {
  open: { leaves: "many", handle: false, reason: false, wave: true },
  start: { leaves: "one", handle: true, reason: false, wave: true },
  seal: { leaves: "none", handle: false, reason: false, wave: true },
  return: { leaves: "one", handle: false, reason: false, wave: true },
  abandon: { leaves: "none", handle: false, reason: true, wave: true },
  status: { leaves: "none", handle: false, reason: false, wave: true },
  list: { leaves: "none", handle: false, reason: false, wave: false },
};

function checkArgs(action: string, argv: WaveArgs): { wave: string; leaves: string[] } {
  const rule = RULES[action]!;
  const leaves = (argv.leaf ?? []).map(String);
  if ((argv.args ?? []).length > 0) throw new UsageError(`wave ${action} takes no positional arguments`);
  if (rule.wave && argv.wave === undefined) throw new UsageError("--wave is required");
  if (!rule.wave && argv.wave !== undefined) throw new UsageError(`--wave does not apply to wave ${action}`);
  if (rule.leaves === "none" && leaves.length > 0) throw new UsageError(`--leaf does not apply to wave ${action}`);
  if (rule.leaves === "one" && leaves.length !== 1) throw new UsageError(`wave ${action} needs exactly one --leaf`);
  if (rule.leaves === "many" && leaves.length === 0) throw new UsageError(`wave ${action} needs at least one --leaf`);
  if (rule.handle !== (argv.handle !== undefined))
    throw new UsageError(rule.handle ? "--handle is required" : `--handle does not apply to wave ${action}`);
  if (rule.reason && (argv.reason === undefined || String(argv.reason).trim() === ""))
    throw new UsageError("--reason needs non-blank text");
  if (!rule.reason && argv.reason !== undefined) throw new UsageError(`--reason does not apply to wave ${action}`);
  return { wave: String(argv.wave ?? ""), leaves };
}

/** A leaf of the wave, or a refusal that names the nearest one (open takes any valid ids, as unlazy). */
function leafOfWave(leaf: string, w: Wave): string {
  if (w.leaves.includes(leaf)) return leaf;
  const m = matchLeaf(leaf, w.leaves);
  if (m.id !== null) return m.id;
  const near = m.suggestion !== null ? `; did you mean ${m.suggestion}?` : "";
  throw new RefusedError(`unknown leaf ${leaf} in wave ${w.id}${near}`, {
    hint: `leaves of ${w.id}: ${w.leaves.join(", ")}`,
  });
}

export function waveJson(w: Wave) {
  return {
    id: w.id,
    state: w.state,
    leaves: w.leaves,
    started: Object.fromEntries(w.started),
    returned: Object.fromEntries(w.returned),
    openedAt: w.openedAt,
    sealedAt: w.sealedAt ?? null,
    completedAt: w.completedAt ?? null,
    abandonedAt: w.abandonedAt ?? null,
    reason: w.reason ?? null,
    counts: { leaves: w.leaves.length, started: w.started.size, returned: w.returned.size },
    summary: waveSummary(w),
  };
}

function stateProblem(root: string, scope: string, e: DispatchStateError): FileProblemsError {
  return new FileProblemsError([
    {
      file: displayPath(root, dispatchPath(root, scope)),
      line: e.line,
      message: `invalid dispatch state: ${e.message}`,
    },
  ]);
}

function load(root: string, scope: string) {
  try {
    return dispatchState(root, scope);
  } catch (e) {
    if (e instanceof DispatchStateError) throw stateProblem(root, scope, e);
    throw e;
  }
}

function inspect(action: "status" | "list", root: string, scope: string, waveId: string, asJson: boolean): ExitCode {
  const state = load(root, scope);
  if (action === "list") {
    const waves = [...state.waves.keys()].sort().map((id) => state.waves.get(id)!);
    return report(asJson, envelope("ok", 0, { action, scope, waves: waves.map(waveJson) }), () => {
      if (waves.length === 0) out(`(no waves in scope ${scope})`);
      else for (const w of waves) out(waveSummary(w));
    });
  }
  const w = state.waves.get(waveId);
  if (!w) throw unknownWave(waveId, [...state.waves.keys()]);
  const exit: ExitCode = w.state === "complete" ? 0 : 1;
  return report(asJson, envelope(w.state, exit, { action, scope, wave: waveJson(w) }), () => out(waveSummary(w)));
}

function actionOf(kind: string, wave: string, leaves: string[], argv: WaveArgs): DispatchAction {
  switch (kind) {
    case "open":
      return { kind, wave, leaves };
    case "start":
      return { kind, wave, leaf: leaves[0]!, handle: String(argv.handle) };
    case "return":
      return { kind, wave, leaf: leaves[0]! };
    case "abandon":
      return { kind, wave, reason: String(argv.reason) };
    default:
      return { kind: "seal", wave };
  }
}

function unknownWave(id: string, known: string[]): RefusedError {
  const near = nearest(id, known);
  return new RefusedError(near !== null ? `unknown wave ${id}; did you mean ${near}?` : `unknown wave ${id}`, {
    hint: known.length > 0 ? `waves of this scope: ${known.join(", ")}` : `open one with ${kbz("wave open")}`,
  });
}

/** The PLAN row a wave leaf names (leaf-1.1 → 1.1), refused early if it cannot go IN-FLIGHT; null without a PLAN. */
function planRowFor(root: string, scope: string, leaf: string): string | null {
  if (!hasPlan(root, scope)) return null;
  const plan = refusingPlanInput(() => scopePlan(root, scope));
  const id = taskId(leaf);
  if (!plan.byId.has(id)) return null;
  const problem = transitionProblem(plan, id, "IN-FLIGHT", { ledgerMet: true });
  if (problem) throw new RefusedError(`${problem}; nothing was recorded`);
  return id;
}

export async function runWave(argv: WaveArgs): Promise<ExitCode> {
  const action = String(argv.action ?? "");
  if (!ACTIONS.includes(action)) throw unknownAction("wave", argv.action, ACTIONS);
  const { wave, leaves: typed } = checkArgs(action, argv);
  const root = rootOf(argv);
  const scope = requireScope(root, argv, `wave ${action}`);
  if (action === "status" || action === "list") return inspect(action, root, scope, wave, !!argv.json);
  const state = load(root, scope);
  const existing = state.waves.get(wave);
  if (action !== "open" && !existing) throw unknownWave(wave, [...state.waves.keys()]);
  const leaves =
    action === "start" || action === "return"
      ? typed.map((l) => leafOfWave(l, existing!))
      : typed.map((l) => ledgerSpelling(root, scope, l));
  const step = actionOf(action, wave, leaves, argv);
  const already = alreadyRecorded(state, step);
  if (already !== null) {
    return report(
      !!argv.json,
      envelope("already-recorded", 0, { action, scope, line: already, wave: waveJson(existing!), warning: null }),
      () => out(`ALREADY RECORDED: ${already} (nothing changed)`),
    );
  }
  // A started leaf of a PLAN is IN-FLIGHT: checked before the wave moves, written after it did.
  const row = action === "start" ? planRowFor(root, scope, leaves[0]!) : null;
  let t;
  try {
    t = await commitWave(root, scope, step);
  } catch (e) {
    if (e instanceof DispatchStateError) throw stateProblem(root, scope, e);
    throw e;
  }
  printNotes(t.notes);
  if (t.auditWarning) err(`kbz: warning: ${t.auditWarning}`);
  if (row !== null) for (const w of (await setLeafState(root, scope, row, "IN-FLIGHT", "wave start")).warnings) err(w);
  return report(
    !!argv.json,
    envelope("recorded", 0, { action, scope, line: t.line, wave: waveJson(t.wave), warning: t.auditWarning }),
    () => out(t.line),
  );
}

export const verb: Verb = {
  command: "wave <action> [args..]",
  describe: "dispatch launch waves: open, start, seal, return, abandon, status, list",
  builder: (y) =>
    y
      .positional("action", { type: "string", describe: ACTIONS.join(" | ") })
      .positional("args", { type: "string", array: true, hidden: true })
      .option("scope", { type: "string", describe: "scope id", requiresArg: true })
      .option("wave", { type: "string", describe: "wave id", requiresArg: true })
      .option("leaf", {
        type: "string",
        array: true,
        describe: "leaf id, leaf-1.2 or 1.2 (repeat for open)",
        requiresArg: true,
      })
      .option("handle", { type: "string", describe: "the host's native agent/task id", requiresArg: true })
      .option("reason", { type: "string", describe: "why the wave is abandoned", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => runWave(argv as WaveArgs),
};
