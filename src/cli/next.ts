// kbz next: the next allocation for a scope (docs/formats.md#next-output). Read-only: never claims, launches or writes.
import { kindOf, UsageError } from "../core/errors.ts";
import { parseInteger } from "../core/text/integer.ts";
import { ScopeBusyError } from "../core/plan/errors.ts";
import { EmptyPlanError } from "../core/plan/table.ts";
import { exitFor, type Advice } from "../core/schedule/advise.ts";
import { reviewHint } from "../core/schedule/review-hints.ts";
import { isPolicy, POLICIES } from "../core/schedule/policy.ts";
import { nextAdvice } from "../ops/next.ts";
import { printHuman, printLaunch } from "./nextText.ts";
import { kbz, optional, placeholder as ph } from "../core/text/command.ts";
import { launchNext, type Launch } from "../ops/launch.ts";
import { RefusedError } from "../ops/refused.ts";
import { isValidId as validWave } from "../core/workspace/ids.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { isValidId } from "../core/workspace/ids.ts";
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
  launch?: boolean;
  handle?: string[];
  wave?: string;
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
  return report(asJson, envelope("busy", 2, { action: "busy", error: e.message }, errorEntries(e)), () =>
    err(`kbz: ${e.message}; ${e.hint}`),
  );
}

/** A scope `kbz init --scope` just made: nothing to schedule yet, and how to add the first leaf. */
function emptyPlan(scope: string, asJson: boolean): ExitCode {
  const hint = `add leaves with ${kbz("plan add", { scope }, ph("LEAF"), { owns: ph("GLOB"), needs: optional(ph("A,B")) })}`;
  return report(
    asJson,
    envelope("review", 1, {
      action: "review",
      scope,
      counts: { tasks: 0 },
      launch: [],
      attention: [{ reason: "empty-plan", hint }],
    }),
    () => out(`REVIEW: scope ${scope} has no leaves yet: ${hint}`),
  );
}

/** `--handle 1.2=agent-7` (repeatable) as a map by PLAN leaf id. */
function handlesOf(argv: NextArgs): Map<string, string> {
  const m = new Map<string, string>();
  for (const h of argv.handle ?? []) {
    const eq = String(h).indexOf("=");
    if (eq < 1)
      throw usage(
        `invalid --handle ${JSON.stringify(String(h))}`,
        "--handle takes LEAF=HANDLE, for example --handle 1.2=agent-7",
      );
    const leaf = String(h)
      .slice(0, eq)
      .replace(/^leaf-/, "");
    if (m.has(leaf)) throw usage(`--handle names ${leaf} twice`, "give each leaf one handle");
    m.set(leaf, String(h).slice(eq + 1));
  }
  return m;
}

async function run(argv: NextArgs): Promise<ExitCode> {
  const { json: asJson } = outputMode(argv);
  let snap: NextSnapshot;
  let advice: Advice;
  let snapScope = argv.scope ?? "";
  try {
    if (argv.scope !== undefined && !isValidId(argv.scope))
      throw usage("invalid scope", `scope ids are folder names under .unlazy/; ${kbz("scope list")} shows them`);
    const slots = argv.slots === undefined ? DEFAULT_SLOTS : parseInteger(argv.slots, 1);
    if (slots === null) {
      throw usage(
        "invalid slots",
        `--slots is the total number of leaves running at once, a positive integer (default ${DEFAULT_SLOTS})`,
      );
    }
    const policy = argv.policy ?? "id-order";
    if (!isPolicy(policy))
      throw usage(`invalid policy ${JSON.stringify(policy)}`, `--policy is ${POLICIES.join(" or ")}`);
    const root = rootFor(argv);
    let scope: string;
    try {
      scope = requireScope(root, argv, "next");
      snapScope = scope;
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw usage("invalid scope", `${e.message}; ${(e as { hint?: string }).hint ?? "pass --scope ID"}`);
    }
    const request = {
      root,
      scope,
      slots,
      order: argv["original-order"] ? ("original" as const) : ("natural" as const),
      details: !!argv.details || !asJson,
      policy,
      rootFlag: argv.root,
    };
    if (!argv.launch && (argv.handle !== undefined || argv.wave !== undefined))
      throw usage(
        "--handle and --wave go with --launch",
        kbz("next", { scope: ph("S"), launch: true, handle: optional(ph("LEAF=HANDLE")) }),
      );
    if (argv.wave !== undefined && !validWave(String(argv.wave)))
      throw usage("invalid wave", "a wave id is a folder-name-like word such as w3");
    if (argv.launch) {
      const handles = handlesOf(argv);
      let l: Launch;
      try {
        l = await launchNext({ ...request, handles, wave: argv.wave === undefined ? undefined : String(argv.wave) });
      } catch (e) {
        if (e instanceof RefusedError) return fail(e, asJson, { action: "refused" });
        throw e;
      }
      for (const w of l.warnings) err(w);
      if (l.wave !== null) return launched(l, argv, asJson);
      ({ snap, advice } = l);
    } else ({ snap, advice } = nextAdvice(request));
  } catch (e) {
    if (e instanceof EmptyPlanError) return emptyPlan(snapScope, asJson);
    if (e instanceof ScopeBusyError) return busy(e, asJson);
    // Every failure to read or schedule the scope (a flag, a file, the file system) is one invalid
    // object, as schedule.mjs prints; only a bug in kbz is not.
    if (e instanceof Error && kindOf(e) !== "bug") return invalid(e, asJson);
    throw e;
  }
  const exit = exitFor(advice.action);
  // Every review item comes with its way out (the original's `attention` entries are unchanged).
  const reviewHints = advice.attention.map((x) => reviewHint(x, snap.scope));
  const fields = {
    ...(advice as unknown as Record<string, unknown>),
    ...(reviewHints.length > 0 ? { reviewHints } : {}),
  };
  return report(asJson, envelope(advice.action, exit, fields), () =>
    printHuman(snap, advice, argv.root, !!argv.details),
  );
}

/** The envelope keeps the whole advice and, per leaf, what its worker needs. */
function launched(l: Launch, argv: NextArgs, asJson: boolean): ExitCode {
  const fields = {
    ...(l.advice as unknown as Record<string, unknown>),
    wave: l.wave,
    launched: l.launched,
    claimed: l.claimed,
  };
  return report(asJson, envelope("launched", 0, fields), () => printLaunch(l, argv.root));
}

export const verb: Verb = {
  command: "next",
  describe: "which leaves of a scope may start now; --launch starts them",
  builder: (y) =>
    y
      .option("scope", {
        type: "string",
        describe: "the scope (default: UNLAZY_SCOPE, else the only one)",
        requiresArg: true,
      })
      .option("slots", {
        type: "string",
        describe: `leaves running at once, active included (default ${DEFAULT_SLOTS})`,
        requiresArg: true,
      })
      .option("launch", { type: "boolean", describe: "start them: claim, open a wave, start each with a handle, seal" })
      .option("handle", {
        type: "string",
        array: true,
        describe: "LEAF=HANDLE, the host's id for a worker (default: generated)",
        requiresArg: true,
      })
      .option("wave", { type: "string", describe: "wave id for --launch (default: the next wN)", requiresArg: true })
      .option("details", { type: "boolean", describe: "why each waits, structure, the separate launch steps" })
      .option("json", { type: "boolean", describe: "one JSON object (schedule.mjs's result)" })
      .option("original-order", { type: "boolean", describe: "ids in code-unit order like schedule.mjs (10 before 2)" })
      .option("policy", { type: "string", describe: "id-order (default) or critical-path", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .example(kbz("next", { scope: ph("S"), launch: true }), "start what may run; one line per leaf for its worker")
      .example(kbz("next", { scope: ph("S"), launch: true, handle: "1.2=task-7" }), "record the host's own id")
      .epilog("Read-only without --launch. Exit: 0 dispatch, wait or verify-root; 1 review; 2 invalid."),
  handler: (argv: NextArgs) => run(argv),
  errorFields: (message: string) => scheduleFields(message),
};
