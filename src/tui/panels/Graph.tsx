// Graph: PLAN.md's leaves laid out in dependency layers, coloured by state, with the wave and
// agent that hold each one; the selected leaf's neighbourhood (what it needs, what needs it),
// its gates, owns, reads and blocking reason.
import { Box, Text } from "ink";
import type { PlanRow } from "../../core/plan/table.ts";
import { useUi } from "../context.tsx";
import { Detail, paneWant, type DetailLine } from "../Detail.tsx";
import { splitPane } from "../layout.ts";
import { List } from "../List.tsx";
import type { DashData } from "../load.ts";
import { leafGateCount, leafLedgerSuffix, type Listed, type ListSpec } from "../model.ts";
import { lastStartInWaveOrder, type PlanView } from "../plan.ts";
import { noteDetail, noteText, structureNote } from "../structure.ts";
import { fit, pad } from "../text.ts";
import { GATE_LABEL, LEAF_GLYPH, LEAF_TONE, type LeafView } from "../theme.ts";

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

const withState = (ids: readonly string[], states: Map<string, LeafView>) => ids.map((n) => `${n} ${states.get(n) ?? "?"}`).join(", ");

/** The leaf in full: the pane shows the first lines, enter shows all. */
export function leafDetail(data: DashData, view: PlanView, item: LeafItem | undefined, states: Map<string, LeafView>, dependents: Map<string, string[]>): DetailLine[] {
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
    { label: "dependents", value: dependents.get(row.id)?.length ? withState(dependents.get(row.id)!, states) : "- (nothing needs it)", wrap: true },
  ];
  const blocked = view.advice?.explain?.blocked.find((b) => b.leaf === row.id);
  if (blocked) lines.push({ label: "blocked", value: `${blocked.reason}: ${blocked.why}`, tone: "warn", wrap: true });
  else if (view.advice?.launch.includes(row.id)) lines.push({ label: "next", value: "kbz next says: launch now", tone: "info" });
  const suffix = leafLedgerSuffix(row.id);
  const gates = data.snapshot.gates.filter((g) => g.file.endsWith(suffix));
  const c = leafGateCount(data, row.id);
  lines.push({
    label: "gates",
    value: gates.length ? `${c.met}/${c.all} met: ${gates.map((g) => `${g.gate.id} ${GATE_LABEL[g.state]}`).join(" · ")}` : `(no ledger ${suffix})`,
    wrap: true,
  });
  lines.push({ label: "owns", value: row.owns.join(", ") || "-", wrap: true });
  const access = view.next?.tasks.get(row.id)?.access;
  if (access) {
    const res = [...access.resourceReads.map((r) => `${r} (read)`), ...access.resourceWrites.map((r) => `${r} (write)`)];
    lines.push({ label: "reads", value: `${access.reads.join(", ") || "-"}${res.length ? `  resources ${res.join(", ")}` : ""}`, wrap: true });
  }
  const lease = view.leases.find((l) => !l.invalid && l.leaf === `leaf-${row.id}` && l.scope === view.next?.scope);
  lines.push({ label: "lease", value: lease ? `held by ${lease.scope}/${lease.leaf}: ${lease.globs.join(", ")}` : "none", wrap: true });
  for (const l of noteDetail(structureNote(view, row.id))) lines.push({ ...l, tone: "info", wrap: true });
  return lines;
}

export interface GraphProps {
  data: DashData;
  list: Listed<LeafItem>;
  selected: number;
  states: Map<string, LeafView>;
  dependents: Map<string, string[]>;
}

export function Graph({ data, list, selected, states, dependents }: GraphProps) {
  const { theme, width, height } = useUi();
  const view = data.plan;
  if (!view) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>{fit(data.snapshot.target.scope ? "no PLAN.md in this scope: nothing to draw" : "no scope here: the graph needs .unlazy/<scope>/PLAN.md", width)}</Text>
      </Box>
    );
  }
  if (!view.plan) {
    return (
      <Box height={height}>
        <Text color={theme.tone("bad")}>{fit(`${view.problem ?? ""} (enter shows it in full)`, width)}</Text>
      </Box>
    );
  }
  const rows = list.items;
  const problem = view.problem && height >= 6 ? 1 : 0;
  const detailLines = leafDetail(data, view, rows[selected], states, dependents);
  const { list: listHeight, detail } = splitPane(height - problem, rows.length, paneWant(detailLines, width));
  const idWidth = Math.min(12, Math.max(4, ...rows.map((r) => r.row.id.length)) + 1);
  const layerWidth = `L${rows.length ? rows[rows.length - 1]!.layer : 1}`.length + 1;
  return (
    <Box flexDirection="column" width={width} height={height}>
      {problem ? (
        <Text color={theme.tone("bad")} wrap="truncate">
          {fit(view.problem!, width)}
        </Text>
      ) : null}
      <List
        items={rows}
        selected={selected}
        height={listHeight}
        hidden={list.total - rows.length}
        empty={list.total ? "no leaf matches" : "PLAN.md has no leaves"}
        row={(item, i, active) => {
          const state = item.state;
          const start = lastStartInWaveOrder(view.waves, item.row.id);
          const firstOfLayer = i === 0 || rows[i - 1]!.layer !== item.layer;
          const layer = firstOfLayer ? `L${item.layer}` : "│";
          const where = start ? `${start.wave.id}${start.handle ? ` ${start.handle}` : ""}` : "";
          const note = noteText(structureNote(view, item.row.id));
          const needs = [item.row.needs.length ? `← ${item.row.needs.join(", ")}` : "", note].filter(Boolean).join("  ");
          const whereWidth = width >= 70 ? 18 : 0;
          const fixed = 2 + layerWidth + 2 + idWidth + 10 + whereWidth;
          return (
            <Text inverse={active} wrap="truncate">
              <Text>{active ? "›" : " "} </Text>
              <Text color={theme.tone("muted")}>{pad(layer, layerWidth)}</Text>
              <Text color={theme.tone(LEAF_TONE[state])}>{LEAF_GLYPH[state]} </Text>
              <Text bold>{pad(item.row.id, idWidth)}</Text>
              <Text color={theme.tone(LEAF_TONE[state])}>{pad(state, 10)}</Text>
              {whereWidth ? <Text>{pad(where, whereWidth)}</Text> : null}
              <Text color={theme.tone("muted")}>{fit(needs, Math.max(0, width - fixed))}</Text>
            </Text>
          );
        }}
      />
      <Detail lines={detailLines} height={detail} />
    </Box>
  );
}
