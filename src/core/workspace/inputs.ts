// The port through which pure builders (the scheduler's facts, the structure model, the
// dashboard's plan) see one scope's inputs. io/read.ts's ScopeReader is the one implementation:
// every file is read once, and a reader that promised a consistency pass runs it after the build.
import type { LeaseRecord } from "../dispatch/lease-record.ts";
import type { Target } from "./target.ts";
import type { Ledger } from "../ledger/model.ts";
import type { RowState } from "../plan/table.ts";

export interface ScopeInputs {
  readonly root: string; // canonical
  readonly scope: string;
  /**
   * A scope file's text (`rel` is scope-relative, `/`-separated), null when absent. Any other
   * problem is a ReadError whose `file` is `rel` (code DECODE with a line for bad UTF-8, a BOM or
   * NUL). A file is read once; asking again returns the same text.
   */
  text(rel: string): string | null;
  /** The scope's ledger discovery, resolved once. */
  target(): Target;
  /** Every lease record of the repository, sorted, read once (through the coordination store). */
  leases(): LeaseRecord[];
  /** The scope's dispatch.json text through the coordination store, null when there is none. */
  dispatchText(): string | null;
  /** Leaf states set through a coordinator (PLAN Leaf id → state), overlaying PLAN.md; null: none. */
  leafStates(): ReadonlyMap<string, RowState> | null;
  /** Every text read so far, in read order, as [scope path suffix, text or null]. */
  readonly entries: readonly [string, string | null][];
  /** One more input for the consistency pass to re-check (true = it changed). */
  alsoCheck(changed: () => boolean): void;
  /**
   * The ledger parsed from `text`, the text this port returned for `rel`. A long-lived reader
   * may hand back the parse it made of the same text before; parses are never changed by
   * their users. Without it, callers parse.
   */
  ledger?(rel: string, text: string, stem: string): Ledger;
}
