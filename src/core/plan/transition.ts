// Validated PLAN state transitions (`kbz plan set`, and the ones kbz performs itself: `wave
// start` marks IN-FLIGHT, `advance` marks VERIFIED and promotes). Pure.
import type { Plan, RowState } from "./table.ts";
import { kbz } from "../text/command.ts";
import { leafLedgerName } from "./leaf-id.ts";

export const STATES: readonly RowState[] = ["WAITING", "READY", "IN-FLIGHT", "VERIFIED", "ABANDONED"];

/** Which states a row may move to from each state (a same-state set is a no-op, always allowed). */
export const TRANSITIONS: Readonly<Record<RowState, readonly RowState[]>> = {
  WAITING: ["READY", "IN-FLIGHT", "ABANDONED"],
  READY: ["WAITING", "IN-FLIGHT", "ABANDONED"],
  "IN-FLIGHT": ["READY", "VERIFIED", "ABANDONED"],
  VERIFIED: ["READY"],
  ABANDONED: ["WAITING", "READY"],
};

export interface TransitionFacts {
  /** The leaf ledger's gates are all met (required for VERIFIED). */
  ledgerMet: boolean;
}

/** Null when `id` may move to `to`; else what is wrong and what to do. */
export function transitionProblem(plan: Plan, id: string, to: RowState, facts: TransitionFacts): string | null {
  const row = plan.byId.get(id);
  if (!row) return `unknown leaf ${id}`;
  if (row.state === to) return null;
  if (!TRANSITIONS[row.state].includes(to)) {
    return `${id} cannot move from ${row.state} to ${to} (allowed from ${row.state}: ${TRANSITIONS[row.state].join(", ")})`;
  }
  if (to === "READY" || to === "IN-FLIGHT") {
    const open = row.needs.filter((n) => plan.byId.get(n)?.state !== "VERIFIED");
    if (open.length > 0) return `${id} cannot be ${to}: its needs ${open.join(", ")} are not VERIFIED`;
  }
  if (to === "VERIFIED" && !facts.ledgerMet)
    return `${id} cannot be VERIFIED: gates/${leafLedgerName(id)} is not ALL MET (${kbz("advance")} runs its gates)`;
  return null;
}
