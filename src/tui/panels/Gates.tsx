// Gates: every ledger's gates with state and last evidence, and a live line for running checks.
import { Box, Text } from "ink";
import type { FileProblem } from "../../core/errors.ts";
import { isRunnable } from "../../core/ledger/model.ts";
import { unmetReason } from "../../core/ledger/state.ts";
import type { GateView } from "../../core/snapshot.ts";
import { Detail, type DetailLine } from "../Detail.tsx";
import { List } from "../List.tsx";
import type { DashData } from "../load.ts";
import { fit, pad } from "../text.ts";
import { GATE_LABEL, GATE_TONE, type Theme } from "../theme.ts";

export type GateRowItem = { kind: "gate"; view: GateView; display: string } | { kind: "problem"; problem: FileProblem };

export function gateRows(data: DashData): GateRowItem[] {
  const display = new Map(data.snapshot.ledgers.map((l) => [l.file, l.display]));
  const rows: GateRowItem[] = data.snapshot.problems.map((problem) => ({ kind: "problem", problem }));
  for (const view of data.snapshot.gates) rows.push({ kind: "gate", view, display: display.get(view.file) ?? view.file });
  return rows;
}

export interface RunningCheck {
  qid: string;
  startedAt: number;
}

export interface GatesProps {
  data: DashData;
  rows: GateRowItem[];
  selected: number;
  width: number;
  height: number;
  theme: Theme;
  running: RunningCheck[];
  now: number;
}

const SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const DETAIL_HEIGHT = 6;

function gateDetail(item: GateRowItem | undefined): DetailLine[] {
  if (!item) return [];
  if (item.kind === "problem") {
    const p = item.problem;
    return [{ label: "problem", value: `${p.file}:${p.line}: ${p.message}`, tone: "bad", wrap: true }];
  }
  const g = item.view.gate;
  const lines: DetailLine[] = [
    { label: "gate", value: `${item.view.qid}  ${item.display}:${g.line}  ${isRunnable(g) ? "runnable" : "manual"}` },
  ];
  if (g.check !== null) lines.push({ label: "CHECK", value: g.check, wrap: true });
  if (g.expect !== null) lines.push({ label: "EXPECT", value: g.expect });
  lines.push({ label: "EVIDENCE", value: g.evidence ?? "(none)" });
  const why = unmetReason(item.view.state);
  if (why) lines.push({ label: "unmet", value: why, tone: GATE_TONE[item.view.state] });
  return lines;
}

export function Gates({ data, rows, selected, width, height, theme, running, now }: GatesProps) {
  const runLines = running.slice(0, 2);
  const listHeight = Math.max(1, height - DETAIL_HEIGHT - runLines.length);
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
        theme={theme}
        empty={`no gates (${c.ledgers} ledgers)`}
        row={(item, _i, active) => {
          const mark = active ? "›" : " ";
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
      <Detail lines={gateDetail(rows[selected])} width={width} height={DETAIL_HEIGHT} theme={theme} />
    </Box>
  );
}
