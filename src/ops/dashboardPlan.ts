// The plan side of the dashboard's view op: PLAN.md's leaf table, the scheduler's snapshot and its
// advice, all from the core modules `kbz next` uses. The TUI only lays the result out.
import * as path from "node:path";
import { parseDispatch } from "../core/dispatch/waves.ts";
import { idCompare } from "../core/plan/order.ts";
import { parsePlan, withLeafStates, type Plan } from "../core/plan/table.ts";
import type { Advice } from "../core/schedule/advise.ts";
import { readConsistent } from "../io/scope.ts";
import type { ScopeTextCache } from "../io/read.ts";
import { CHANGED, scopeRead } from "./facts.ts";
import { adviceOn } from "./next.ts";
import type { LeaseView } from "../core/dispatch/lease-record.ts";
import type { NextSnapshot, WaveView } from "../core/schedule/snapshot.ts";
import { isDeliberate, ReadError } from "../core/errors.ts";

export interface PlanView {
  plan: Plan | null; // null when PLAN.md itself is unreadable or invalid (`problem` says why)
  /** Present when every scheduler input is valid; otherwise `problem` says why not. */
  next: NextSnapshot | null;
  advice: Advice | null;
  problem: string | null;
  waves: WaveView[];
  leases: LeaseView[];
  layers: Map<string, number>; // leaf id → layer (1 = no needs)
}

const compare = idCompare("natural");

/** A scope the plan side cannot read or schedule is a problem it shows; anything else propagates. */
function located(e: unknown): string {
  if (!isDeliberate(e)) throw e;
  return e.located();
}

/** Layer of each leaf: one more than its deepest need (layout only; the order is core's Kahn order). */
export function layersOf(plan: Plan): Map<string, number> {
  const layer = new Map<string, number>();
  for (const id of plan.order) {
    const row = plan.byId.get(id)!;
    layer.set(id, 1 + Math.max(0, ...row.needs.map((n) => layer.get(n) ?? 0)));
  }
  return layer;
}

/**
 * null when there is no scope or no PLAN.md; `inputs` collects what was read for the change hash.
 * A PLAN that parses but fails a later scheduler check still draws its graph. The whole plan side
 * is one read of the scope (io/read.ts), shared by PLAN.md, the scheduler and the waves; with a
 * `cache` (the dashboard's), files unchanged since the last read are not read again.
 */
export function loadPlanView(
  root: string,
  scope: string | null,
  slots: number,
  inputs: string[],
  cache?: ScopeTextCache,
): PlanView | null {
  if (!scope) return null;
  const shown = path.relative(root, path.join(root, ".unlazy", scope, "PLAN.md"));
  let problemOf: string | null = null;
  const view = readConsistent(
    root,
    scope,
    (scopeInputs): PlanView | null => {
      let text: string | null;
      try {
        text = scopeInputs.text("PLAN.md");
      } catch (e) {
        if (!(e instanceof ReadError)) throw e;
        return broken(new ReadError(e.message, e.code, shown, e.line).located(), inputs);
      }
      if (text === null) return null;
      inputs.push(text);
      let next: NextSnapshot | null = null;
      let advice: Advice | null = null;
      let problem: string | null = null;
      try {
        // The queue is kbz next's advice on the same read (cascades and sign-first included).
        const read = scopeRead(scopeInputs, { root, scope, slots, order: "natural" });
        next = read.facts;
        advice = adviceOn(read, { details: true }).advice.advice;
        inputs.push(next.fingerprint);
      } catch (e) {
        problem = located(e);
        inputs.push(problem);
      }
      // The scheduler parsed PLAN.md from the same text with the same order and leaf states: its
      // plan is the graph's (one parse, one copy held). A PLAN that parses but fails a later
      // scheduler check still draws its graph; one that does not parse shows why.
      let plan: Plan;
      try {
        plan = next?.plan ?? withLeafStates(parsePlan(text, compare, shown), scopeInputs.leafStates());
      } catch (e) {
        inputs.pop(); // the scheduler's report of the same failure: the parse's own is shown
        return broken(located(e), inputs);
      }
      let waves = next?.waves ?? [];
      let leases: LeaseView[] = next?.leases ?? [];
      if (!next) {
        try {
          leases = scopeInputs.leases();
          const d = scopeInputs.dispatchText();
          if (d !== null) {
            waves = [...parseDispatch(d).waves.values()];
            inputs.push(d);
          }
        } catch {
          // Without a valid dispatch.json the graph shows PLAN states only; the problem line says why.
        }
        inputs.push(JSON.stringify(leases));
      }
      return { plan, next, advice, problem, waves, leases, layers: layersOf(plan) };
    },
    (what, built) => {
      problemOf = CHANGED[what];
      inputs.push(problemOf);
      return built && { ...built, next: null, advice: null, problem: problemOf };
    },
    { cache },
  );
  return view;
}

/** A plan side that could not be read: only the reason is shown. */
export function planProblem(problem: string): PlanView {
  return { plan: null, next: null, advice: null, problem, waves: [], leases: [], layers: new Map() };
}

function broken(problem: string, inputs: string[]): PlanView {
  inputs.push(problem);
  return planProblem(problem);
}
