// Structure request files (docs/formats.md#structure-requests): reading a request or proposal
// inside the root, and the worker handoff events (report, accept, resume, reject), which build
// one request, persist it as .unlazy/S/requests/OP.json and apply it, so a retry with the same
// operation id reuses the recorded contract revision and stays idempotent.
import * as fs from "node:fs";
import * as path from "node:path";
import { writeAtomic } from "./fs.ts";
import { MAX_LEDGER_BYTES } from "../core/text/decode.ts";
import { ReadError } from "../core/errors.ts";
import { readStable } from "./read.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { applyStructure, type ApplyResult, type Hooks } from "./structure/apply.ts";
import { loadStructure } from "./structure/model.ts";
import { scopeDir } from "../core/structure/build.ts";
import { canonical, isObject, JOURNAL, StructureError } from "../core/structure/model.ts";

/** A JSON file inside the root, read with the stable reader; every failure is a StructureError. */
export function readRequestFile(root: string, file: string, what: string): unknown {
  const abs = path.resolve(root, file);
  try {
    return JSON.parse(readStable(abs, { label: what, maxBytes: MAX_LEDGER_BYTES, root }).toString("utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw new StructureError(`${what} is not valid JSON`);
    if (e instanceof ReadError) throw new StructureError(e.message, file);
    throw e;
  }
}

export type HandoffAction = "report" | "accept" | "resume" | "reject";

export interface HandoffEvent {
  action: HandoffAction;
  operation: string;
  /** report: the worker's proposal file (root-relative). */
  proposal?: string;
  /** accept, resume, reject: the report id. */
  report?: string;
  reason?: string;
  stopEvidence?: string;
  reviewEvidence?: string;
}

/** Wrong or missing flags of a handoff event (the caller maps it to a usage error). */
export class HandoffArgumentError extends Error {}

function entryOf(root: string, ev: HandoffEvent): { list: string; entry: Record<string, unknown> } {
  if (ev.action === "report") {
    if (ev.proposal === undefined) throw new HandoffArgumentError("--proposal FILE is required");
    const proposal = readRequestFile(root, ev.proposal, "proposal file");
    if (!isObject(proposal)) throw new StructureError("invalid reports");
    return { list: "reports", entry: proposal };
  }
  if (ev.report === undefined) throw new HandoffArgumentError("--report ID is required");
  if (ev.action === "reject") return { list: "rejectReports", entry: { id: ev.report, reason: ev.reason ?? "" } };
  return {
    list: ev.action === "accept" ? "acceptReports" : "resumeReports",
    entry: {
      id: ev.report,
      stopped: true,
      reviewed: true,
      stopEvidence: ev.stopEvidence ?? "",
      reviewEvidence: ev.reviewEvidence ?? "",
    },
  };
}

/** The request for one handoff event: the saved one on a retry, else a new one written to disk. */
export function handoffRequest(
  root: string,
  scope: string,
  ev: HandoffEvent,
): { request: Record<string, unknown>; created: string | null } {
  if (!isValidId(ev.operation)) throw new HandoffArgumentError("--operation needs a valid operation id");
  const { list, entry } = entryOf(root, ev);
  const file = path.join(scopeDir(root, scope), "requests", `${ev.operation}.json`);
  if (fs.existsSync(file)) {
    const saved = readRequestFile(root, file, "saved request");
    if (!isObject(saved) || canonical(saved[list]) !== canonical([entry]))
      throw new StructureError("operation id reused with different request");
    return { request: saved, created: null };
  }
  const request = {
    schema: 1,
    operation: ev.operation,
    contractRevision: loadStructure(root, scope).revision,
    refinements: {},
    [list]: [entry],
  };
  writeAtomic(file, JSON.stringify(request, null, 2) + "\n", { root, createParents: true });
  return { request, created: file };
}

/** Build (or reuse) the event's request and apply it; a refused event leaves no saved request. */
export async function applyHandoff(
  root: string,
  scope: string,
  ev: HandoffEvent,
  hooks: Hooks = {},
): Promise<ApplyResult> {
  const { request, created } = handoffRequest(root, scope, ev);
  try {
    return await applyStructure(root, scope, request, hooks);
  } catch (e) {
    // Once a journal exists the saved request is the retry; before that nothing may remain.
    if (created && e instanceof StructureError && !fs.existsSync(path.join(scopeDir(root, scope), JOURNAL))) {
      fs.rmSync(created, { force: true });
      if (fs.readdirSync(path.dirname(created)).length === 0) fs.rmdirSync(path.dirname(created));
    }
    throw e;
  }
}
