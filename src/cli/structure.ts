// kbz structure: split/regroup events, recovery, the independent check (the S_STRUCTURE oracle)
// and the worker handoff verbs (docs/formats.md#structure-requests, docs/formats.md#structure-selection, docs/formats.md#handoff). With --json every action prints one
// object in structure.mjs's shape; failures are {"status":"invalid"} (check: STRUCTURE_INVALID).
import { KbzError, kindOf, UsageError } from "../core/errors.ts";
import { parseInteger } from "../core/text/integer.ts";
import {
  hasReceipts,
  regroupByName,
  splitByName,
  applyHandoffEvent,
  applyRequest,
  checkScopeStructure,
  HandoffArgumentError,
  planRequest,
  recoverOperation,
  type ApplyResult,
  type HandoffAction,
} from "../ops/structure.ts";
import { StructureError } from "../core/structure/model.ts";
import type { Action } from "../core/structure/plan.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { outputMode, requireScope, rootFor, usage } from "./context.ts";
import { emit, envelope, fail, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { err, out } from "./output.ts";
import { globs } from "./options.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { leafLedgerPath } from "../ops/dispatch.ts";
import { plural } from "../core/text/plural.ts";
import { leafStem } from "../core/plan/leaf-id.ts";

interface StructureArgs {
  action?: string;
  ids?: string[];
  into?: string[];
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
const ACTIONS = [...EVENTS, "regroup", "split", "recover", "check", ...HANDOFFS];
const MAX_ERROR = 800;

// Hand-written kbz commands: help text, an action list read as written (its flags are checked by
// test/core/text/kbz-strings.test.ts).
const HELP = `Actions:
  plan|apply --request FILE (plan writes nothing), regroup, split, recover (a crashed
  apply), check [--final], report, accept|resume|reject --operation OP
  kbz structure regroup 2.3 3.1   merge their groups (never VERIFIED)
  kbz structure split 5 --into 'src/5/a/**' 'src/5/b/**'   5.1, 5.2 own those
Formats: skill/references/structure.md. Exit: 0 done/STRUCTURE_OK;
1 STRUCTURE_UNMET; 2 invalid or refused (nothing changes).`;

/** Fault injection for the crash tests: throw after the n-th write step of an apply or recovery. */
const FAULT_ENV = "KBZ_TEST_FAULT_AFTER";

function clip(message: string): string {
  return message.length > MAX_ERROR ? message.slice(0, MAX_ERROR - 3) + "..." : message;
}

/** structure.mjs's failure keys (check: `marker`, the rest: `status`), kept inside the envelope. */
function structureFields(action: string | undefined, message: string): Record<string, unknown> {
  return action === "check"
    ? { marker: "STRUCTURE_INVALID", error: clip(message) }
    : { status: "invalid", error: clip(message) };
}

function invalid(action: string | undefined, e: Error, asJson: boolean): ExitCode {
  return fail(e, asJson, structureFields(action, e instanceof KbzError ? e.located() : e.message));
}

function faultHook(): ((step: number) => void) | undefined {
  const raw = process.env[FAULT_ENV];
  const n = parseInteger(raw, 0);
  if (n === null) return undefined;
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
  const { json: asJson } = outputMode(argv);
  try {
    if (action === undefined || !ACTIONS.includes(action))
      throw usage(
        "expected plan, apply, regroup, split, recover, check, report, accept, resume or reject",
        `${kbz("structure")} --help lists the actions`,
      );
    if (action !== "regroup" && action !== "split" && (argv.ids ?? []).length > 0)
      throw usage(`unexpected argument: ${argv.ids![0]}`, `only ${kbz("structure regroup")} and split take task ids`);
    if (action !== "split" && argv.into !== undefined) throw usage("--into is split's option", SPLIT_EXAMPLE);
    if (argv.scope !== undefined && !isValidId(argv.scope))
      throw usage("invalid scope", `scope ids are folder names under .unlazy/; ${kbz("scope list")} shows them`);
    const root = rootFor(argv);
    let scope: string;
    try {
      scope = requireScope(root, argv, "structure");
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw usage("invalid scope", `${e.message}; ${(e as { hint?: string }).hint ?? "pass --scope ID"}`);
    }
    if (action === "check") return check(root, scope, argv);
    if (action === "regroup") {
      const ids = (argv.ids ?? []).map(String);
      if (ids.length < 2) throw usage("regroup needs at least two task ids", REGROUP_EXAMPLE);
      if (argv.request !== undefined || argv.selection !== undefined || argv.final)
        throw usage("regroup takes task ids, not a request file", REGROUP_EXAMPLE);
      const { applied } = await regroupByName(root, scope, ids, true, { afterWrite: faultHook() }, (r) =>
        describe(r.actions),
      );
      const r = applied!.result;
      if (argv.json || argv.details || r.status !== "applied") return printApplied(applied!, argv);
      if (applied!.logWarning) err(applied!.logWarning);
      // Short by default (issue 30): what changed and what it costs; --details or --json for the rest.
      out(
        `REGROUPED ${[...new Set(ids)].join(", ")}: one group, run one after the other (${r.complexity.groups} group(s) now)`,
      );
      // Only where there are receipts to go stale (short by default, issue 43).
      if (hasReceipts(root))
        out(`contract revision raised: every receipt of scope ${scope} is stale now (${kbz("verify run")} re-accepts)`);
      return 0;
    }
    if (action === "split") return await split(root, scope, argv);
    if (action === "recover") {
      if (argv.request !== undefined || argv.details || argv.selection !== undefined || argv.final)
        throw usage("recover takes only root and scope");
      const { result: r, logWarning } = await recoverOperation(root, scope, { afterWrite: faultHook() });
      if (logWarning) err(logWarning);
      if (asJson) return emit(envelope(r.status, 0, r as unknown as Record<string, unknown>));
      out(r.status === "applied" ? `recovered operation ${r.operation}` : "nothing to recover");
      return 0;
    }
    if (EVENTS.includes(action)) {
      if (argv.request === undefined)
        throw usage(
          "request file required",
          "write a request from skill/references/structure-request.schema.json and pass --request FILE",
        );
      return action === "plan"
        ? plan(root, scope, argv.request, argv)
        : printApplied(
            await applyRequest(root, scope, argv.request, { afterWrite: faultHook() }, (r) => describe(r.actions)),
            argv,
          );
    }
    const event = {
      action: action as HandoffAction,
      operation: argv.operation ?? "",
      proposal: argv.proposal,
      report: argv.report,
      reason: argv.reason,
      stopEvidence: argv["stop-evidence"],
      reviewEvidence: argv["review-evidence"],
    };
    try {
      return await printApplied(
        await applyHandoffEvent(root, scope, event, { afterWrite: faultHook() }, (r) => describe(r.actions)),
        argv,
      );
    } catch (e) {
      if (e instanceof HandoffArgumentError) throw usage(e.message);
      throw e;
    }
  } catch (e) {
    // Every failure of a structure action is structure.mjs's invalid object; only a bug in kbz is not.
    if (e instanceof Error && kindOf(e) !== "bug") return invalid(action, e, asJson);
    throw e;
  }
}

const SPLIT_EXAMPLE = kbz("structure split", { scope: ph("S") }, "5", { into: "src/5/a/**" }, "src/5/b/**");
const REGROUP_EXAMPLE = kbz("structure regroup", { scope: ph("S") }, "2.3", "3.1");

/** `structure split LEAF --into GLOBS GLOBS…`: the request written and applied by kbz (issue 30). */
async function split(root: string, scope: string, argv: StructureArgs): Promise<ExitCode> {
  const ids = (argv.ids ?? []).map(String);
  if (ids.length !== 1) throw usage(`split takes one leaf id, got ${ids.length}`, SPLIT_EXAMPLE);
  const parts = (argv.into ?? []).map((p, i) => globs(`into (part ${i + 1})`, String(p), true));
  if (parts.length < 2)
    throw usage("split needs at least two parts after --into, each the globs one part owns (a,b)", SPLIT_EXAMPLE);
  if (argv.request !== undefined || argv.selection !== undefined || argv.final)
    throw usage("split takes a leaf and --into, not a request file", SPLIT_EXAMPLE);
  const leaf = ids[0]!.replace(/^leaf-/, "");
  const { applied, children, request } = await splitByName(root, scope, leaf, parts, { afterWrite: faultHook() }, (r) =>
    describe(r.actions),
  );
  const { result: r, logWarning } = applied;
  if (logWarning) err(logWarning);
  const ledgers = children.map((c) => ({ ...c, ledger: leafLedgerPath(root, scope, leafStem(c.id)) }));
  if (argv.json) {
    const fields =
      r.status === "applied"
        ? {
            status: r.status,
            operation: r.operation,
            turn: r.turn,
            complexity: r.complexity,
            children: ledgers,
            request,
          }
        : { ...r, children: ledgers };
    return emit(envelope(r.status, 0, fields));
  }
  if (r.status === "already-applied") {
    out(`operation ${r.operation} is already applied (nothing changed)`);
    return 0;
  }
  out(
    `SPLIT ${leaf} into ${children.map((c) => `${c.id} (${c.owns.join(", ")})`).join(", ")}; ${leaf} waits to integrate them`,
  );
  out(
    `write each part's gates in ${ledgers.map((c) => c.ledger).join(", ")}; a person then runs ${kbz("approve", { scope })}`,
  );
  out(`contract revision raised: every receipt of scope ${scope} is stale now (${kbz("verify run")} re-accepts)`);
  return 0;
}

function plan(root: string, scope: string, requestFile: string, argv: StructureArgs): ExitCode {
  const r = planRequest(root, scope, requestFile);
  if (r.status === "already-applied") {
    if (argv.json) return emit(envelope(r.status, 0, r));
    out(`operation ${r.operation} is already applied`);
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
  if (argv.json) return emit(envelope("planned", 0, result));
  else {
    out(`planned ${r.operation} as turn ${c.next.meta.turn}: ${describe(c.actions)}`);
    out(
      `complexity: ${c.complexity.groups} group(s), ${c.complexity.boundaryEdges} boundary edge(s), depth ${c.complexity.depth}`,
    );
    // Details on request: each group in words (why its members may run as one), then every group.
    if (argv.details) for (const line of groupWords(c.actions, c.next.rows, c.next.meta.groups)) out(line);
    if (argv.details) for (const g of c.next.meta.groups) out(`  group ${g.join(", ")}`);
    out("independent check: ok (nothing written; apply with the same request file)");
    out(
      `apply raises the contract revision to ${c.revision}: every receipt of scope ${scope} becomes stale (${kbz("verify run")} re-accepts)`,
    );
  }
  return 0;
}

/** Each merge of the plan in words: why these members may run as one group (issue 30). */
function groupWords(actions: Action[], rows: { id: string; state: string }[], groups: string[][]): string[] {
  const state = new Map(rows.map((r) => [r.id, r.state]));
  const final = new Set(groups.map((g) => g.join("\0")));
  const lines: string[] = [];
  for (const a of actions) {
    if (a.action !== "group") continue;
    const members = (a as { members: string[] }).members;
    // The groups the plan ends with, not the merges on the way; an all-VERIFIED group runs nothing.
    if (!final.has(members.join("\0")) || members.every((m) => state.get(m) === "VERIFIED")) continue;
    const open = members.filter((m) => state.get(m) !== "VERIFIED");
    const done = members.filter((m) => state.get(m) === "VERIFIED");
    const why =
      open.length > 1
        ? `one chain of unfinished ${open.join(", ")}`
        : open.length === 1
          ? `only ${open[0]} unfinished`
          : "all VERIFIED";
    const joined = done.length > 0 && open.length > 0 ? `, VERIFIED ${done.join(", ")}` : "";
    lines.push(`  group ${members.join(", ")}: ${why}${joined}`);
  }
  return lines.length > 50
    ? [...lines.slice(0, 50), `  … ${lines.length - 50} more (--json --details lists them)`]
    : lines;
}

function describe(actions: Action[]): string {
  const s = summary(actions);
  return Object.entries(s)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
}

async function printApplied(
  { result: r, logWarning }: { result: ApplyResult; logWarning: string | null },
  argv: StructureArgs,
): Promise<ExitCode> {
  if (r.status === "already-applied") {
    if (argv.json) return emit(envelope(r.status, 0, r));
    out(`operation ${r.operation} is already applied (nothing changed)`);
    return 0;
  }
  const result = {
    status: "applied",
    operation: r.operation,
    turn: r.turn,
    actions: argv.details ? r.actions : summary(r.actions),
    complexity: r.complexity,
  };
  if (logWarning) err(logWarning);
  if (argv.json) return emit(envelope("applied", 0, result));
  else {
    out(`applied ${r.operation} as turn ${r.turn}: ${describe(r.actions)}`);
    out(
      `complexity: ${r.complexity.groups} group(s), ${r.complexity.boundaryEdges} boundary edge(s), depth ${r.complexity.depth}`,
    );
    out(`root and integration ledgers were reset to pending; run ${kbz("next")}`);
    out(
      `contract revision raised: every receipt of scope ${argv.scope} is stale now (${kbz("verify run")} re-accepts)`,
    );
  }
  return 0;
}

function check(root: string, scope: string, argv: StructureArgs): ExitCode {
  if (argv.request !== undefined) throw new UsageError("unknown or duplicate option");
  let groups: string[][] = [];
  const v = checkScopeStructure(root, scope, {
    selection: argv.selection ?? null,
    final: !!argv.final,
    groups: (g) => (groups = g),
  });
  const marker = v.ok ? "STRUCTURE_OK" : "STRUCTURE_UNMET";
  // The checker's own `errors` are residual invariant findings, not failures of the command.
  const { errors: residual, ...rest } = v;
  // --details: every finding (not the first 50) and the groups the plan was checked with.
  if (argv.json)
    return emit(
      envelope(marker, v.ok ? 0 : 1, { marker, ...rest, findings: residual, ...(argv.details ? { groups } : {}) }),
    );
  else {
    out(`${marker}: ${v.residual} residual issue(s)`);
    for (const e of argv.details ? v.errors : v.errors.slice(0, 50)) out(`  ${e.code} ${e.id}`);
    if (!argv.details && v.errors.length > 50) out(`  … ${v.errors.length - 50} more (--details lists them)`);
    if (argv.details) out(`${plural(groups.length, "group")}: ${groups.map((g) => g.join(" > ")).join(" | ")}`);
  }
  return v.ok ? 0 : 1;
}

export const verb: Verb = {
  command: "structure [action] [ids..]",
  describe: "split and regroup a scope's plan, check it, hand off worker reports",
  builder: (y) =>
    y
      .usage(`${kbz("structure", ph("<action>"), ph("[options]"))}\n\n${HELP}`)
      .positional("action", { type: "string", describe: "see Actions" })
      .positional("ids", { type: "string", array: true, describe: "task ids" })
      .option("into", { type: "string", array: true, describe: "split: globs a,b per part", requiresArg: true })
      .option("scope", { type: "string", describe: "the scope (default: the only one)", requiresArg: true })
      .option("request", { type: "string", describe: "request JSON", requiresArg: true })
      .option("details", { type: "boolean", describe: "every action" })
      .option("selection", { type: "string", describe: "check: launch JSON", requiresArg: true })
      .option("final", { type: "boolean", describe: "check: all finished" })
      .option("operation", { type: "string", describe: "operation id", requiresArg: true })
      .option("report", { type: "string", describe: "report id", requiresArg: true })
      .option("proposal", { type: "string", describe: "proposal JSON", requiresArg: true })
      .option("stop-evidence", { type: "string", describe: "stop seen how", requiresArg: true })
      .option("review-evidence", { type: "string", describe: "what was reviewed", requiresArg: true })
      .option("reason", { type: "string", describe: "reject: why", requiresArg: true })
      .option("json", { type: "boolean", describe: "one JSON object" })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true }),
  handler: (argv: StructureArgs) => run(argv),
  errorFields: (message: string, args: string[]) => structureFields(args[1], message),
};
