// `kbz next` as a use case: the scope's facts (ops/facts.ts, the one builder) and the advice on
// them. Options in, data out; the CLI prints it, `kbz advance` ends with it.
import type { IdCompare } from "../core/plan/order.ts";
import { idCompare } from "../core/plan/order.ts";
import { adviseNext, type Advice } from "../core/schedule/advise.ts";
import type { Policy } from "../core/schedule/policy.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { readScheduleFacts } from "./facts.ts";

/** `--slots` when not given (next, advance, dash) and the dashboard's Queue: four leaves at once. The one slot default. */
export const DEFAULT_SLOTS = 4;

export interface NextRequest {
  root: string; // canonical
  scope: string;
  slots?: number; // default DEFAULT_SLOTS
  compare?: IdCompare; // default natural
  policy?: Policy; // default id-order
  details?: boolean; // the reasons each task waits, structure (the text output always wants them)
}

export function nextAdvice(o: NextRequest): { snap: NextSnapshot; advice: Advice } {
  const snap = readScheduleFacts({ root: o.root, scope: o.scope, slots: o.slots ?? DEFAULT_SLOTS, compare: o.compare ?? idCompare("natural") });
  return { snap, advice: adviseNext(snap, { details: o.details ?? true, policy: o.policy ?? "id-order" }) };
}
