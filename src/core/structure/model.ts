// The structure model (docs/formats.md#structure, docs/formats.md#structure-events): plain data shared by the planner, the
// materializer and the independent checker, plus the canonical encoding and hash. The
// checker imports only these types and helpers, never the planner.
import type { GateState } from "../ledger/state.ts";
import { codeUnitCompare } from "../plan/order.ts";
import type { Tier, RowState } from "../plan/table.ts";
import type { Wave, WaveReturn, WaveStart } from "../dispatch/waves.ts";
import type { AccessDecl } from "../plan/access.ts";
import type { LeaseView } from "../dispatch/lease-record.ts";
import { sha256Hex } from "../util/hash.ts";
import { KbzError } from "../errors.ts";
import { kbz } from "../text/command.ts";

/**
 * A dispatch wave as plain JSON data (docs/formats.md#dispatch), derived from dispatch's Wave:
 * journals, hashes and clones stay JSON, so the Maps become records.
 */
export type WaveRecord = Pick<Wave, "id" | "state" | "leaves"> & {
  started: Record<string, WaveStart>;
  returned: Record<string, WaveReturn>;
};

/** Every structure failure; the message is the spec's (docs/formats.md#errors), ≤800 chars on output. */
export class StructureError extends KbzError {
  constructor(message: string, file?: string, line?: number) {
    super(message, { code: "structure", file, line });
  }
}

/** Throw a StructureError, optionally located in a file. */
export function fail(message: string, file?: string, line?: number): never {
  throw new StructureError(message, file, line);
}

/** Structure ids sort by UTF-16 code units (docs/formats.md#ids): STRUCTURE.json stays byte-compatible. */
export const cmp = codeUnitCompare;

export function sortIds(ids: Iterable<string>): string[] {
  return [...ids].sort(cmp);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Structure canonical JSON (docs/formats.md#ids): keys sorted by code units, arrays kept in order. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort(cmp)) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
  return out;
}

export function sha(text: string): string {
  return sha256Hex(text);
}

export function hashOf(value: unknown): string {
  return sha(canonical(value));
}

export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

export interface GateDef {
  id: string;
  title: string;
  check: string | null;
  expect: string | null;
  cwd: string | null;
}

export interface TaskRow {
  id: string;
  owns: string[]; // normalized, PLAN order
  needs: string[];
  tier: Tier;
  wave: number;
  state: RowState;
  access: AccessDecl;
  ledger: string; // full text of gates/leaf-<id>.md
  gates: GateDef[];
  gateStates: Record<string, GateState>;
}

/** A non-leaf ledger: GATES.md, gates/node-*.md or any other gates/*.md. */
export interface Integration {
  file: string; // scope-relative, forward slashes
  text: string;
  gates: GateDef[];
  gateStates: Record<string, GateState>;
}

export interface Checkpoint {
  summary: string;
  completed: string[];
  remaining: string[];
  artifacts: { path: string; sha256: string }[];
}

export interface ChildSpec {
  id: string;
  needs: string[];
  tier: string;
  ledger: string;
  access: unknown;
  refinement?: Refinement;
}

export interface Refinement {
  retainsParentGates: true;
  children: ChildSpec[];
}

export interface Report {
  id: string;
  parent: string;
  source: { wave: string; handle: string; startAt: string };
  checkpoint: Checkpoint;
  ledger: string;
  contract: { needs: string[]; owns: string[]; reads: string[]; resourceReads: string[]; resourceWrites: string[] };
  refinement: Refinement;
  reportedTurn: number;
  operation: string;
  state: "pending" | "applied" | "resumed" | "rejected";
  resolvedTurn?: number;
  resolutionOperation?: string;
  reason?: string;
  returnedAt?: string;
  stopped?: boolean;
  reviewed?: boolean;
  stopEvidence?: string;
  reviewEvidence?: string;
}

export interface Split {
  parent: string;
  children: string[];
  definitionHash: string;
}

export interface Operation {
  id: string;
  requestHash: string;
  turn: number;
}

/** STRUCTURE.json (docs/formats.md#structure), keys in file order. */
export interface Registry {
  schema: 1;
  initial: string[];
  expected: string[];
  requiredEdges: [string, string][];
  requiredGates: Record<string, string[]>;
  requiredIntegrations: Record<string, string[]>;
  splits: Split[];
  groups: string[][];
  operations: Operation[];
  turn: number;
  reports: Report[];
}

/** What the checker verifies: the scope's tasks, ledgers, dispatch, leases and registry. */
export interface StructureState {
  scope: string;
  rows: TaskRow[]; // sorted by id
  integrations: Integration[]; // sorted by file
  waves: WaveRecord[];
  leases: LeaseView[];
  meta: Registry;
  registryInitialized: boolean;
  active: string[]; // the caller's active set (docs/formats.md#scheduling), sorted
  /** VERIFIED leaf id → receipt issue; present only when loaded with root and scope (docs/formats.md#structure-verification). */
  receipts?: Record<string, string>;
}

/** A loaded scope (docs/formats.md#structure-events): the state plus what was read, for snapshots and journals. */
export interface Model extends StructureState {
  root: string;
  revision: number;
  planText: string;
  accessText: string;
  dispatchText: string | null;
  files: Record<string, string | null>; // observed inputs (docs/formats.md#structure-journal)
  hash: string;
  started: string[];
  declared: string[];
}

export const JOURNAL = "STRUCTURE.pending.json";
export const REGISTRY = "STRUCTURE.json";
export const STRUCTURE_GATE = "S_STRUCTURE";
export const STRUCTURE_EXPECT = "STRUCTURE_OK";
export const STRUCTURE_TITLE = "All required work remains accounted for, integrated and settled";

/**
 * The S_STRUCTURE CHECK. It names the binary through PATH and no absolute path, so it survives
 * moving the repository (fixes docs/formats.md#fixes); `kbz structure check` finds the root by walking up
 * from the working directory to the directory that holds `.unlazy/<scope>`.
 */
export function structureCheckCommand(scope: string): string {
  return kbz("structure check", { scope, final: true });
}

export function emptyRegistry(): Registry {
  return {
    schema: 1,
    initial: [],
    expected: [],
    requiredEdges: [],
    requiredGates: {},
    requiredIntegrations: {},
    splits: [],
    groups: [],
    operations: [],
    turn: 0,
    reports: [],
  };
}
