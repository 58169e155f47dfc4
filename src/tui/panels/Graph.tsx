// Graph: PLAN.md's leaves laid out in dependency layers, coloured by state, with the wave and
// agent that hold each one; the selected leaf's neighbourhood (what it needs, what needs it),
// its gates, owns, reads and blocking reason.
import { Text } from "ink";
import { kbz } from "../../core/text/command.ts";
import type { PlanRow } from "../../core/plan/table.ts";
import type { DetailLine } from "../Detail.tsx";
import type { DashData } from "../../ops/dashboard.ts";
import type { PlanView } from "../../ops/dashboardPlan.ts";
import { lastStartInWaveOrder, leafGateCount, leafLedgerSuffix, type ListSpec } from "../model.ts";
import { NARROW, type PanelCtx, type PanelDef } from "../panel.ts";
import { noteDetail, noteText, structureNote } from "../structure.ts";
import { cols, fit, pad } from "../text.ts";
import { GATE_LABEL, LEAF_GLYPH, LEAF_TONE, type LeafView } from "../theme.ts";
import { leafStem } from "../../core/plan/leaf-id.ts";

export interface LeafItem {
  row: PlanRow;
  layer: number;
  state: LeafView;
}

/** Leaves by layer, then in the plan's id order within a layer; states from the one model. */
export function graphRows(view: PlanView | null, states: Map<string, LeafView>): LeafItem[] {
  if (!view?.plan) return [];
  return view.plan.rows
    .map((row) => ({ row, layer: view.layers.get(row.id) ?? 1, state: states.get(row.id) ?? "waiting" }))
    .sort((a, b) => a.layer - b.layer || a.row.index - b.row.index);
}

export const LEAF_SPEC: ListSpec<LeafItem> = {
  id: (l) => l.row.id,
  text: (l) => `${l.row.id} ${l.state} ${l.row.owns.join(" ")}`,
  done: (l) => l.state === "verified" || l.state === "abandoned",
};

const withState = (ids: readonly string[], states: Map<string, LeafView>) =>
  ids.map((n) => `${n} ${states.get(n) ?? "?"}`).join(", ");

/** The leaf in full: the pane shows the first lines, enter shows all. */
export function leafDetail(
  data: DashData,
  view: PlanView,
  item: LeafItem | undefined,
  states: Map<string, LeafView>,
  dependents: Map<string, string[]>,
  failed?: Map<string, string[]>,
): DetailLine[] {
  if (!item) return [];
  const { row, state } = item;
  const start = lastStartInWaveOrder(view.waves, row.id);
  const lines: DetailLine[] = [
    {
      label: "leaf",
      value: `${row.id}  ${state.toUpperCase()}  layer ${item.layer}  tier ${row.tier}  planned wave ${row.wave}${start ? `  wave ${start.wave.id} ${start.wave.state}${start.handle ? ` as ${start.handle}` : ""}` : ""}`,
      tone: LEAF_TONE[state],
      wrap: true,
    },
    { label: "needs", value: row.needs.length ? withState(row.needs, states) : "- (a first-layer leaf)", wrap: true },
    {
      label: "dependents",
      value: dependents.get(row.id)?.length ? withState(dependents.get(row.id)!, states) : "- (nothing needs it)",
      wrap: true,
    },
  ];
  const blocked = view.advice?.explain?.blocked.find((b) => b.leaf === row.id);
  if (blocked) lines.push({ label: "blocked", value: `${blocked.reason}: ${blocked.why}`, tone: "warn", wrap: true });
  else if (view.advice?.launch.includes(row.id))
    lines.push({ label: "next", value: `${kbz("next")} says: launch now`, tone: "info" });
  const suffix = leafLedgerSuffix(row.id);
  const gates = data.snapshot.gates.filter((g) => g.file.endsWith(suffix));
  const c = leafGateCount(data, row.id);
  lines.push({
    label: "gates",
    value: gates.length
      ? `${c.met}/${c.all} met: ${gates.map((g) => `${g.gate.id} ${g.state === "failed" ? `FAILED (${g.reason ?? "last run"})` : GATE_LABEL[g.state]}`).join(" · ")}`
      : `(no ledger ${suffix})`,
    wrap: true,
  });
  const fails = failed?.get(row.id);
  if (fails) lines.push({ label: "failed", value: fails.join(" · "), tone: "bad", wrap: true });
  lines.push({ label: "owns", value: row.owns.join(", ") || "-", wrap: true });
  const access = view.next?.tasks.get(row.id)?.access;
  if (access) {
    const res = [
      ...access.resourceReads.map((r) => `${r} (read)`),
      ...access.resourceWrites.map((r) => `${r} (write)`),
    ];
    lines.push({
      label: "reads",
      value: `${access.reads.join(", ") || "-"}${res.length ? `  resources ${res.join(", ")}` : ""}`,
      wrap: true,
    });
  }
  const lease = view.leases.find((l) => !l.invalid && l.leaf === leafStem(row.id) && l.scope === view.next?.scope);
  lines.push({
    label: "lease",
    value: lease ? `held by ${lease.scope}/${lease.leaf}: ${lease.globs.join(", ")}` : "none",
    wrap: true,
  });
  for (const l of noteDetail(structureNote(view, row.id))) lines.push({ ...l, tone: "info", wrap: true });
  return lines;
}

/** Failed gates of each leaf's ledger (gates/leaf-<id>.md): the Graph marks those leaves. */
export function failedByLeaf(data: DashData): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const g of data.snapshot.gates) {
    if (g.state !== "failed") continue;
    const at = g.file.lastIndexOf("gates/leaf-");
    if (at < 0 || !g.file.endsWith(".md")) continue;
    const id = g.file.slice(at + "gates/leaf-".length, -3);
    const list = m.get(id) ?? [];
    list.push(`${g.gate.id} FAILED (${g.reason ?? "last run"})`);
    m.set(id, list);
  }
  return m;
}

function leafRow(item: LeafItem, active: boolean, ctx: PanelCtx, i: number) {
  const rows = ctx.shown as readonly LeafItem[];
  const { theme, width, data } = ctx;
  const view = data.plan!;
  const state = item.state;
  const start = lastStartInWaveOrder(view.waves, item.row.id);
  const firstOfLayer = i === 0 || rows[i - 1]!.layer !== item.layer;
  const layerWidth = `L${rows.length ? rows[rows.length - 1]!.layer : 1}`.length + 1;
  const idWidth = ctx.model.leafIdWidth;
  const layer = firstOfLayer ? `L${item.layer}` : "│";
  const where = start ? `${start.wave.id}${start.handle ? ` ${start.handle}` : ""}` : "";
  const failed = ctx.model.failed.get(item.row.id);
  const note = noteText(structureNote(view, item.row.id));
  const needs = [item.row.needs.length ? `← ${item.row.needs.join(", ")}` : "", note].filter(Boolean).join("  ");
  const narrow = width < NARROW;
  const whereWidth = width >= 70 ? 18 : 0;
  const stateW = narrow ? 0 : 10;
  const fixed = 2 + layerWidth + 2 + idWidth + stateW + whereWidth;
  const failText = failed ? `✗ ${failed.join(", ")}  ` : "";
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{active ? "›" : " "} </Text>
      <Text color={theme.tone("muted")}>{pad(layer, layerWidth)}</Text>
      <Text color={theme.tone(failed ? "bad" : LEAF_TONE[state])}>{failed ? "✗" : LEAF_GLYPH[state]} </Text>
      <Text bold>{pad(item.row.id, idWidth)}</Text>
      {stateW ? <Text color={theme.tone(LEAF_TONE[state])}>{pad(state, stateW)}</Text> : null}
      {whereWidth ? <Text>{pad(where, whereWidth)}</Text> : null}
      <Text color={theme.tone("bad")}>{fit(failText, Math.max(0, width - fixed))}</Text>
      <Text color={theme.tone("muted")}>{fit(needs, Math.max(0, width - fixed - cols(failText)))}</Text>
    </Text>
  );
}

export const graphPanel: PanelDef<LeafItem> = {
  id: "graph",
  spec: LEAF_SPEC,
  items: (ctx) => ctx.model.leaves,
  problem: (data) => (data.plan && !data.plan.plan ? data.plan.problem : null),
  empty: (ctx) =>
    !ctx.data.plan
      ? ctx.data.snapshot.target.scope
        ? "no PLAN.md in this scope: nothing to draw"
        : "no scope here: the graph needs .unlazy/<scope>/PLAN.md"
      : "PLAN.md has no leaves",
  head: (ctx, height) => (ctx.data.plan?.problem && height >= 6 ? [{ text: ctx.data.plan.problem, tone: "bad" }] : []),
  row: leafRow,
  summary: (item, ctx) =>
    ctx.data.plan
      ? leafDetail(ctx.data, ctx.data.plan, item, ctx.model.states, ctx.model.dependents, ctx.model.failed)
      : [],
  full: (item, ctx) => ({
    title: `Leaf ${item.row.id}`,
    lines: ctx.data.plan
      ? leafDetail(ctx.data, ctx.data.plan, item, ctx.model.states, ctx.model.dependents, ctx.model.failed)
      : [],
  }),
  kind: () => "leaf",
};
