// Materialization (docs/formats.md#structure-events): the new text of every file an event writes. PLAN.md keeps its
// prose and fenced examples; only the revision, the inventory revision cells, the leaf table
// body and the managed topology block change. Everything is self-checked before any write.
import { parseLedger, splitLines } from "../ledger/parse.ts";
import { serializeLines } from "../ledger/edit.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { parsePlan, unfencedLines } from "../plan/table.ts";
import { MAX_LEDGER_BYTES } from "../text/decode.ts";
import {
  cmp,
  fail,
  REGISTRY,
  STRUCTURE_EXPECT,
  STRUCTURE_GATE,
  STRUCTURE_TITLE,
  structureCheckCommand,
  type Model,
  type Registry,
  type TaskRow,
} from "./model.ts";
import type { Planned } from "./plan.ts";
import { leafLedgerName } from "../plan/leaf-id.ts";

export const TOPOLOGY_START = "<!-- kill-bezzangyi:expanded-topology -->";
export const TOPOLOGY_END = "<!-- /kill-bezzangyi:expanded-topology -->";

/** Uncheck every gate and set its EVIDENCE to pending; each line keeps its terminator. */
export function demoteLedger(text: string): string {
  const ledger = parseLedger(text, "ledger");
  if (ledger.errors.length > 0) fail("invalid ledger while invalidating evidence");
  const { lines, eols } = splitLines(text);
  for (const g of ledger.gates) {
    lines[g.line - 1] = lines[g.line - 1]!.replace(/\[[xX]\]/, "[ ]");
    const e = g.attrIndex.EVIDENCE;
    if (e !== undefined) lines[e] = "  EVIDENCE: pending";
  }
  return serializeLines(lines, eols);
}

function tableRow(r: TaskRow): string {
  return `| ${r.id} | ${r.owns.join(", ")} | ${r.needs.length ? r.needs.join(", ") : "-"} | ${r.tier} | ${r.wave} | ${r.state} |`;
}

function isTableLine(text: string): boolean {
  return /^\s*\|/.test(text) && /\|\s*$/.test(text);
}

export function renderPlan(text: string, revision: number, rows: TaskRow[], meta: Registry): string {
  const lines = text.split(/\r?\n/);
  const live = unfencedLines(text);
  const liveNos = new Set(live.map((l) => l.no));
  let header = -1;
  let inventory = false;
  for (const l of live) {
    const i = l.no - 1;
    if (l.text.startsWith("Contract revision:"))
      lines[i] = l.text.replace(/^Contract revision:([ \t]*)[1-9][0-9]*/, `Contract revision:$1${revision}`);
    if (/^## /.test(l.text)) inventory = l.text.trim() === "## Current contract inventory";
    else if (inventory) lines[i] = l.text.replace(/\|\s*[0-9]+\s*\|\s*$/, `| ${revision} |`);
    if (header < 0 && isTableLine(l.text) && l.text.trim().replace(/^\|/, "").split("|")[0]!.trim() === "Leaf")
      header = i;
  }
  let end = header + 2;
  while (end < lines.length && liveNos.has(end + 1) && isTableLine(lines[end]!)) end++;
  const body = rows.map(tableRow);
  lines.splice(header + 2, end - (header + 2), ...body);

  let out = lines;
  const starts = out.flatMap((l, i) => (l.trim() === TOPOLOGY_START ? [i] : []));
  const ends = out.flatMap((l, i) => (l.trim() === TOPOLOGY_END ? [i] : []));
  if (starts.length > 0 || ends.length > 0) {
    if (starts.length !== 1 || ends.length !== 1 || ends[0]! < starts[0]!) fail("ambiguous managed topology block");
    out = [...out.slice(0, starts[0]!), ...out.slice(ends[0]! + 1)];
  }
  let result = out.join("\n").replace(/\s+$/, "");
  if (meta.splits.length > 0) {
    const bullets = [...meta.splits]
      .sort((a, b) => cmp(a.parent, b.parent))
      .map(
        (s) => `- ${s.parent} integrates ${s.children.join(", ")}; parent ledger: gates/${leafLedgerName(s.parent)}`,
      );
    result += `\n\n${TOPOLOGY_START}\n## Expanded topology\n\n${bullets.join("\n")}\n${TOPOLOGY_END}`;
  }
  return result + "\n";
}

export function renderAccess(revision: number, rows: TaskRow[]): string {
  const leaves: Record<string, unknown> = {};
  for (const r of [...rows].sort((a, b) => cmp(a.id, b.id))) {
    leaves[r.id] = {
      complete: true,
      reads: r.access.reads,
      resourceReads: r.access.resourceReads,
      resourceWrites: r.access.resourceWrites,
    };
  }
  return JSON.stringify({ schema: 1, contractRevision: revision, leaves }, null, 2) + "\n";
}

/** Root GATES.md demoted, with the reserved S_STRUCTURE gate appended when absent (docs/formats.md#structure-gate). */
export function renderRootGates(text: string, scope: string): string {
  const command = structureCheckCommand(scope);
  const existing = parseLedger(text, "GATES").gates.find((g) => g.id === STRUCTURE_GATE);
  if (existing && (existing.check !== command || existing.expect !== STRUCTURE_EXPECT))
    fail("S_STRUCTURE is reserved; inspect and reconcile its existing command");
  const demoted = demoteLedger(text);
  if (existing) return demoted;
  const gate = [
    `- [ ] ${STRUCTURE_GATE}: ${STRUCTURE_TITLE}`,
    `  CHECK: ${command}`,
    `  EXPECT: ${STRUCTURE_EXPECT}`,
    "  EVIDENCE: pending",
  ];
  return `${demoted.replace(/\s+$/, "")}\n\n${gate.join("\n")}\n`;
}

/** The write set: scope-relative path → new text, after the self-checks. */
export function materialize(model: Model, calc: Planned): Record<string, string> {
  const rows = calc.next.rows;
  const writes: Record<string, string> = {};
  const plan = renderPlan(model.planText, calc.revision, rows, calc.next.meta);
  let parsed;
  try {
    parsed = parsePlan(plan, cmp);
  } catch (e) {
    if (e instanceof ScheduleInputError) fail("rendered plan differs from verified calculation");
    throw e;
  }
  const key = (r: { id: string; owns: string[]; needs: string[]; tier: string; wave: number; state: string }) =>
    JSON.stringify([r.id, r.owns, r.needs, r.tier, r.wave, r.state]);
  if (parsed.revision !== calc.revision || parsed.rows.map(key).join("\n") !== rows.map(key).join("\n"))
    fail("rendered plan differs from verified calculation");
  writes["PLAN.md"] = plan;
  writes["ACCESS.json"] = renderAccess(calc.revision, rows);
  for (const i of model.integrations) {
    writes[i.file] = i.file === "GATES.md" ? renderRootGates(i.text, model.scope) : demoteLedger(i.text);
  }
  if (parseLedger(writes["GATES.md"]!, "GATES").errors.length > 0) fail("invalid generated structural Gate");
  const before = new Map(model.rows.map((r) => [r.id, r.ledger]));
  for (const r of rows) if (before.get(r.id) !== r.ledger) writes[`gates/${leafLedgerName(r.id)}`] = r.ledger;
  writes[REGISTRY] = renderRegistry(calc.next.meta);
  for (const text of Object.values(writes))
    if (Buffer.byteLength(text, "utf8") > MAX_LEDGER_BYTES) fail("materialized state exceeds reader limit");
  return writes;
}

/** STRUCTURE.json with its fields in the spec's order (docs/formats.md#structure). */
export function renderRegistry(m: Registry): string {
  const ordered: Registry = {
    schema: 1,
    initial: m.initial,
    expected: m.expected,
    requiredEdges: m.requiredEdges,
    requiredGates: m.requiredGates,
    requiredIntegrations: m.requiredIntegrations,
    splits: m.splits,
    groups: m.groups,
    operations: m.operations,
    turn: m.turn,
    reports: m.reports,
  };
  return JSON.stringify(ordered, null, 2) + "\n";
}
