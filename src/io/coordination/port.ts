// The coordination port: leases, dispatch waves, the status log, the session binding and the
// PLAN leaf states kbz sets. Two adapters: the files under .unlazy/ (the embedded default,
// ./files.ts) and an etcd v3 cluster (./etcd/coordination.ts). Readers take a `CoordinationView` (one
// consistent read, synchronous to use); writers call the `Coordination`. Nothing else knows which
// adapter is in use: `coordination(root)` (./active.ts) hands readers the installed view.
import type { ClaimResult } from "../dispatch/leases.ts";
import type { InvalidLease, Lease, LeaseRecord } from "../../core/dispatch/lease-record.ts";
import type { CommitOptions, CommittedTransition } from "../dispatch/transition.ts";
import type { DispatchAction } from "../../core/dispatch/waves.ts";
import type { LoadedDispatch } from "../read.ts";
import type { RowState } from "../../core/plan/table.ts";

export type CoordinationKind = "files" | "etcd";

/** A lease this clone claimed that the coordinator no longer holds (expired, revoked, or taken over). */
export interface LostLease {
  scope: string;
  leaf: string;
  globs: string[];
  reason: string;
}

export interface CoordinationView {
  readonly kind: CoordinationKind;
  /** Every lease record of the repository (all scopes), sorted. */
  leases(): LeaseRecord[];
  /**
   * The scope's dispatch.json text (null when there is none). `read` is the caller's own read of
   * the file (so a reader's consistency pass covers it); only the files adapter calls it.
   */
  dispatchText(scope: string, read?: () => string | null): string | null;
  /** Parsed and validated dispatch state; throws DispatchStateError like `loadDispatch`. */
  dispatch(scope: string): LoadedDispatch;
  /** The session id bound to the scope, or null. */
  session(scope: string): string | null;
  /** The scope's status log lines, oldest first (bounded to the newest `max`). */
  statusLog(scope: string, max?: number): string[];
  /** Leaf states set through the coordination adapter, overlaying PLAN.md's State column; null: PLAN.md is the authority. */
  leafStates(scope: string): Map<string, RowState> | null;
  /** Leases this clone holds that the coordinator has lost; always empty for files. */
  lost(scope: string | null): LostLease[];
}

export interface ReleaseResult {
  released: Lease[];
  /** Leases this clone held that were already gone at the coordinator when it released them. */
  alreadyLost: LostLease[];
  notes: string[];
}

export interface Coordination {
  readonly kind: CoordinationKind;
  /** `files` or `etcd://h:p,…` for messages. */
  readonly label: string;
  /**
   * A fresh consistent read (etcd: one read-only transaction over the repository's keys, one
   * revision). `logScope` names the scope whose status log the view carries (etcd reads only that one).
   */
  view(opts?: { logScope?: string | null }): Promise<CoordinationView>;
  claim(scope: string, leaf: string, globs: string[]): Promise<ClaimResult>;
  release(scope: string, leaf: string | null): Promise<ReleaseResult>;
  removeInvalid(): Promise<{ removed: InvalidLease[]; notes: string[] }>;
  /** One action, or several applied in order as one transition (one write; all or nothing). */
  commitDispatch(
    scope: string,
    action: DispatchAction | DispatchAction[],
    opts?: CommitOptions,
  ): Promise<CommittedTransition>;
  /** Append one line (a timestamp is NOT added here; callers write their own, as today). */
  appendStatus(scope: string, text: string): Promise<void>;
  bindSession(scope: string, id: string): Promise<string>;
  /**
   * Record a leaf state; `leaf` is the PLAN Leaf id (`1.2`, not `leaf-1.2`). `editPlan` is the caller's PLAN.md edit (the State cell): the files
   * adapter runs it; the etcd adapter writes the state to the cluster instead and leaves PLAN.md alone.
   */
  setLeafState(scope: string, leaf: string, state: RowState, editPlan: () => void | Promise<void>): Promise<void>;
  /** Call `onChange` after every change to the repository's coordination state; returns a stop function. */
  watch(onChange: () => void): () => void;
  close(): void;
}
