import * as path from "node:path";
import * as fs from "node:fs";
import { RECEIPTS_FILE } from "../io/receipts/file.ts";
// `kbz structure` as use cases: plan a split/regroup request (nothing written), apply it, recover
// an interrupted operation, the worker handoff events (report, accept, resume, reject), and the
// independent check (the S_STRUCTURE oracle). What changes the plan joins the scope's status log.
// Options in, data out; cli/structure.ts prints structure.mjs's shapes.
import { applyStructure, planStructure, recoverStructure, type ApplyResult } from "../io/structure/apply.ts";
import { checkStructure } from "../io/structure/oracle.ts";
import { loadStructure } from "../io/structure/model.ts";
import { namedSplit, type SplitChild } from "../core/structure/split.ts";
import { sha256Hex } from "../core/util/hash.ts";
import {
  applyHandoff,
  HandoffArgumentError,
  readRequestFile,
  type HandoffAction,
  type HandoffEvent,
} from "../io/requests.ts";
import { coordinationFor } from "../io/coordination/active.ts";
import { logEvent } from "../io/coordination/events.ts";

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
export async function applyRequest(
  root: string,
  scope: string,
  requestFile: string,
  hooks: StructureHooks,
  describe: (r: Extract<ApplyResult, { status: "applied" }>) => string,
) {
  const request = readRequestFile(root, requestFile, "request file");
  return logged(root, scope, await applyStructure(root, scope, request, hooks), describe);
}

/**
 * `structure regroup ID ID…`: the request a person would write by hand (no refinements, and
 * `regroup` naming the tasks whose groups become one), at the scope's current contract revision.
 * The operation id is derived from the names and the revision, so a retry is idempotent.
 */
export function regroupRequest(root: string, scope: string, ids: string[]): Record<string, unknown> {
  const revision = loadStructure(root, scope).revision;
  const names = [...new Set(ids)].sort();
  const plain = `regroup-${names.join("-")}-r${revision}`;
  const operation =
    plain.length <= 64 && /^[A-Za-z0-9._-]+$/.test(plain)
      ? plain
      : `regroup-${sha256Hex(JSON.stringify(names)).slice(0, 16)}-r${revision}`;
  return { schema: 1, operation, contractRevision: revision, refinements: {}, regroup: names };
}

/** Plan (nothing written) or apply a regroup by name. */
export async function regroupByName(
  root: string,
  scope: string,
  ids: string[],
  apply: boolean,
  hooks: StructureHooks,
  describe: (r: Extract<ApplyResult, { status: "applied" }>) => string,
) {
  const request = regroupRequest(root, scope, ids);
  // Already one group (a retry after the revision moved on): nothing to do, nothing written.
  const together = loadStructure(root, scope).meta.groups.some((g) => ids.every((id) => g.includes(id)));
  if (together)
    return {
      applied: {
        result: { status: "already-applied" as const, operation: String(request.operation) },
        logWarning: null,
      },
      request,
    };
  if (!apply) return { planned: planStructure(root, scope, request), request };
  return { applied: await logged(root, scope, await applyStructure(root, scope, request, hooks), describe), request };
}

/**
 * `structure split LEAF --into GLOBS GLOBS…`: the named leaf's split request (core/structure/split.ts),
 * applied. A retry (the same parts for a leaf already split so) is already applied; nothing written.
 */
export async function splitByName(
  root: string,
  scope: string,
  parent: string,
  parts: string[][],
  hooks: StructureHooks,
  describe: (r: Extract<ApplyResult, { status: "applied" }>) => string,
) {
  const named = namedSplit(loadStructure(root, scope), parent, parts);
  const children: SplitChild[] = named.children;
  if (named.status === "already-applied")
    return {
      applied: { result: { status: "already-applied" as const, operation: named.operation }, logWarning: null },
      children,
      request: null,
    };
  return {
    applied: await logged(root, scope, await applyStructure(root, scope, named.request, hooks), describe),
    children,
    request: named.request,
  };
}

/** A worker handoff event (a report, or the parent's accept/resume/reject), applied like a request. */
export async function applyHandoffEvent(
  root: string,
  scope: string,
  event: HandoffEvent,
  hooks: StructureHooks,
  describe: (r: Extract<ApplyResult, { status: "applied" }>) => string,
) {
  return logged(root, scope, await applyHandoff(root, scope, event, hooks), describe);
}

async function logged(
  root: string,
  scope: string,
  result: ApplyResult,
  describe: (r: Extract<ApplyResult, { status: "applied" }>) => string,
): Promise<{ result: ApplyResult; logWarning: string | null }> {
  if (result.status === "already-applied") return { result, logWarning: null };
  return {
    result,
    logWarning: await logEvent(
      coordinationFor(root),
      scope,
      `structure ${result.operation} applied as turn ${result.turn}: ${describe(result)}`,
    ),
  };
}

/** `structure recover`: roll an interrupted operation forward (logged), or nothing to recover. */
export async function recoverOperation(root: string, scope: string, hooks: StructureHooks) {
  const result = await recoverStructure(root, scope, hooks);
  const logWarning =
    result.status === "applied"
      ? await logEvent(coordinationFor(root), scope, `structure ${result.operation} recovered (rolled forward)`)
      : null;
  return { result, logWarning };
}

/** `structure check`: the independent checker's verdict on the scope (and a proposed launch). */
/** Does the repository keep receipts (a structure event makes them stale)? */
export function hasReceipts(root: string): boolean {
  return fs.existsSync(path.join(root, RECEIPTS_FILE));
}

export function checkScopeStructure(
  root: string,
  scope: string,
  o: { selection: string | null; final: boolean; groups?: (groups: string[][]) => void },
) {
  return checkStructure(root, scope, o);
}
