// `kbz structure` as use cases: plan a split/regroup request (nothing written), apply it, recover
// an interrupted operation, the worker handoff events (report, accept, resume, reject), and the
// independent check (the S_STRUCTURE oracle). What changes the plan joins the scope's status log.
// Options in, data out; cli/structure.ts prints structure.mjs's shapes.
import { applyStructure, planStructure, recoverStructure, type ApplyResult } from "../io/structure/apply.ts";
import { checkStructure } from "../io/structure/oracle.ts";
import { applyHandoff, HandoffArgumentError, readRequestFile, type HandoffAction, type HandoffEvent } from "../io/requests.ts";
import { storeFor } from "../io/store/active.ts";
import { logEvent } from "../io/store/events.ts";

export { HandoffArgumentError };
export type { ApplyResult, HandoffAction, HandoffEvent };

/** Test seam: a step after which an apply or a recovery is interrupted (kbz's own crash tests). */
export interface StructureHooks {
  afterWrite?: (step: number) => void;
}

/** `structure plan --request FILE`: the planned operation, independently checked; nothing written. */
export function planRequest(root: string, scope: string, requestFile: string) {
  return planStructure(root, scope, readRequestFile(root, requestFile, "request file"));
}

/** Apply a split/regroup request; the applied operation joins the scope's log. */
export async function applyRequest(root: string, scope: string, requestFile: string, hooks: StructureHooks, describe: (r: Extract<ApplyResult, { status: "applied" }>) => string) {
  const request = readRequestFile(root, requestFile, "request file");
  return logged(root, scope, await applyStructure(root, scope, request, hooks), describe);
}

/** A worker handoff event (a report, or the parent's accept/resume/reject), applied like a request. */
export async function applyHandoffEvent(root: string, scope: string, event: HandoffEvent, hooks: StructureHooks, describe: (r: Extract<ApplyResult, { status: "applied" }>) => string) {
  return logged(root, scope, await applyHandoff(root, scope, event, hooks), describe);
}

async function logged(root: string, scope: string, result: ApplyResult, describe: (r: Extract<ApplyResult, { status: "applied" }>) => string): Promise<{ result: ApplyResult; logWarning: string | null }> {
  if (result.status === "already-applied") return { result, logWarning: null };
  return { result, logWarning: await logEvent(storeFor(root), scope, `structure ${result.operation} applied as turn ${result.turn}: ${describe(result)}`) };
}

/** `structure recover`: roll an interrupted operation forward (logged), or nothing to recover. */
export async function recoverOperation(root: string, scope: string, hooks: StructureHooks) {
  const result = await recoverStructure(root, scope, hooks);
  const logWarning = result.status === "applied" ? await logEvent(storeFor(root), scope, `structure ${result.operation} recovered (rolled forward)`) : null;
  return { result, logWarning };
}

/** `structure check`: the independent checker's verdict on the scope (and a proposed launch). */
export function checkScopeStructure(root: string, scope: string, o: { selection: string | null; final: boolean }) {
  return checkStructure(root, scope, o);
}
