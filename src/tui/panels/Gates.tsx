// Gates: every ledger's gates with their state; a running check on its own row (spinner,
// elapsed) with its output streaming into the detail; FAILED (exit 3) distinct from never run.
import { Text } from "ink";
import { kbz } from "../../core/text/command.ts";
import type { FileProblem } from "../../core/errors.ts";
import { isRunnable } from "../../core/ledger/model.ts";
import type { GateView, Snapshot } from "../../core/snapshot.ts";
import { gateApproval, lastRunOf } from "../../ops/dashboardActs.ts";
import type { DetailLine } from "../Detail.tsx";
import { gateFullLines, stateText } from "../gateDetail.ts";
import type { ItemKind } from "../keys.ts";
import { NARROW, type BaseCtx, type PanelCtx, type PanelDef } from "../panel.ts";
import type { RunningCheck } from "../state.ts";
import { cols, fit, pad } from "../text.ts";
import { GATE_GLYPH, GATE_LABEL, GATE_TONE } from "../theme.ts";

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

export const SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

const runningOf = (ctx: Pick<PanelCtx, "state">, qid: string): RunningCheck | undefined =>
  ctx.state.running.find((r) => r.qid === qid);

function runningLabel(r: RunningCheck, now: number): string {
  return `${SPIN[Math.floor(now / 100) % SPIN.length]} RUN ${((now - r.startedAt) / 1000).toFixed(1)}s`;
}

export function waveLines(item: { text: string; abandoned: boolean }): DetailLine[] {
  return [
    { label: "wave", value: item.text, tone: item.abandoned ? "accent" : "warn", wrap: true },
    {
      label: "counts",
      value: item.abandoned
        ? "as a handoff: an abandoned wave needs a new plan for its leaves"
        : `as unmet until every started leaf returns and the wave completes (${kbz("wave")})`,
      wrap: true,
    },
  ];
}

/** The selected gate in short (the pane under the list). */
export function gateSummary(item: GateRowItem | undefined, running?: RunningCheck): DetailLine[] {
  if (!item) return [];
  if (item.kind === "problem") {
    const p = item.problem;
    return [{ label: "problem", value: `${p.file}:${p.line}: ${p.message}`, tone: "bad", wrap: true }];
  }
  if (item.kind === "wave") return waveLines(item);
  const v = item.view;
  const g = v.gate;
  const lines: DetailLine[] = [
    { label: "gate", value: `${v.qid}  ${item.display}:${g.line}  ${isRunnable(g) ? "runnable" : "manual"}` },
  ];
  lines.push({ label: "state", value: stateText(v), tone: GATE_TONE[v.state] });
  if (g.check !== null) lines.push({ label: "CHECK", value: g.check, wrap: true });
  if (g.expect !== null) lines.push({ label: "EXPECT", value: g.expect });
  lines.push({ label: "EVIDENCE", value: g.evidence ?? "(none)" });
  if (running)
    lines.push({
      label: "output",
      value: running.output === "" ? "(running, no output yet)" : running.output,
      block: true,
    });
  return lines;
}

function gateFull(item: GateRowItem, ctx: BaseCtx): { title: string; lines: DetailLine[] } {
  if (item.kind === "problem") {
    const p = item.problem;
    return {
      title: "Problem",
      lines: [{ label: "problem", value: `${p.file}:${p.line}: ${p.message}`, tone: "bad", wrap: true }],
    };
  }
  if (item.kind === "wave") return { title: "Dispatch wave", lines: waveLines(item) };
  const v = item.view;
  const approval = gateApproval(ctx.data.snapshot, ctx.data.approvals, v);
  const running = runningOf(ctx, v.qid);
  const last = isRunnable(v.gate) && !running ? lastRunOf(ctx.env, v.file, v.gate.id) : null;
  const lines = gateFullLines(v, item.display, approval, last, ctx.probes[v.qid] ?? null);
  if (running)
    lines.push({
      label: "output",
      value: running.output === "" ? "(running, no output yet)" : running.output,
      tone: "active",
      block: true,
    });
  return { title: `Gate ${v.qid}`, lines };
}

function gateRow(item: GateRowItem, active: boolean, ctx: PanelCtx) {
  const { theme, width } = ctx;
  const mark = active ? "›" : " ";
  const narrow = width < NARROW;
  const stateW = narrow ? 2 : 17;
  if (item.kind === "wave") {
    return (
      <Text inverse={active} wrap="truncate">
        <Text>{mark} </Text>
        <Text color={theme.tone(item.abandoned ? "accent" : "warn")}>
          {pad(narrow ? (item.abandoned ? "⚑" : "◷") : item.abandoned ? "ABANDONED" : "WAVE", stateW)}
        </Text>
        <Text>{fit(item.text, Math.max(0, width - stateW - 2))}</Text>
      </Text>
    );
  }
  if (item.kind === "problem") {
    const p = item.problem;
    return (
      <Text inverse={active} color={theme.tone("bad")} wrap="truncate">
        {fit(`${mark} ${pad(narrow ? "!" : "INVALID", stateW)}${p.file}:${p.line}: ${p.message}`, width)}
      </Text>
    );
  }
  const v = item.view;
  const run = runningOf(ctx, v.qid);
  const failed = v.state === "failed" && v.reason ? `FAILED (${v.reason})` : null;
  const label = run
    ? narrow
      ? SPIN[Math.floor(ctx.now / 100) % SPIN.length]!
      : runningLabel(run, ctx.now)
    : narrow
      ? GATE_GLYPH[v.state]
      : failed && cols(failed) < stateW
        ? failed
        : GATE_LABEL[v.state];
  const tone = run ? "active" : GATE_TONE[v.state];
  // Below 80 columns the id column fits the longest id (at most half the row).
  const idW = narrow
    ? Math.min(ctx.model.gateIdWidth + 1, Math.floor(width / 2))
    : Math.min(28, Math.max(10, Math.floor(width / 3)));
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{mark} </Text>
      <Text color={theme.tone(tone)}>{pad(label, stateW)}</Text>
      <Text bold>{pad(v.qid, idW)}</Text>
      <Text> {fit(v.gate.title, Math.max(0, width - 2 - stateW - idW - 1))}</Text>
    </Text>
  );
}

export const gatesPanel: PanelDef<GateRowItem> = {
  id: "gates",
  spec: {
    id: (r) =>
      r.kind === "gate"
        ? r.view.qid
        : r.kind === "wave"
          ? `wave:${r.text}`
          : `problem:${r.n}:${r.problem.file}:${r.problem.line}`,
    text: (r) =>
      r.kind === "gate"
        ? `${GATE_LABEL[r.view.state]} ${r.view.qid} ${r.view.gate.title}`
        : r.kind === "wave"
          ? `WAVE ${r.text}`
          : `INVALID ${r.problem.file}:${r.problem.line}: ${r.problem.message}`,
    done: (r) =>
      (r.kind === "gate" && (r.view.state === "met" || r.view.state === "abandoned")) ||
      (r.kind === "wave" && r.abandoned),
  },
  items: (ctx) => ctx.model.gates,
  problem: () => null,
  empty: (ctx) => `no gates (${ctx.data.snapshot.ledgers.length} ledgers)`,
  row: gateRow,
  summary: (item, ctx) =>
    ctx.wide
      ? gateFull(item, ctx).lines
      : gateSummary(item, item.kind === "gate" ? runningOf(ctx, item.view.qid) : undefined),
  full: gateFull,
  kind: (item): ItemKind => {
    if (item.kind !== "gate") return item.kind;
    if (!isRunnable(item.view.gate)) return "manual";
    return item.view.state === "met" ? "runnable-met" : "runnable";
  },
};
