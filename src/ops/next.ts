// `kbz next` as a use case: the scope's facts (ops/facts.ts, the one builder) and the advice on
// them. Options in, data out; the CLI prints it, `kbz advance` ends with it.
import type { IdOrder } from "../core/plan/order.ts";
import * as path from "node:path";
import { adviseNext, type Advice, type SignFirst } from "../core/schedule/advise.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { resolveTarget } from "../io/discover.ts";
import { loadSnapshot } from "./snapshot.ts";
import { cascadesOf } from "./refresh.ts";
import type { Policy } from "../core/schedule/policy.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { readScheduleFacts } from "./facts.ts";

/** `--slots` when not given (next, advance, dash) and the dashboard's Queue: four leaves at once. The one slot default. */
export const DEFAULT_SLOTS = 4;

export interface NextRequest {
  root: string; // canonical
  scope: string;
  slots?: number; // default DEFAULT_SLOTS
  order?: IdOrder; // default natural
  policy?: Policy; // default id-order
  details?: boolean; // the reasons each task waits, structure (the text output always wants them)
  rootFlag?: string; // the --root the caller was given, if any (for the commands printed)
}

/** The review reasons a stale input causes: a VERIFIED leaf whose gate went STALE, a receipt no longer current. */
const CASCADING = /^(verified-ledger-not-met|verification-changed-)/;

export function nextAdvice(o: NextRequest): { snap: NextSnapshot; advice: Advice } {
  const snap = readScheduleFacts({
    root: o.root,
    scope: o.scope,
    slots: o.slots ?? DEFAULT_SLOTS,
    order: o.order ?? "natural",
  });
  const advice = adviseNext(snap, { details: o.details ?? true, policy: o.policy ?? "id-order" });
  // A cascade (one changed file, many stale gates and receipts) is grouped under its cause.
  if (advice.attention.some((a) => CASCADING.test(a.reason))) {
    const cascades = cascadesOf(o.root, o.scope, process.env, o.rootFlag);
    if (cascades.length > 0) advice.cascades = cascades;
  }
  if (advice.action === "verify-root") {
    const sign = unsignedIntegration(o.root, o.scope);
    if (sign.length > 0) advice.signFirst = sign;
  }
  return { snap, advice };
}

/**
 * The manual gates of the scope's root and node ledgers that are not met: `kbz check --reverify`
 * cannot meet them, and the root's S_STRUCTURE fails while one is open (unfinished-integration),
 * so a person signs them before the one call that verifies the root (issue 30).
 */
export function unsignedIntegration(root: string, scope: string): SignFirst[] {
  const snap = loadSnapshot(resolveTarget({ root, scope }));
  const leaf = /(^|\/)leaf-[^/]*\.md$/;
  return snap.gates
    .filter((g) => !leaf.test(g.file) && !isRunnable(g.gate) && g.state !== "met" && g.state !== "abandoned")
    .map((g) => ({
      ledger: path.relative(root, path.resolve(root, g.file)).split(path.sep).join("/"),
      gate: g.gate.id,
      title: g.gate.title,
    }));
}
