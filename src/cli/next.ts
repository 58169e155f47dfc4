// kbz next: the next allocation for a scope (docs/formats.md#next-output). Read-only: never claims, launches or writes.
import { UsageError } from "../core/errors.ts";
import { parseInteger } from "../core/text/integer.ts";
import { ScheduleInputError, ScopeBusyError } from "../core/plan/errors.ts";
import { EmptyPlanError } from "../core/plan/table.ts";
import { idCompare } from "../core/plan/order.ts";
import { exitFor, type Advice } from "../core/schedule/advise.ts";
import { reviewHint } from "../core/schedule/review-hints.ts";
import { isPolicy, POLICIES } from "../core/schedule/policy.ts";
import { nextAdvice } from "../ops/next.ts";
import { printHuman } from "./nextText.ts";
import { shellQuote } from "../core/text/shell.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { ReadError } from "../core/errors.ts";
import { outputMode, requireScope, rootFor, usage } from "./context.ts";
import { envelope, err, errorEntries, fail, report, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { out } from "./output.ts";

import { DEFAULT_SLOTS } from "../ops/next.ts";
const MAX_ERROR = 500;

interface NextArgs {
  scope?: string;
  slots?: string;
  root?: string;
  details?: boolean;
  json?: boolean;
  "original-order"?: boolean;
  policy?: string;
}

const clip = (message: string) => (message.length > MAX_ERROR ? message.slice(0, MAX_ERROR - 3) + "..." : message);

/** schedule.mjs's failure object `{"action":"invalid","error":…}`, kept inside the envelope. */
function scheduleFields(message: string): Record<string, unknown> {
  return { action: "invalid", error: clip(message) };
}

/** A refusal located like schedule.mjs's message, in the one envelope. */
function invalid(e: Error & { located?: () => string }, asJson: boolean): ExitCode {
  return fail(e, asJson, scheduleFields(e.located ? e.located() : e.message));
}

/** Transient (issue 28 item 10): its own verdict and hint, exit 2, never "invalid". */
function busy(e: ScopeBusyError, asJson: boolean): ExitCode {
  return report(asJson, envelope("busy", 2, { action: "busy", error: e.message }, errorEntries(e)), () => err(`kbz: ${e.message}; ${e.hint}`));
}

/** A scope `kbz init --scope` just made: nothing to schedule yet, and how to add the first leaf. */
function emptyPlan(scope: string, asJson: boolean): ExitCode {
  const hint = `add leaves with kbz plan add --scope ${scope} LEAF --owns GLOB [--needs A,B]`;
  return report(asJson, envelope("review", 1, { action: "review", scope, counts: { tasks: 0 }, launch: [], attention: [{ reason: "empty-plan", hint }] }), () =>
    out(`REVIEW: scope ${scope} has no leaves yet: ${hint}`),
  );
}

function run(argv: NextArgs): ExitCode {
  const { json: asJson } = outputMode(argv);
  let snap: NextSnapshot;
  let advice: Advice;
  let snapScope = argv.scope ?? "";
  try {
    if (argv.scope !== undefined && !isValidId(argv.scope)) throw usage("invalid scope", "scope ids are folder names under .unlazy/; kbz scope list shows them");
    const slots = argv.slots === undefined ? DEFAULT_SLOTS : parseInteger(argv.slots, 1);
    if (slots === null) {
      throw usage("invalid slots", `--slots is the total number of leaves running at once, a positive integer (default ${DEFAULT_SLOTS})`);
    }
    const policy = argv.policy ?? "id-order";
    if (!isPolicy(policy)) throw usage(`invalid policy ${JSON.stringify(policy)}`, `--policy is ${POLICIES.join(" or ")}`);
    const root = rootFor(argv);
    let scope: string;
    try {
      scope = requireScope(root, argv, "next");
      snapScope = scope;
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw usage("invalid scope", `${e.message}; ${(e as { hint?: string }).hint ?? "pass --scope ID"}`);
    }
    ({ snap, advice } = nextAdvice({
      root,
      scope,
      slots,
      compare: idCompare(argv["original-order"] ? "original" : "natural"),
      details: !!argv.details || !asJson,
      policy,
      rootArg: argv.root === undefined ? "" : ` --root ${shellQuote(argv.root)}`,
    }));
  } catch (e) {
    if (e instanceof EmptyPlanError) return emptyPlan(snapScope, asJson);
    if (e instanceof ScopeBusyError) return busy(e, asJson);
    if (e instanceof ScheduleInputError || e instanceof UsageError || e instanceof ReadError) return invalid(e, asJson);
    // A file system failure (permissions, I/O) is still one invalid object, as schedule.mjs prints.
    if (typeof (e as NodeJS.ErrnoException)?.code === "string") return invalid(e as Error, asJson);
    throw e;
  }
  const exit = exitFor(advice.action);
  // Every review item comes with its way out (the original's `attention` entries are unchanged).
  const reviewHints = advice.attention.map((x) => reviewHint(x, snap.scope));
  const fields = { ...(advice as unknown as Record<string, unknown>), ...(reviewHints.length > 0 ? { reviewHints } : {}) };
  return report(asJson, envelope(advice.action, exit, fields), () =>
    printHuman(snap, advice, argv.root === undefined ? "" : ` --root ${shellQuote(argv.root)}`, !!argv.details),
  );
}

export const verb: Verb = {
  command: "next",
  describe: "compute which leaves of a scope may start now (read-only dispatch advice)",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "the scope under .unlazy/ (default: UNLAZY_SCOPE, else the only scope)", requiresArg: true })
      .option("slots", { type: "string", describe: `total concurrent leaves for the scope, active ones included (default ${DEFAULT_SLOTS})`, requiresArg: true })
      .option("details", { type: "boolean", describe: "add structure and the reason each task waits" })
      .option("json", { type: "boolean", describe: "print one JSON object (schedule.mjs's result)" })
      .option("original-order", {
        type: "boolean",
        describe: "order ids by UTF-16 code units like schedule.mjs (10 before 2) instead of naturally (2 before 10)",
      })
      .option("policy", {
        type: "string",
        describe: "id-order (default, the original's) or critical-path (longest remaining path first, weighted by ACCESS.json estimate)",
        requiresArg: true,
      })
      .option("root", { type: "string", describe: "repository root (default: found from the current folder)", requiresArg: true }),
  handler: (argv: NextArgs) => run(argv),
  errorFields: (message: string) => scheduleFields(message),
};
