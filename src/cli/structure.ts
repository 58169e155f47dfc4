// kbz structure: split/regroup events, recovery, the independent check (the S_STRUCTURE oracle)
// and the worker handoff verbs (kill §3.2, §3.3, §4.13). With --json every action prints one
// object in structure.mjs's shape; failures are {"status":"invalid"} (check: STRUCTURE_INVALID).
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { applyStructure, planStructure, recoverStructure, type ApplyResult } from "../core/structure/apply.ts";
import { loadStructure, scopeDir } from "../core/structure/load.ts";
import { canonical, isObject, JOURNAL, StructureError } from "../core/structure/model.ts";
import { checkStructure } from "../core/structure/oracle.ts";
import type { Action } from "../core/structure/plan.ts";
import { canonicalRoot, isValidId } from "../core/workspace/discover.ts";
import { WriteError, writeAtomic } from "../core/workspace/fs.ts";
import { LockTimeoutError } from "../core/workspace/lock.ts";
import { MAX_LEDGER_BYTES, ReadError, readStable } from "../core/workspace/read.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, json, out } from "./output.ts";
import { usageMessage } from "./next.ts";

interface StructureArgs {
  action?: string;
  scope?: string;
  root?: string;
  request?: string;
  selection?: string;
  details?: boolean;
  final?: boolean;
  json?: boolean;
  operation?: string;
  report?: string;
  proposal?: string;
  "stop-evidence"?: string;
  "review-evidence"?: string;
  reason?: string;
}

const EVENTS = ["plan", "apply"];
const HANDOFFS = ["report", "accept", "resume", "reject"];
const ACTIONS = [...EVENTS, "recover", "check", ...HANDOFFS];
const MAX_ERROR = 800;

const HELP = `Actions:
  kbz structure plan|apply --scope S --request FILE [--details]   plan (read-only) or apply one event
  kbz structure recover    --scope S                               roll a crashed apply forward
  kbz structure check      --scope S [--selection FILE] [--final]  independent invariant check (S_STRUCTURE)
  kbz structure report     --scope S --operation OP --proposal FILE
  kbz structure accept|resume --scope S --operation OP --report ID --stop-evidence TEXT --review-evidence TEXT
  kbz structure reject     --scope S --operation OP --report ID --reason TEXT

Does not run CHECK commands or start agents. The handoff verbs persist their request as
.unlazy/S/requests/OP.json and apply it; retry with the same operation id and the same values.
Exit codes: 0 done / STRUCTURE_OK; 1 STRUCTURE_UNMET; 2 invalid input or refused event (nothing changes).`;

/** Fault injection for the crash tests: throw after the n-th write step of an apply or recovery. */
const FAULT_ENV = "KBZ_TEST_FAULT_AFTER";

function printJson(v: unknown): void {
  json(v, true);
}

function clip(message: string): string {
  return message.length > MAX_ERROR ? message.slice(0, MAX_ERROR - 3) + "..." : message;
}

function invalid(action: string | undefined, message: string, asJson: boolean): ExitCode {
  if (asJson) printJson(action === "check" ? { marker: "STRUCTURE_INVALID", error: clip(message) } : { status: "invalid", error: clip(message) });
  else err(`kbz: ${clip(message)}`);
  return 2;
}

/** The root that holds `.unlazy/<scope>`: --root, else the nearest such ancestor of the cwd. */
function rootFor(argv: StructureArgs, scope: string): string {
  if (argv.root !== undefined) return canonicalRoot(argv.root);
  let dir = canonicalRoot(process.cwd());
  for (;;) {
    if (fs.existsSync(path.join(dir, ".unlazy", scope))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return canonicalRoot(process.cwd());
    dir = up;
  }
}

function readJsonInside(root: string, file: string, what: string): unknown {
  const abs = path.resolve(root, file);
  try {
    return JSON.parse(readStable(abs, { label: what, maxBytes: MAX_LEDGER_BYTES, root }).toString("utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw new StructureError(`${what} is not valid JSON`);
    if (e instanceof ReadError) throw new StructureError(e.message, file);
    throw e;
  }
}

function faultHook(): ((step: number) => void) | undefined {
  const raw = process.env[FAULT_ENV];
  if (raw === undefined || !/^[0-9]+$/.test(raw)) return undefined;
  const n = Number(raw);
  return (step) => {
    if (step === n) throw new StructureError(`injected interruption after write ${n}`);
  };
}

function summary(actions: Action[]): Record<string, number> {
  const count = (a: Action["action"]) => actions.filter((x) => x.action === a).length;
  return {
    expanded: count("expand"),
    merged: count("group"),
    reported: count("report"),
    accepted: count("accept-report"),
    rejected: count("reject-report"),
    resumed: count("resume-report"),
  };
}

async function run(argv: StructureArgs): Promise<ExitCode> {
  const action = argv.action;
  const asJson = !!argv.json;
  if (action === undefined || !ACTIONS.includes(action)) return invalid(action, "expected plan, apply, recover, check, report, accept, resume or reject", asJson);
  if (argv.scope === undefined || !isValidId(argv.scope)) return invalid(action, "invalid scope", asJson);
  const scope = argv.scope;
  try {
    const root = rootFor(argv, scope);
    if (action === "check") return check(root, scope, argv);
    if (action === "recover") {
      if (argv.request !== undefined || argv.details || argv.selection !== undefined || argv.final) return invalid(action, "recover takes only root and scope", asJson);
      const r = await recoverStructure(root, scope, { afterWrite: faultHook() });
      if (asJson) printJson(r);
      else out(r.status === "applied" ? `recovered operation ${r.operation}` : "nothing to recover");
      return 0;
    }
    if (EVENTS.includes(action)) {
      if (argv.request === undefined) return invalid(action, "request file required", asJson);
      const request = readJsonInside(root, argv.request, "request file");
      return action === "plan" ? plan(root, scope, request, argv) : printApplied(await applyStructure(root, scope, request, { afterWrite: faultHook() }), argv);
    }
    const { request, created } = handoffRequest(root, scope, action, argv);
    try {
      return printApplied(await applyStructure(root, scope, request, { afterWrite: faultHook() }), argv);
    } catch (e) {
      // A refused event leaves no trace; once a journal exists the saved request is the retry.
      if (created && e instanceof StructureError && !fs.existsSync(path.join(scopeDir(root, scope), JOURNAL))) {
        fs.rmSync(created, { force: true });
        if (fs.readdirSync(path.dirname(created)).length === 0) fs.rmdirSync(path.dirname(created));
      }
      throw e;
    }
  } catch (e) {
    if (e instanceof StructureError || e instanceof UsageError || e instanceof WriteError || e instanceof LockTimeoutError) return invalid(action, e.located(), asJson);
    throw e;
  }
}

function plan(root: string, scope: string, request: unknown, argv: StructureArgs): ExitCode {
  const r = planStructure(root, scope, request);
  if (r.status === "already-applied") {
    if (argv.json) printJson(r);
    else out(`operation ${r.operation} is already applied`);
    return 0;
  }
  const c = r.calc;
  const result: Record<string, unknown> = {
    status: "planned",
    operation: r.operation,
    snapshot: r.snapshot,
    actions: argv.details ? c.actions : summary(c.actions),
    turn: c.next.meta.turn,
    check: c.check,
    complexity: c.complexity,
  };
  if (argv.details) {
    result.groups = c.next.meta.groups;
    result.splits = c.next.meta.splits;
  }
  if (argv.json) printJson(result);
  else {
    out(`planned ${r.operation} as turn ${c.next.meta.turn}: ${describe(c.actions)}`);
    out(`complexity: ${c.complexity.groups} group(s), ${c.complexity.boundaryEdges} boundary edge(s), depth ${c.complexity.depth}`);
    if (argv.details) for (const g of c.next.meta.groups) out(`  group ${g.join(", ")}`);
    out("independent check: ok (nothing written; apply with the same request file)");
    out(`apply raises the contract revision to ${c.revision}: every receipt of scope ${scope} becomes stale (kbz verify run re-accepts)`);
  }
  return 0;
}

function describe(actions: Action[]): string {
  const s = summary(actions);
  return Object.entries(s).map(([k, v]) => `${v} ${k}`).join(", ");
}

function printApplied(r: ApplyResult, argv: StructureArgs): ExitCode {
  if (r.status === "already-applied") {
    if (argv.json) printJson(r);
    else out(`operation ${r.operation} is already applied (nothing changed)`);
    return 0;
  }
  const result = { status: "applied", operation: r.operation, turn: r.turn, actions: argv.details ? r.actions : summary(r.actions), complexity: r.complexity };
  if (argv.json) printJson(result);
  else {
    out(`applied ${r.operation} as turn ${r.turn}: ${describe(r.actions)}`);
    out(`complexity: ${r.complexity.groups} group(s), ${r.complexity.boundaryEdges} boundary edge(s), depth ${r.complexity.depth}`);
    out("root and integration ledgers were reset to pending; run kbz next");
    out(`contract revision raised: every receipt of scope ${argv.scope} is stale now (kbz verify run re-accepts)`);
  }
  return 0;
}

function check(root: string, scope: string, argv: StructureArgs): ExitCode {
  if (argv.request !== undefined || argv.details) throw new UsageError("unknown or duplicate option");
  const v = checkStructure(root, scope, { selection: argv.selection ?? null, final: !!argv.final });
  const marker = v.ok ? "STRUCTURE_OK" : "STRUCTURE_UNMET";
  if (argv.json) printJson({ marker, ...v });
  else {
    out(`${marker}: ${v.residual} residual issue(s)`);
    for (const e of v.errors.slice(0, 50)) out(`  ${e.code} ${e.id}`);
  }
  return v.ok ? 0 : 1;
}

/**
 * The handoff verbs build one request and persist it under requests/<operation>.json before
 * applying, so a retry reuses the recorded contract revision and stays idempotent.
 */
function handoffRequest(root: string, scope: string, action: string, argv: StructureArgs): { request: Record<string, unknown>; created: string | null } {
  const op = argv.operation;
  if (op === undefined || !isValidId(op)) throw new UsageError("--operation needs a valid operation id");
  let entry: Record<string, unknown>;
  let list: string;
  if (action === "report") {
    if (argv.proposal === undefined) throw new UsageError("--proposal FILE is required");
    const proposal = readJsonInside(root, argv.proposal, "proposal file");
    if (!isObject(proposal)) throw new StructureError("invalid reports");
    entry = proposal;
    list = "reports";
  } else {
    if (argv.report === undefined) throw new UsageError("--report ID is required");
    if (action === "reject") {
      entry = { id: argv.report, reason: argv.reason ?? "" };
      list = "rejectReports";
    } else {
      entry = { id: argv.report, stopped: true, reviewed: true, stopEvidence: argv["stop-evidence"] ?? "", reviewEvidence: argv["review-evidence"] ?? "" };
      list = action === "accept" ? "acceptReports" : "resumeReports";
    }
  }
  const file = path.join(scopeDir(root, scope), "requests", `${op}.json`);
  if (fs.existsSync(file)) {
    const saved = readJsonInside(root, file, "saved request");
    if (!isObject(saved) || canonical(saved[list]) !== canonical([entry])) throw new StructureError("operation id reused with different request");
    return { request: saved, created: null };
  }
  const request = { schema: 1, operation: op, contractRevision: loadStructure(root, scope).revision, refinements: {}, [list]: [entry] };
  writeAtomic(file, JSON.stringify(request, null, 2) + "\n", { root, createParents: true });
  return { request, created: file };
}

export const verb: Verb = {
  command: "structure [action]",
  describe: "split and regroup a scope's plan, recover, check its structure, and hand off worker reports",
  builder: (y) =>
    y
      .usage(`kbz structure <action> [options]\n\n${HELP}`)
      .positional("action", { type: "string", describe: `one of: ${ACTIONS.join(", ")}` })
      .option("scope", { type: "string", describe: "the scope under .unlazy/", requiresArg: true })
      .option("request", { type: "string", describe: "structure request JSON (relative to the root)", requiresArg: true })
      .option("details", { type: "boolean", describe: "list every action, the new groups and splits" })
      .option("selection", { type: "string", describe: "check: a proposed launch {launch, slots}", requiresArg: true })
      .option("final", { type: "boolean", describe: "check: require the whole scope to be finished" })
      .option("operation", { type: "string", describe: "handoff verbs: the operation id (idempotency key)", requiresArg: true })
      .option("report", { type: "string", describe: "accept/resume/reject: the report id", requiresArg: true })
      .option("proposal", { type: "string", describe: "report: the worker's proposal JSON", requiresArg: true })
      .option("stop-evidence", { type: "string", describe: "accept/resume: how the worker's stop was confirmed", requiresArg: true })
      .option("review-evidence", { type: "string", describe: "accept/resume: what the parent reviewed", requiresArg: true })
      .option("reason", { type: "string", describe: "reject: why", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object (structure.mjs's shape)" })
      .option("root", { type: "string", describe: "repository root (default: the nearest directory holding .unlazy/<scope>)", requiresArg: true }),
  handler: (argv: StructureArgs) => run(argv),
  usageError: (message: string, args: string[]) => invalid(args[1], usageMessage(message), args.includes("--json")),
};
