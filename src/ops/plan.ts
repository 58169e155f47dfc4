// `kbz plan add|set` as use cases, and the leaf-state transaction `kbz wave start` and `kbz
// advance` share: validated against PLAN.md, written under the scope lock (or recorded by a
// coordinator), logged. Options in, data out: warnings come back for the caller to print.
import * as path from "node:path";
import { gateState } from "../core/ledger/state.ts";
import { accessWith, leafLedger, promotable, withRow, withStates, type NewRow } from "../core/plan/edit.ts";
import { withLeafStates, type Plan, type RowState } from "../core/plan/table.ts";
import { transitionProblem } from "../core/plan/transition.ts";
import { commitScopeEdit, readScopeTexts, scopeDir } from "../io/plan/write.ts";
import { loadLedgerFile } from "../io/read.ts";
import { coordination, coordinationFor } from "../io/coordination/active.ts";
import { logEvent } from "../io/coordination/events.ts";
import { infra, RefusedError, refusingPlanInput } from "./refused.ts";
import { leafLedgerName } from "../core/plan/leaf-id.ts";

export interface AccessDecl {
  reads: string[];
  resourceReads: string[];
  resourceWrites: string[];
}

/**
 * A new leaf: its PLAN.md row (from `rowFor`, given the plan read under the lock), its ACCESS.json
 * entry and its ledger, written at once. `ledger` is the new ledger's root-relative path.
 */
export async function addLeaf(
  root: string,
  scope: string,
  id: string,
  decl: AccessDecl,
  rowFor: (plan: Plan) => NewRow,
): Promise<{ row: NewRow; ledger: string; warnings: string[] }> {
  const warnings: string[] = [];
  const done = await write(root, scope, warnings, (cur) => {
    const row = rowFor(cur.plan);
    return {
      row,
      create: { [`gates/${leafLedgerName(id)}`]: leafLedger(id, row.owns) },
      access: accessWith(cur.accessText, cur.plan.revision, id, decl),
      plan: withRow(cur.planText, row),
      log: `plan add ${id} (${row.state}, wave ${row.wave})`,
    };
  });
  return {
    row: done.row,
    ledger: path.relative(root, path.join(scopeDir(root, scope), `gates/${leafLedgerName(id)}`)),
    warnings,
  };
}

function ledgerMet(root: string, scope: string, id: string): boolean {
  const entry = loadLedgerFile(path.join(scopeDir(root, scope), "gates", leafLedgerName(id)), root, true);
  if (!entry.ledger || entry.problems.length > 0) return false;
  const l = entry.ledger;
  return l.gates.length > 0 && l.gates.every((g) => gateState(g, l) === "met");
}

/**
 * One validated state change, plus the WAITING rows a VERIFIED row unblocks. Through the coordination adapter:
 * the files adapter runs the PLAN.md edit (validated again under its lock), a coordinator records
 * the states instead.
 */
export async function setLeafState(
  root: string,
  scope: string,
  id: string,
  to: RowState,
  log: string,
): Promise<{ from: RowState; promoted: string[]; warnings: string[] }> {
  const met = to === "VERIFIED" ? ledgerMet(root, scope, id) : true;
  const decide = (plan: Plan) => {
    const problem = transitionProblem(plan, id, to, { ledgerMet: met });
    if (problem) throw new RefusedError(problem);
    const from = plan.byId.get(id)!.state;
    const promoted = from !== to && to === "VERIFIED" ? promotable(plan, new Set([id])) : [];
    return { from, promoted };
  };
  const cur = refusingPlanInput(() => readScopeTexts(root, scope));
  const first = decide(withLeafStates(cur.plan, coordination(root).leafStates(scope)));
  const warnings: string[] = [];
  if (first.from === to) return { ...first, warnings };
  const coord = coordinationFor(root);
  let result = first;
  const changes: [string, RowState][] = [[id, to], ...first.promoted.map((p) => [p, "READY"] as [string, RowState])];
  for (const [leaf, state] of changes) {
    await infra(() =>
      coord.setLeafState(scope, leaf, state, async () => {
        if (leaf !== id) return; // the first edit writes every change of this transition at once
        result = await write(root, scope, warnings, (locked) => {
          const r = decide(locked.plan);
          const states = new Map<string, RowState>([
            [id, to],
            ...r.promoted.map((p) => [p, "READY"] as [string, RowState]),
          ]);
          const tail = r.promoted.length ? `; promoted ${r.promoted.join(", ")} to READY` : "";
          return { ...r, plan: withStates(locked.planText, states), log: `${log} ${id} ${r.from} -> ${to}${tail}` };
        });
      }),
    );
  }
  return { from: result.from, promoted: result.promoted, warnings };
}

/**
 * Several rows to one state that promotes nothing (`kbz next --launch`: IN-FLIGHT), validated
 * together and written as one PLAN.md edit (a coordinator records each state instead).
 */
export async function setLeafStates(
  root: string,
  scope: string,
  ids: string[],
  to: Exclude<RowState, "VERIFIED">,
  log: string,
): Promise<{ warnings: string[] }> {
  const check = (plan: Plan) => {
    for (const id of ids) {
      const problem = transitionProblem(plan, id, to, { ledgerMet: true });
      if (problem) throw new RefusedError(problem);
    }
  };
  const cur = refusingPlanInput(() => readScopeTexts(root, scope));
  check(withLeafStates(cur.plan, coordination(root).leafStates(scope)));
  const warnings: string[] = [];
  const coord = coordinationFor(root);
  for (const [i, id] of ids.entries()) {
    await infra(() =>
      coord.setLeafState(scope, id, to, async () => {
        if (i !== 0) return; // the first edit writes every row at once
        await write(root, scope, warnings, (locked) => {
          check(locked.plan);
          return {
            plan: withStates(locked.planText, new Map(ids.map((x) => [x, to] as [string, RowState]))),
            log: `${log}: ${ids.join(", ")} -> ${to}`,
          };
        });
      }),
    );
  }
  return { warnings };
}

/** One scope edit committed under the scope lock and logged; a log warning is added to `warnings`. */
async function write<T extends object>(
  root: string,
  scope: string,
  warnings: string[],
  edit: Parameters<typeof commitScopeEdit<T & { plan?: string }>>[2],
): Promise<T> {
  const done = await refusingPlanInput(() => infra(() => commitScopeEdit(root, scope, edit)));
  const log = (done as { log?: string }).log;
  if (log) {
    const warning = await logEvent(coordinationFor(root), scope, log);
    if (warning) warnings.push(warning);
  }
  return done;
}

export function planLeafIds(root: string, scope: string): string[] {
  return refusingPlanInput(() => readScopeTexts(root, scope)).plan.rows.map((r) => r.id);
}
