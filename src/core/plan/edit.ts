// Text edits kbz makes to a scope's PLAN.md and ACCESS.json (`kbz plan add|set`, `wave start`,
// `advance`, `init --scope`). Pure: text in, text out. Only the dispatch table's rows change;
// prose, the inventory and fenced examples are kept byte for byte.
import { parsePlan, unfencedLines, type Plan, type RowState, type Tier } from "./table.ts";
import { ScheduleInputError } from "./errors.ts";
import { codeUnitCompare } from "./order.ts";
import { kbz, placeholder } from "../text/command.ts";
import { leafStem } from "./leaf-id.ts";

export const TABLE_HEADER = "| Leaf | Owns | Needs | Tier | Planned wave | State |";
export const TABLE_SEPARATOR = "|---|---|---|---|---|---|";

/** A fresh scope's PLAN.md: the template's sections with an empty dispatch table. */
export function freshPlan(scope: string): string {
  return `# Plan: ${scope}
Contract revision: 1.

## Contract

What the user asked for, in their words, and what "done" means for them. Re-read the original
request before every revision and again before the final report.

## Current contract inventory

| Id | Required outcome or constraint | Owner | Observing gate or manual review | Disposition | Revision |
|---|---|---|---|---|---|

## Leaf dispatch table

Written by kbz: \`${kbz("plan add")}\` adds a row, \`${kbz("wave start")}\`, \`${kbz("advance")}\` and \`${kbz("plan set")}\`
change states. \`${kbz("next")}\` reads this table; it is the only schedule.

${TABLE_HEADER}
${TABLE_SEPARATOR}

## Verification

- Each leaf returns through \`${kbz("advance", { scope, leaf: placeholder("LEAF") })}\`, which verifies its ledger
  from the repository root, marks it VERIFIED and releases its lease.
- The root ledger \`GATES.md\` is re-verified with \`${kbz("check", { scope, reverify: true })}\` once
  every leaf is VERIFIED; the final report reconciles it with the contract inventory above.
`;
}

export const freshAccess = (revision = 1) =>
  JSON.stringify({ schema: 1, contractRevision: revision, leaves: {} }, null, 2) + "\n";

export interface NewRow {
  id: string;
  owns: string[];
  needs: string[];
  tier: Tier;
  wave: number;
  state: RowState;
}

export const rowLine = (r: NewRow) =>
  `| ${r.id} | ${r.owns.join(", ")} | ${r.needs.length ? r.needs.join(", ") : "-"} | ${r.tier} | ${r.wave} | ${r.state} |`;

/** Index (0-based) of the header line and one past the last row of the dispatch table. */
function tableSpan(text: string): { lines: string[]; header: number; end: number } {
  const lines = text.split("\n");
  const live = unfencedLines(text);
  const liveNos = new Set(live.map((l) => l.no));
  const head = live.find((l) => /^\s*\|\s*Leaf\s*\|/.test(l.text));
  if (!head) throw new ScheduleInputError("PLAN needs exactly one leaf dispatch table");
  const header = head.no - 1;
  let end = header + 2;
  while (end < lines.length && liveNos.has(end + 1) && /^\s*\|.*\|\s*$/.test(lines[end]!.replace(/\r$/, ""))) end++;
  return { lines, header, end };
}

/** Append one row at the end of the dispatch table. */
export function withRow(text: string, row: NewRow): string {
  const { lines, end } = tableSpan(text);
  const eol = lines[end - 1]!.endsWith("\r") ? "\r" : "";
  lines.splice(end, 0, rowLine(row) + eol);
  return lines.join("\n");
}

/** Replace the State cell of the named rows; every other byte stays. */
export function withStates(text: string, states: ReadonlyMap<string, RowState>): string {
  const { lines, header, end } = tableSpan(text);
  for (let i = header + 2; i < end; i++) {
    const raw = lines[i]!;
    const cr = raw.endsWith("\r") ? "\r" : "";
    const line = cr ? raw.slice(0, -1) : raw;
    const id = line.trim().slice(1).split("|")[0]!.trim();
    const to = states.get(id);
    if (to === undefined) continue;
    lines[i] = line.replace(/\|[^|]*\|\s*$/, `| ${to} |`) + cr;
  }
  return lines.join("\n");
}

export interface AccessFields {
  reads: string[];
  resourceReads: string[];
  resourceWrites: string[];
}

/** ACCESS.json with one more complete entry, keys in code-unit order (as structure writes it). */
export function accessWith(text: string | null, revision: number, id: string, decl: AccessFields): string {
  let value: { schema?: unknown; contractRevision?: unknown; leaves?: Record<string, unknown> } = {
    schema: 1,
    contractRevision: revision,
    leaves: {},
  };
  if (text !== null) {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new ScheduleInputError(`invalid JSON: ${(e as Error).message}`, "ACCESS.json");
    }
  }
  const leaves = {
    ...(value.leaves ?? {}),
    [id]: { complete: true, reads: decl.reads, resourceReads: decl.resourceReads, resourceWrites: decl.resourceWrites },
  };
  const sorted = Object.fromEntries(
    Object.keys(leaves)
      .sort(codeUnitCompare)
      .map((k) => [k, leaves[k]]),
  );
  return (
    JSON.stringify({ schema: 1, contractRevision: value.contractRevision ?? revision, leaves: sorted }, null, 2) + "\n"
  );
}

/** A new leaf ledger: OWNS from the PLAN row, one gate for the agent to replace with the leaf's outcomes. */
export function leafLedger(id: string, owns: string[]): string {
  return `# Gates: leaf ${id}
OWNS: ${owns.join(", ")}

Replace G1 with the leaf's outcomes (one gate each; see the skill's references/gates.md). kbz
ticks runnable gates; a person signs manual ones with ${kbz("sign")}.

- [ ] G1: the leaf's outcome is observable from outside
  CHECK: node test/${leafStem(id)}/check.mjs
  EXPECT: LEAF_${id.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}_OK
  EVIDENCE: pending
`;
}

/** Rows a verified need just unblocked: WAITING, every need VERIFIED. */
export function promotable(plan: Plan, verified: ReadonlySet<string> = new Set()): string[] {
  const isVerified = (id: string) => verified.has(id) || plan.byId.get(id)?.state === "VERIFIED";
  return plan.rows.filter((r) => r.state === "WAITING" && r.needs.every(isVerified)).map((r) => r.id);
}

/** Re-parse an edited PLAN: a kbz edit never writes a table its own reader rejects. */
export function checkedPlan(text: string, file: string): Plan {
  return parsePlan(text, codeUnitCompare, file, { allowEmpty: true });
}
