// Gate states and the completion reduction (docs/formats.md#ledger, docs/formats.md#check-run).
import type { Gate, Ledger } from "./model.ts";
import { isRunnable } from "./model.ts";
import { classifyEvidence } from "./evidence.ts";

/**
 * `failed` is never computed from a ledger: the reader sets it on an unchecked gate whose last run
 * of this very definition failed (io/check/failures.ts), so the person reads failure as failure.
 */
export type GateState =
  | "met"
  | "unmet"
  | "failed"
  | "stale-unmet"
  | "unmet-no-evidence"
  | "unattested"
  | "vacuous"
  | "abandoned";

/** The word each state is shown as, in `kbz status` and on the dashboard: the one label table. */
export const GATE_LABEL: Record<GateState, string> = {
  met: "MET",
  unmet: "UNMET",
  failed: "FAILED",
  "stale-unmet": "STALE",
  "unmet-no-evidence": "NO-EVIDENCE",
  unattested: "UNATTESTED",
  vacuous: "VACUOUS",
  abandoned: "ABANDONED",
};

export function gateState(g: Gate, ledger: Pick<Ledger, "abandons">): GateState {
  if (ledger.abandons.has(g.id)) return "abandoned";
  if (!g.checked) return "unmet";
  const cls = classifyEvidence(g);
  if (isRunnable(g)) return cls === "automatic-current" ? "met" : "stale-unmet";
  if (cls === "human") return "met";
  if (cls === "pending") return "unmet-no-evidence";
  return "stale-unmet";
}

/**
 * A gate's reason as it reads after its label: "STALE (oracle changed: a)" after STALE is
 * "oracle changed: a" (issue 44 item 7: the status line said STALE twice).
 */
export function reasonAfterLabel(label: string, reason: string): string {
  const l = label.trim();
  return reason.startsWith(`${l} (`) && reason.endsWith(")") ? reason.slice(l.length + 2, -1) : reason;
}

export function unmetReason(state: GateState): string {
  switch (state) {
    case "unmet":
      return "unchecked";
    case "failed":
      return "its last run failed";
    case "unmet-no-evidence":
      return "checked but EVIDENCE pending";
    case "stale-unmet":
      return "checked but automatic evidence is stale or unbound";
    case "unattested":
      return "UNATTESTED (kbz has no record of this evidence)";
    case "vacuous":
      return "VACUOUS (its CHECK passed with its deliverable hidden)";
    default:
      return "";
  }
}

export function qualifiedId(ledger: Pick<Ledger, "stem">, g: Gate): string {
  return `${ledger.stem}:${g.id}`;
}

export type Verdict = "all-met" | "unmet" | "handoff";

export interface Reduction {
  met: number;
  unmet: number;
  abandoned: number;
  unmetIds: string[];
  abandonedIds: string[];
  verdict: Verdict;
}

/**
 * Fold gate states plus extra blocking/abandoned items (dispatch waves, reverify
 * extras) into one verdict. `extras` are items that must also count against met.
 */
export function reduce(
  states: { qid: string; state: GateState }[],
  more: { blocking?: string[]; abandoned?: string[]; extras?: string[] } = {},
): Reduction {
  let met = 0;
  const unmetIds: string[] = [];
  const abandonedIds: string[] = [];
  for (const s of states) {
    if (s.state === "met") met++;
    else if (s.state === "abandoned") abandonedIds.push(s.qid);
    else unmetIds.push(s.qid);
  }
  const extras = more.extras ?? [];
  unmetIds.push(...extras, ...(more.blocking ?? []));
  abandonedIds.push(...(more.abandoned ?? []));
  met = Math.max(0, met - extras.length);
  const verdict: Verdict = abandonedIds.length > 0 ? "handoff" : unmetIds.length > 0 ? "unmet" : "all-met";
  return { met, unmet: unmetIds.length, abandoned: abandonedIds.length, unmetIds, abandonedIds, verdict };
}

function idList(ids: string[]): string {
  const shown = ids.slice(0, 12).join(", ");
  return ids.length > 12 ? `${shown}, +${ids.length - 12} more` : shown;
}

/** The verdict block exactly as unlazy prints it: verdict lines, each followed by its id list. */
export function verdictLines(r: Reduction, note = "", scope: string | null = null, withIds = true): string[] {
  const where = scope ? ` [scope ${scope}]` : "";
  if (r.verdict === "all-met") return [`ALL MET (${r.met} met${note})${where}`];
  const out: string[] = [];
  if (r.abandoned > 0) {
    out.push(
      `HANDOFF REQUIRED: ${r.abandoned} abandoned (met: ${r.met}${r.unmet ? `, unmet: ${r.unmet}` : ""}${note})${where}`,
    );
    if (withIds) out.push(`  ${idList(r.abandonedIds)}`);
  }
  if (r.unmet > 0) {
    out.push(`UNMET: ${r.unmet} (met: ${r.met}${r.abandoned ? `, abandoned: ${r.abandoned}` : ""}${note})${where}`);
    if (withIds) out.push(`  ${idList(r.unmetIds)}`);
  }
  return out;
}

export function verdictExit(r: Reduction): 0 | 1 {
  return r.verdict === "all-met" ? 0 : 1;
}
