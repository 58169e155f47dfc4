// What the scheduler decides from: plain data, already read and validated. `adviseNext` is a
// pure function of this object, so every rule is testable without files.
import type { LeaseView } from "../dispatch/lease-record.ts";
import type { Wave } from "../dispatch/waves.ts";
import type { GateState } from "../ledger/state.ts";
import type { IdCompare } from "../plan/order.ts";
import type { Plan } from "../plan/table.ts";
import type { AccessSets } from "./conflicts.ts";
import type { Report } from "../structure/model.ts";

export interface TaskFacts {
  access: AccessSets; // writes = the ledger OWNS (equal to PLAN Owns)
  gates: GateState[]; // every gate of gates/leaf-<id>.md
  /** VERIFIED rows with a receipt: the receipt audit's reason when not current (docs/formats.md#receipts), else null. */
  verification?: string | null;
  /** ACCESS.json's optional per-leaf estimate (positive; absent = 1), for the critical-path policy. */
  estimate?: number;
  /** Gates (state `vacuous`) a `kbz check --probe` found VACUOUS (core/trace.ts gateVerdicts), with what was hidden; absent when none. */
  vacuous?: { gate: string; hidden: string[] }[];
}

/** What the advice reads of a dispatch wave (docs/formats.md#dispatch); leaves are `leaf-<id>`. */
export type WaveView = Pick<Wave, "id" | "state" | "leaves" | "started" | "returned">;

export interface NextSnapshot {
  scope: string;
  slots: number; // total concurrent leaves for this scope, active ones included
  compare: IdCompare;
  plan: Plan;
  tasks: Map<string, TaskFacts>;
  waves: WaveView[]; // dispatch.json order
  leases: LeaseView[]; // every lease of every scope, sorted by file name
  fingerprint: string; // sha256 of the inputs read (docs/formats.md#scheduling-consistency)
  /** STRUCTURE.json's groups, reports and turn when the registry exists (docs/formats.md#scheduling, docs/formats.md#handoff). */
  structure?: RegistryView;
}

export interface RegistryView {
  turn: number;
  groups: string[][];
  reports: Report[];
  splits: { parent: string; children: string[] }[];
}
