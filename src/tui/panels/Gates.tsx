// Gates: every ledger's gates with state and last evidence, and a live line for running checks.
import { Box, Text } from "ink";
import type { FileProblem } from "../../core/errors.ts";
import { isRunnable } from "../../core/ledger/model.ts";
import { unmetReason } from "../../core/ledger/state.ts";
import type { GateView, Snapshot } from "../../core/snapshot.ts";
import { useUi } from "../context.tsx";
import { Detail, paneWant, type DetailLine } from "../Detail.tsx";
import { splitPane } from "../layout.ts";
import { List } from "../List.tsx";
import type { DashData } from "../load.ts";
import type { Listed, ListSpec } from "../model.ts";
import type { RunningCheck } from "../state.ts";
import { fit, pad } from "../text.ts";
import { GATE_LABEL, GATE_TONE } from "../theme.ts";

export type GateRowItem =
  | { kind: "gate"; view: GateView; display: string }
  | { kind: "problem"; problem: FileProblem; n: number }
  /** A dispatch wave the verdict counts (open or sealed: unmet; abandoned: handoff), as the header does. */
  | { kind: "wave"; text: string; abandoned: boolean };

export function gateRows(snapshot: Snapshot): GateRowItem[] {
  const display = new Map(snapshot.ledgers.map((l) => [l.file, l.display]));
  const rows: GateRowItem[] = snapshot.problems.map((problem, n) => ({ kind: "problem", problem, n }));
  const d = snapshot.dispatch;
  for (const text of d?.blocking ?? []) rows.push({ kind: "wave", text, abandoned: false });
  for (const text of d?.abandoned ?? []) rows.push({ kind: "wave", text, abandoned: true });
  for (const view of snapshot.gates) rows.push({ kind: "gate", view, display: display.get(view.file) ?? view.file });
  return rows;
}

export const GATE_SPEC: ListSpec<GateRowItem> = {
  id: (r) => (r.kind === "gate" ? r.view.qid : r.kind === "wave" ? `wave:${r.text}` : `problem:${r.n}:${r.problem.file}:${r.problem.line}`),
  text: (r) =>
    r.kind === "gate" ? `${GATE_LABEL[r.view.state]} ${r.view.qid} ${r.view.gate.title}` : r.kind === "wave" ? `WAVE ${r.text}` : `INVALID ${r.problem.file}:${r.problem.line}: ${r.problem.message}`,
  done: (r) => (r.kind === "gate" && (r.view.state === "met" || r.view.state === "abandoned")) || (r.kind === "wave" && r.abandoned),
};

export interface GatesProps {
  data: DashData;
  list: Listed<GateRowItem>;
  selected: number;
  running: readonly RunningCheck[];
  now: number;
}

const SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** The pane under the list: the selected gate in short (enter opens it in full). */
export function gateSummary(item: GateRowItem | undefined): DetailLine[] {
  if (!item) return [];
  if (item.kind === "problem") {
    const p = item.problem;
    return [{ label: "problem", value: `${p.file}:${p.line}: ${p.message}`, tone: "bad", wrap: true }];
  }
  if (item.kind === "wave") return waveLines(item);
  const g = item.view.gate;
  const lines: DetailLine[] = [{ label: "gate", value: `${item.view.qid}  ${item.display}:${g.line}  ${isRunnable(g) ? "runnable" : "manual"}` }];
  if (g.check !== null) lines.push({ label: "CHECK", value: g.check });
  if (g.expect !== null) lines.push({ label: "EXPECT", value: g.expect });
  lines.push({ label: "EVIDENCE", value: g.evidence ?? "(none)" });
  const why = unmetReason(item.view.state);
  if (item.view.state === "failed") lines.push({ label: "failed", value: `FAILED (${item.view.reason ?? "last run"})`, tone: "bad" });
  else if (why) lines.push({ label: "unmet", value: item.view.reason ?? why, tone: GATE_TONE[item.view.state] });
  return lines;
}

export function waveLines(item: { text: string; abandoned: boolean }): DetailLine[] {
  return [
    { label: "wave", value: item.text, tone: item.abandoned ? "accent" : "warn", wrap: true },
    {
      label: "counts",
      value: item.abandoned ? "as a handoff: an abandoned wave needs a new plan for its leaves" : "as unmet until every started leaf returns and the wave completes (kbz wave)",
      wrap: true,
    },
  ];
}

export function Gates({ data, list, selected, running, now }: GatesProps) {
  const { theme, width, height } = useUi();
  const runLines = running.slice(0, Math.max(0, Math.min(2, height - 4)));
  const rows = list.items;
  const summary = gateSummary(rows[selected]);
  const { list: listHeight, detail } = splitPane(height - runLines.length, rows.length, paneWant(summary, width));
  const c = data.report.counts;
  const idWidth = Math.min(28, Math.max(10, Math.floor(width / 3)));
  const titleWidth = Math.max(0, width - 2 - 12 - idWidth - 1);
  return (
    <Box flexDirection="column" width={width} height={height}>
      {runLines.map((r) => {
        const secs = (now - r.startedAt) / 1000;
        const spin = SPIN[Math.floor(now / 100) % SPIN.length];
        return (
          <Text key={r.qid} color={theme.tone("active")} wrap="truncate">
            {fit(`${spin} running ${r.qid}  ${secs.toFixed(1)}s${running.length > runLines.length ? `  (+${running.length - runLines.length} more)` : ""}`, width)}
          </Text>
        );
      })}
      <List
        items={rows}
        selected={selected}
        height={listHeight}
        hidden={list.total - rows.length}
        empty={list.total ? "no gate matches" : `no gates (${c.ledgers} ledgers)`}
        row={(item, _i, active) => {
          const mark = active ? "›" : " ";
          if (item.kind === "wave") {
            return (
              <Text inverse={active} wrap="truncate">
                <Text>{mark} </Text>
                <Text color={theme.tone(item.abandoned ? "accent" : "warn")}>{pad(item.abandoned ? "ABANDONED" : "WAVE", 12)}</Text>
                <Text>{fit(item.text, Math.max(0, width - 14))}</Text>
              </Text>
            );
          }
          if (item.kind === "problem") {
            const p = item.problem;
            return (
              <Text inverse={active} color={theme.tone("bad")} wrap="truncate">
                {fit(`${mark} INVALID     ${p.file}:${p.line}: ${p.message}`, width)}
              </Text>
            );
          }
          const v = item.view;
          return (
            <Text inverse={active} wrap="truncate">
              <Text>{mark} </Text>
              <Text color={theme.tone(GATE_TONE[v.state])}>{pad(GATE_LABEL[v.state], 12)}</Text>
              <Text bold>{pad(v.qid, idWidth)}</Text>
              <Text> {fit(v.gate.title, titleWidth)}</Text>
            </Text>
          );
        }}
      />
      <Detail lines={summary} height={detail} />
    </Box>
  );
}
