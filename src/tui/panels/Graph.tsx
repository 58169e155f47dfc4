// Graph: PLAN.md's leaves laid out in dependency layers, coloured by state, with the wave and
// agent that hold each one; the selected leaf's gates, owns, reads, needs and blocking reason.
import { Box, Text } from "ink";
import type { PlanRow } from "../../core/plan/table.ts";
import type { GateView } from "../../core/snapshot.ts";
import { Detail, type DetailLine } from "../Detail.tsx";
import { List } from "../List.tsx";
import type { DashData } from "../load.ts";
import { lastStart, leafView, type PlanView } from "../plan.ts";
import { noteDetail, noteText, structureNote } from "../structure.ts";
import { fit, pad } from "../text.ts";
import { GATE_LABEL, LEAF_GLYPH, LEAF_TONE, type Theme } from "../theme.ts";

export interface LeafItem {
  row: PlanRow;
  layer: number;
}

/** Leaves by layer, then in the plan's id order within a layer. */
export function graphRows(view: PlanView | null): LeafItem[] {
  if (!view?.plan) return [];
  return view.plan.rows.map((row) => ({ row, layer: view.layers.get(row.id) ?? 1 })).sort((a, b) => a.layer - b.layer || a.row.index - b.row.index);
}

const DETAIL_HEIGHT = 8;

function leafGates(data: DashData, id: string): GateView[] {
  const suffix = `gates/leaf-${id}.md`;
  return data.snapshot.gates.filter((g) => g.file.endsWith(suffix));
}

function leafDetail(data: DashData, view: PlanView, item: LeafItem | undefined): DetailLine[] {
  if (!item) return [];
  const { row } = item;
  const state = leafView(row, view.waves);
  const start = lastStart(view.waves, row.id);
  const lines: DetailLine[] = [
    {
      label: "leaf",
      value: `${row.id}  ${state.toUpperCase()}  layer ${item.layer}  tier ${row.tier}  planned wave ${row.wave}${start ? `  wave ${start.wave.id} ${start.wave.state}${start.handle ? ` as ${start.handle}` : ""}` : ""}`,
      tone: LEAF_TONE[state],
    },
  ];
  const gates = leafGates(data, row.id);
  lines.push({ label: "gates", value: gates.length ? gates.map((g) => `${g.gate.id} ${GATE_LABEL[g.state]}`).join(" · ") : "(no ledger gates/leaf-" + row.id + ".md)" });
  lines.push({ label: "owns", value: row.owns.join(", ") || "-" });
  const access = view.next?.tasks.get(row.id)?.access;
  if (access) {
    const res = [...access.resourceReads.map((r) => `${r} (read)`), ...access.resourceWrites.map((r) => `${r} (write)`)];
    lines.push({ label: "reads", value: `${access.reads.join(", ") || "-"}${res.length ? `  resources ${res.join(", ")}` : ""}` });
  }
  const states = new Map(view.plan!.rows.map((r) => [r.id, r.state]));
  lines.push({ label: "needs", value: row.needs.length ? row.needs.map((n) => `${n} ${states.get(n)}`).join(", ") : "-" });
  const lease = view.leases.find((l) => !l.invalid && l.leaf === `leaf-${row.id}` && l.scope === view.next?.scope);
  lines.push({ label: "lease", value: lease ? `held by ${lease.scope}/${lease.leaf}: ${lease.globs.join(", ")}` : "none" });
  for (const l of noteDetail(structureNote(view, row.id))) lines.push({ ...l, tone: "info", wrap: true });
  const blocked = view.advice?.explain?.blocked.find((b) => b.leaf === row.id);
  if (blocked) lines.push({ label: "blocked", value: `${blocked.reason}: ${blocked.why}`, tone: "warn", wrap: true });
  else if (view.advice?.launch.includes(row.id)) lines.push({ label: "next", value: "kbz next says: launch now", tone: "info" });
  return lines;
}

export interface GraphProps {
  data: DashData;
  rows: LeafItem[];
  selected: number;
  width: number;
  height: number;
  theme: Theme;
}

export function Graph({ data, rows, selected, width, height, theme }: GraphProps) {
  const view = data.plan;
  if (!view) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>{fit(data.snapshot.target.scope ? "no PLAN.md in this scope: nothing to draw" : "no scope here: the graph needs .unlazy/<scope>/PLAN.md", width)}</Text>
      </Box>
    );
  }
  const problem = view.problem ? 1 : 0;
  if (!view.plan) {
    return (
      <Box height={height}>
        <Text color={theme.tone("bad")}>{fit(view.problem ?? "", width)}</Text>
      </Box>
    );
  }
  const idWidth = Math.min(12, Math.max(4, ...rows.map((r) => r.row.id.length)) + 1);
  const listHeight = Math.max(1, height - DETAIL_HEIGHT - problem);
  const layerWidth = `L${rows.length ? rows[rows.length - 1]!.layer : 1}`.length + 1;
  return (
    <Box flexDirection="column" width={width} height={height}>
      {view.problem ? <Text color={theme.tone("bad")} wrap="truncate">{fit(view.problem, width)}</Text> : null}
      <List
        items={rows}
        selected={selected}
        height={listHeight}
        theme={theme}
        empty="PLAN.md has no leaves"
        row={(item, i, active) => {
          const state = leafView(item.row, view.waves);
          const start = lastStart(view.waves, item.row.id);
          const firstOfLayer = i === 0 || rows[i - 1]!.layer !== item.layer;
          const layer = firstOfLayer ? `L${item.layer}` : "│";
          const where = start ? `${start.wave.id}${start.handle ? ` ${start.handle}` : ""}` : "";
          const note = noteText(structureNote(view, item.row.id));
          const needs = [item.row.needs.length ? `← ${item.row.needs.join(", ")}` : "", note].filter(Boolean).join("  ");
          const fixed = 2 + layerWidth + 2 + idWidth + 10 + 18;
          return (
            <Text inverse={active} wrap="truncate">
              <Text>{active ? "›" : " "} </Text>
              <Text color={theme.tone("muted")}>{pad(layer, layerWidth)}</Text>
              <Text color={theme.tone(LEAF_TONE[state])}>{LEAF_GLYPH[state]} </Text>
              <Text bold>{pad(item.row.id, idWidth)}</Text>
              <Text color={theme.tone(LEAF_TONE[state])}>{pad(state, 10)}</Text>
              <Text>{pad(where, 18)}</Text>
              <Text color={theme.tone("muted")}>{fit(needs, Math.max(0, width - fixed))}</Text>
            </Text>
          );
        }}
      />
      <Detail lines={leafDetail(data, view, rows[selected])} width={width} height={DETAIL_HEIGHT} theme={theme} />
    </Box>
  );
}
