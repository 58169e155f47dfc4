// The gate detail view (enter on a gate): everything about one gate in full: its CHECK,
// EXPECT and CWD, what its approval binds and whether one is on record, the whole evidence
// line, and the tail of its last run's output (from `kbz check` or the dashboard).
import type { LastRun } from "../ops/dashboardActs.ts";
import { kbz } from "../core/text/command.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { unmetReason } from "../core/ledger/state.ts";
import type { GateView } from "../core/snapshot.ts";
import type { GateApproval } from "../ops/dashboardActs.ts";
import type { DetailLine } from "./Detail.tsx";
import { GATE_LABEL, GATE_TONE } from "./theme.ts";

/** The last probe of a gate from this dashboard (p): its line and how it ended. */
export interface ProbeShown {
  line: string;
  tone: "ok" | "bad" | "warn" | "info";
}

/** `FAILED (exit 3)`, `STALE: …`, `MET`: the state as the list and `kbz status` name it. */
export function stateText(v: GateView): string {
  if (v.state === "failed") return `FAILED (${v.reason ?? "last run"})`;
  const why = v.reason ?? unmetReason(v.state);
  return `${GATE_LABEL[v.state]}${why ? `: ${why}` : ""}`;
}

export function gateFullLines(
  v: GateView,
  display: string,
  approval: GateApproval | { problem: string } | null,
  last: LastRun | null,
  probe: ProbeShown | null = null,
): DetailLine[] {
  const g = v.gate;
  const runnable = isRunnable(g);
  const lines: DetailLine[] = [
    { label: "gate", value: `${v.qid}  ${g.title}`, wrap: true },
    { label: "state", value: stateText(v), tone: GATE_TONE[v.state], wrap: true },
    {
      label: "ledger",
      value: `${display}:${g.line}  ${runnable ? "runnable (r runs it, R re-verifies)" : "manual (s signs it with evidence)"}`,
      wrap: true,
    },
  ];
  if (probe) lines.push({ label: "probe", value: probe.line, tone: probe.tone, wrap: true });
  else if (v.vacuous)
    lines.push({
      label: "probe",
      value: `VACUOUS: passed with its deliverable hidden (${v.vacuous.join(", ")})`,
      tone: "warn",
      wrap: true,
    });
  else if (runnable && v.state === "met")
    lines.push({ label: "probe", value: "none recorded (p probes it)", tone: "muted", wrap: true });
  if (g.check !== null) lines.push({ label: "CHECK", value: g.check, wrap: true });
  if (g.expect !== null) lines.push({ label: "EXPECT", value: g.expect, wrap: true });
  if (approval && "problem" in approval)
    lines.push({ label: "approval", value: `cannot tell: ${approval.problem}`, tone: "bad", wrap: true });
  else if (approval) {
    const o = approval.oracle;
    lines.push({ label: "CWD", value: o.cwd, wrap: true });
    lines.push({
      label: "approval",
      value: approval.approved
        ? "approved for exactly these bindings"
        : "not approved for these bindings (approve it from Approvals)",
      tone: approval.approved ? "ok" : "warn",
      wrap: true,
    });
    lines.push({ label: "shell", value: o.shell, wrap: true });
    lines.push({
      label: "timeout",
      value: `${o.timeoutMs / 1000}s, output at most ${o.maxOutputBytes} bytes, regex ${o.regexTimeoutMs} ms`,
      wrap: true,
    });
    lines.push({ label: "platform", value: o.platform });
    lines.push({ label: "PATH", value: o.path, wrap: true });
    lines.push({ label: "signature", value: approval.signature, wrap: true });
  }
  lines.push({ label: "EVIDENCE", value: g.evidence ?? "(none)", wrap: true });
  if (!last) {
    lines.push({
      label: "last run",
      value: runnable ? `none recorded (r runs it here; ${kbz("check")} records it too)` : "manual gates do not run",
      tone: "muted",
      wrap: true,
    });
    return lines;
  }
  const how = last.ok
    ? "passed"
    : `failed${last.error ? `: ${last.error}` : last.exitCode !== 0 && last.exitCode !== null ? `: exit ${last.exitCode}` : ": EXPECT did not match"}`;
  lines.push({
    label: "last run",
    value: `${how}  (${last.at}, ${(last.durationMs / 1000).toFixed(1)}s, exit ${last.exitCode ?? last.signal ?? "?"})`,
    tone: last.ok ? "ok" : "bad",
    wrap: true,
  });
  lines.push({
    label: "output",
    value:
      last.tail === ""
        ? "(no output)"
        : last.truncated
          ? `… (last ${last.tail.length} characters of ${last.bytes} bytes)\n${last.tail}`
          : last.tail,
    block: true,
  });
  return lines;
}
