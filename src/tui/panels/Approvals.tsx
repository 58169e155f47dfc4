// Approvals: where a person approves. Every runnable gate whose exact oracle has no approval,
// every probe that asked for one, with the whole oracle in view (CHECK, EXPECT, CWD, shell,
// environment, what changed since the last approval), wrapped at any width, and every REMOVED
// gate (kbz had a record of it and it left its ledger) for the person to confirm. `a` asks for
// `y` and records the approval (or the confirmation) only; running is its own key (`r`, or in Gates).
import { Text } from "ink";
import { kbz } from "../../core/text/command.ts";
import type { GateView } from "../../core/snapshot.ts";
import {
  approvalViewOf,
  cwdShown,
  removedGates,
  type ApprovalView,
  type CheckTask,
  type RemovedGate,
} from "../../ops/dashboardActs.ts";
import type { DetailLine } from "../Detail.tsx";
import { NARROW, type BaseCtx, type PanelCtx, type PanelDef } from "../panel.ts";
import { cols, fit, pad } from "../text.ts";

export type ApprovalItem =
  | { kind: "check"; task: CheckTask }
  | { kind: "probe"; qid: string; hidden: string[]; view: GateView }
  | ({ kind: "removed" } & RemovedGate);

export const approvalId = (t: ApprovalItem): string => (t.kind === "check" ? t.task.qid : `${t.kind}:${t.qid}`);
export const approvalQid = (t: ApprovalItem): string => (t.kind === "check" ? t.task.qid : t.qid);

export function declineKey(t: ApprovalItem): string {
  if (t.kind === "check") return `${t.task.qid}\0${t.task.signature}`;
  return t.kind === "probe" ? `probe:${t.qid}\0${t.hidden.join("\0")}` : `removed:${t.qid}`;
}

/** What waits for the person: checks first (as `kbz check` lists them), then probes, then REMOVED gates. */
export function approvalItems(ctx: BaseCtx): ApprovalItem[] {
  const items: ApprovalItem[] = ctx.data.approvals.items.map((task) => ({ kind: "check", task }));
  for (const [qid, hidden] of Object.entries(ctx.state.probeRequests)) {
    const view = ctx.data.snapshot.gates.find((g) => g.qid === qid);
    if (view && view.state === "met") items.push({ kind: "probe", qid, hidden, view });
  }
  for (const r of removedGates(ctx.data.snapshot)) items.push({ kind: "removed", ...r });
  return items;
}

function removedDetail(t: RemovedGate): DetailLine[] {
  return [
    { label: "removed", value: `${t.qid}  (${t.where})`, wrap: true },
    {
      label: "why",
      value:
        "kbz holds a record of this gate (an approval or evidence it attested), and the gate is gone: an agent cannot make a gate vanish, so it blocks ALL MET until a person confirms",
      wrap: true,
    },
    {
      label: "confirm",
      value: `it is gone on purpose: kbz forgets its records, as ${kbz("approvals prune")} does (for this gate only)`,
      wrap: true,
    },
    { label: "else", value: "put the gate back in its ledger, or mark it ABANDON there", tone: "muted", wrap: true },
    { label: "", value: "a: confirm the removal (y confirms; nothing else changes)", tone: "info", wrap: true },
  ];
}

export function approvalDetail(ctx: BaseCtx, t: ApprovalItem | undefined, declined: boolean): DetailLine[] {
  if (!t) return [];
  if (t.kind === "removed") return removedDetail(t);
  const tail: DetailLine = {
    label: "",
    value: declined
      ? "declined: it will not run (a approves it after all)"
      : "a: approve (y confirms; runs nothing) · d: decline",
    tone: declined ? "warn" : "info",
    wrap: true,
  };
  if (t.kind === "probe") {
    const g = t.view.gate;
    return [
      { label: "probe", value: `${t.qid}  ${g.title}`, wrap: true },
      { label: "CHECK", value: g.check ?? "", wrap: true },
      { label: "EXPECT", value: g.expect ?? "", wrap: true },
      { label: "hides", value: t.hidden.join(", ") || "(nothing)", wrap: true },
      {
        label: "what",
        value:
          "the probe runs this CHECK again with these paths hidden; it never writes evidence (a approves and probes)",
        wrap: true,
      },
      tail,
    ];
  }
  const task = t.task;
  const v = approvalViewOf(ctx.data.approvals, task, ctx.data.snapshot.target.root, ctx.data.snapshot);
  if (!v) {
    return [
      { label: "gate", value: `${task.qid}  ${task.gate.title}`, wrap: true },
      { label: "CHECK", value: task.gate.check ?? "", wrap: true },
      { label: "EXPECT", value: task.gate.expect ?? "", wrap: true },
      { label: "CWD", value: cwdShown(task), wrap: true },
      tail,
    ];
  }
  return [...oracleLines(v), tail];
}

/** i27's approval view as detail lines: the whole oracle, then what changed since the last approval. */
export function oracleLines(v: ApprovalView): DetailLine[] {
  const fileText = (f: ApprovalView["files"][number]) =>
    `${f.key}${f.via ? ` (${f.via})` : ""}${f.problem ? ` [${f.problem}]` : ""}`;
  const lines: DetailLine[] = [
    { label: "gate", value: `${v.qid}  ${v.title}`, wrap: true },
    { label: "CHECK", value: v.check, wrap: true },
    { label: "EXPECT", value: v.expect, wrap: true },
    { label: "CWD", value: v.cwd, wrap: true },
    { label: "shell", value: v.shell, wrap: true },
    { label: "PATH", value: v.path.value, wrap: true },
  ];
  if (v.sandbox) lines.push({ label: "sandbox", value: v.sandbox, wrap: true });
  lines.push({
    label: "files",
    value: v.files.length === 0 ? "none (the CHECK text is the whole oracle)" : v.files.map(fileText).join("\n"),
    tone: v.files.length === 0 ? "muted" : undefined,
    wrap: true,
    block: v.files.length > 0,
  });
  lines.push({
    label: "ENV",
    value:
      v.env.length === 0
        ? "no names bound (kbz's allow-list only)"
        : v.env.map((e) => (e.set ? e.name : `${e.name} (unset)`)).join(", "),
    tone: v.env.length === 0 ? "muted" : undefined,
    wrap: true,
  });
  lines.push({
    label: "work",
    value:
      v.work.from === "none"
        ? "not declared (the probe hides what differs from git HEAD)"
        : `${v.work.paths.join(", ")} (${v.work.from})`,
    tone: v.work.from === "none" ? "muted" : undefined,
    wrap: true,
  });
  lines.push({
    label: "lint",
    value:
      v.lint.length === 0
        ? "no findings"
        : v.lint
            .map((f) => `${f.level === "error" ? "ERROR" : "warning"} ${f.rule} (line ${f.line}): ${f.message}`)
            .join("\n"),
    tone: v.lint.length === 0 ? "muted" : v.lint.some((f) => f.level === "error") ? "bad" : "warn",
    wrap: true,
    block: v.lint.length > 0,
  });
  if (!v.lastApproval) {
    lines.push({ label: "changed", value: "never approved before", tone: "muted", wrap: true });
    return lines;
  }
  const changed = [`since the approval of ${v.lastApproval.approvedAt.slice(0, 10)}:`, ...v.lastApproval.differs];
  if (v.lastApproval.note) changed.push(v.lastApproval.note);
  lines.push({ label: "changed", value: changed.join("\n"), tone: "warn", wrap: true, block: true });
  for (const d of v.diffs)
    lines.push({
      label: "diff",
      value: (d.from === "git" ? [`${d.file} (from git HEAD):`, ...d.lines] : d.lines).join("\n"),
      tone: "warn",
      wrap: true,
      block: true,
    });
  return lines;
}

function approvalRow(t: ApprovalItem, active: boolean, ctx: PanelCtx) {
  const { theme, width, state } = ctx;
  const off = state.declined.includes(declineKey(t));
  const narrow = width < NARROW;
  const label = off
    ? narrow
      ? "–"
      : "DECLINED"
    : t.kind === "probe"
      ? narrow
        ? "P"
        : "PROBE?"
      : t.kind === "removed"
        ? narrow
          ? "R"
          : "REMOVED?"
        : narrow
          ? "?"
          : "APPROVE?";
  const labelW = narrow ? 2 : 10;
  const qid = approvalQid(t);
  const idW = Math.min(cols(qid) + 1, narrow ? width - labelW - 2 : 24);
  const what =
    t.kind === "check"
      ? (t.task.gate.check ?? "")
      : t.kind === "probe"
        ? `hides ${t.hidden.length} path(s)`
        : `${t.where}: confirm it is gone on purpose`;
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{active ? "›" : " "} </Text>
      <Text color={theme.tone(off ? "muted" : t.kind === "removed" ? "bad" : "warn")}>{pad(label, labelW)}</Text>
      <Text bold>{pad(qid, idW)}</Text>
      <Text>{fit(what, Math.max(0, width - 2 - labelW - idW))}</Text>
    </Text>
  );
}

export const approvalsPanel: PanelDef<ApprovalItem> = {
  id: "approvals",
  spec: {
    id: approvalId,
    text: (t) =>
      t.kind === "check" ? `${t.task.qid} ${t.task.gate.title} ${t.task.gate.check ?? ""}` : `${t.kind} ${t.qid}`,
    done: () => false,
  },
  items: approvalItems,
  problem: (data) => data.approvals.problem,
  empty: () => "nothing to approve: every runnable gate's check is approved, and no gate was removed",
  row: approvalRow,
  summary: (t, ctx) => approvalDetail(ctx, t, ctx.state.declined.includes(declineKey(t))),
  full: (t, ctx) => ({
    title: t.kind === "removed" ? `Confirm that ${t.qid} was removed on purpose?` : `Approve ${approvalQid(t)}?`,
    lines: approvalDetail(ctx, t, ctx.state.declined.includes(declineKey(t))),
  }),
  kind: (t) => t.kind,
};
