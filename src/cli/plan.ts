// kbz plan add|set: the scope's PLAN.md dispatch table, ACCESS.json and leaf ledgers written by kbz,
// consistently and validated, so an agent never edits the table by hand.
import { UsageError } from "../core/errors.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { parseInteger } from "../core/text/integer.ts";
import { RESOURCE } from "../core/plan/access.ts";
import type { NewRow } from "../core/plan/edit.ts";
import type { Plan, RowState, Tier } from "../core/plan/table.ts";
import { STATES } from "../core/plan/transition.ts";
import { addLeaf, planLeafIds, setLeafState } from "../ops/plan.ts";
import { isValidId } from "../core/workspace/ids.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, out } from "./output.ts";
import { globs, list } from "./options.ts";
import { emit, envelope } from "./envelope.ts";
import { leafFor, requireScope, rootFor } from "./context.ts";
import { RefusedError, unknownAction, type PipelineArgs } from "./pipeline.ts";
import { leafStem, taskId } from "../core/plan/leaf-id.ts";

interface PlanArgs extends PipelineArgs {
  owns?: string;
  needs?: string;
  reads?: string;
  "resource-reads"?: string;
  "resource-writes"?: string;
  tier?: string;
  wave?: string;
}

const ACTIONS = ["add", "set"];

const HELP = `Examples:
  ${kbz("plan add", { scope: ph("S") }, "2.1", { owns: "src/b/**", needs: "1.1", reads: "src/a/**" })}
  ${kbz("plan set", { scope: ph("S") }, "2.1", "READY")}
add writes the PLAN row, the ACCESS.json entry and gates/leaf-2.1.md at once. set moves a row
(next --launch and advance move them by themselves); the moves: docs/formats.md.
Exit: 0 done (or already so); 2 usage or refused (nothing written).`;

const LEAF_ARG = (raw: unknown): string => {
  const s = String(raw ?? "");
  const id = taskId(s);
  if (!isValidId(id))
    throw new UsageError(
      `LEAF: expected a leaf id like 1.1 or leaf-1.1 (letters, digits, . _ -), got ${JSON.stringify(s)}`,
    );
  return id;
};

function resources(flag: string, raw: string | undefined): string[] {
  const items = list(flag, raw);
  for (const r of items)
    if (!RESOURCE.test(r))
      throw new UsageError(
        `--${flag}: ${JSON.stringify(r)} is not a resource id; expected lowercase /^[a-z0-9][a-z0-9:._/-]*$/ (e.g. db:test)`,
      );
  return items;
}

function newRow(plan: Plan, id: string, argv: PlanArgs): NewRow {
  if (plan.byId.has(id))
    throw new RefusedError(`leaf ${id} is already in PLAN.md (${kbz("plan set")} changes its state)`);
  const owns = globs("owns", argv.owns, true);
  const needs = list("needs", argv.needs).map(LEAF_ARG);
  for (const n of needs) {
    if (n === id) throw new UsageError(`--needs: ${id} cannot need itself`);
    if (!plan.byId.has(n))
      throw new UsageError(
        `--needs: unknown leaf ${n}; expected leaves already in PLAN.md (have: ${plan.rows.map((r) => r.id).join(", ") || "none"})`,
      );
  }
  const tier = (argv.tier ?? "judgment") as Tier;
  if (tier !== "judgment" && tier !== "mechanical")
    throw new UsageError(`--tier: expected judgment or mechanical, got ${JSON.stringify(argv.tier)}`);
  const after = Math.max(0, ...needs.map((n) => plan.byId.get(n)!.wave));
  let wave = after + 1;
  if (argv.wave !== undefined) {
    const n = parseInteger(argv.wave, 1);
    if (n === null) throw new UsageError(`--wave: expected a positive integer, got ${JSON.stringify(argv.wave)}`);
    wave = n;
    if (wave <= after) throw new UsageError(`--wave: expected a wave after its needs' latest (${after}), got ${wave}`);
  }
  const ready = needs.every((n) => plan.byId.get(n)!.state === "VERIFIED");
  return { id, owns, needs, tier, wave, state: ready ? "READY" : "WAITING" };
}

async function add(argv: PlanArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  const scope = requireScope(root, argv, "plan add");
  const args = argv.args ?? [];
  if (args.length !== 1)
    throw new UsageError(
      `plan add needs exactly one LEAF (e.g. ${kbz("plan add", "1.1", { owns: "src/feature/**" })})`,
    );
  const id = LEAF_ARG(args[0]);
  const reads = globs("reads", argv.reads, false);
  const decl = {
    reads,
    resourceReads: resources("resource-reads", argv["resource-reads"]),
    resourceWrites: resources("resource-writes", argv["resource-writes"]),
  };
  const done = await addLeaf(root, scope, id, decl, (plan) => newRow(plan, id, argv));
  for (const w of done.warnings) err(w);
  if (argv.json)
    emit(envelope("added", 0, { scope, leaf: leafStem(id), row: done.row, access: decl, ledger: done.ledger }));
  else out(`ADDED ${leafStem(id)} (wave ${done.row.wave}, ${done.row.state}); write its gates in ${done.ledger}`);
  return 0;
}

async function set(argv: PlanArgs): Promise<ExitCode> {
  const root = rootFor(argv);
  const scope = requireScope(root, argv, "plan set");
  const args = argv.args ?? [];
  if (args.length !== 2) throw new UsageError(`plan set needs LEAF and STATE (STATE: ${STATES.join(", ")})`);
  const id = leafFor(String(args[0]), planLeafIds(root, scope), "LEAF");
  const to = String(args[1]).toUpperCase() as RowState;
  if (!STATES.includes(to))
    throw new UsageError(`STATE: expected one of ${STATES.join(", ")}, got ${JSON.stringify(String(args[1]))}`);
  for (const flag of ["owns", "needs", "reads", "resource-reads", "resource-writes", "tier", "wave"] as const) {
    if (argv[flag] !== undefined) throw new UsageError(`--${flag} does not apply to plan set`);
  }
  const r = await setLeafState(root, scope, id, to, "plan set");
  for (const w of r.warnings) err(w);
  const same = r.from === to;
  if (argv.json)
    emit(
      envelope(same ? "unchanged" : "set", 0, {
        scope,
        leaf: leafStem(id),
        from: r.from,
        state: to,
        promoted: r.promoted,
      }),
    );
  else
    out(
      same
        ? `${leafStem(id)} is already ${to}`
        : `${leafStem(id)}: ${r.from} -> ${to}${r.promoted.length ? `; READY now: ${r.promoted.join(", ")}` : ""}`,
    );
  return 0;
}

export async function runPlan(argv: PlanArgs): Promise<ExitCode> {
  if (argv.action === "add") return add(argv);
  if (argv.action === "set") return set(argv);
  throw unknownAction("plan", argv.action, ACTIONS);
}

export const verb: Verb = {
  command: "plan <action> [args..]",
  describe: "write the scope's plan: add LEAF, set LEAF STATE",
  builder: (y) =>
    y
      .positional("action", { type: "string", describe: ACTIONS.join(" | ") })
      .positional("args", { type: "string", array: true, describe: "LEAF for add; LEAF STATE for set" })
      .option("scope", { type: "string", describe: "the scope (default: the only one)", requiresArg: true })
      .option("owns", { type: "string", describe: "globs the leaf may change, a,b", requiresArg: true })
      .option("needs", { type: "string", describe: "leaves VERIFIED before it, a,b", requiresArg: true })
      .option("reads", { type: "string", describe: "globs it reads, a,b", requiresArg: true })
      .option("resource-reads", { type: "string", describe: "shared resources read (db:test)", requiresArg: true })
      .option("resource-writes", { type: "string", describe: "shared resources written", requiresArg: true })
      .option("tier", { type: "string", describe: "judgment (default) or mechanical", requiresArg: true })
      .option("wave", { type: "string", describe: "planned wave (default: after its needs)", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => runPlan(argv as PlanArgs),
};
