// The scope picker's rows: each scope's verdict and counts, read with the status reader.
import { verdictLines } from "../core/ledger/state.ts";
import { statusReport } from "../core/report.ts";
import { loadSnapshot } from "./snapshot.ts";
import { resolveTarget } from "../io/discover.ts";

export interface ScopeSummary {
  scope: string;
  verdict: string; // ALL MET (3 met) / UNMET: 2 (met: 1) / INVALID (1 problem)
  tone: "ok" | "bad" | "accent";
  met: number;
  gates: number;
}

export function problemsText(n: number): string {
  return `INVALID (${n} ${n === 1 ? "problem" : "problems"})`;
}

export function scopeSummary(root: string, scope: string): ScopeSummary {
  try {
    const snap = loadSnapshot(resolveTarget({ root, scope }));
    if (snap.problems.length > 0)
      return { scope, verdict: problemsText(snap.problems.length), tone: "bad", met: 0, gates: snap.gates.length };
    const { report, reduction } = statusReport(snap);
    return {
      scope,
      verdict: verdictLines(reduction, "", null, false)[0] ?? "",
      tone: report.verdict === "all-met" ? "ok" : report.verdict === "handoff" ? "accent" : "bad",
      met: report.counts.met,
      gates: report.counts.gates,
    };
  } catch (e) {
    if (e instanceof Error) return { scope, verdict: `cannot read: ${e.message}`, tone: "bad", met: 0, gates: 0 };
    throw e;
  }
}
