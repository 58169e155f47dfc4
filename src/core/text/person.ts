// The one line an agent shows its person when a verb ends needing them (issue 43): what is pending
// (oracles to approve, probes, manual gates to sign) and the command(s) for it, run in the person's
// own terminal. Once `kbz approve` with no argument covers the solo ledgers, every scope, the probes
// and the sign-offs in one run (enforce's rewrite, issue 39), APPROVE_COVERS_ALL turns on and the
// line names that one command; until then it names the commands that do each part today.
import { kbz, placeholder as ph } from "./command.ts";
import { plural } from "./plural.ts";

/** `kbz approve` (no argument) handles approvals, probes and sign-offs of every ledger in one run. */
export const APPROVE_COVERS_ALL = false;

export interface Signoff {
  qid: string;
  ledger: string; // root-relative
  gate: string;
}

export interface PersonPending {
  /** Each oracle waiting for approval: its scope, or null and its ledger (root-relative) when solo. */
  approvals: { scope: string | null; ledger: string }[];
  probes: number;
  /** The probe's target as arguments (`GATES.md`, or `--scope S`). */
  probeTarget?: string[];
  signoffs: Signoff[];
}

/** `PERSON: 2 oracles to approve, 1 sign-off (N2); in their terminal: kbz approve`, or null. */
export function personLine(p: PersonPending): string | null {
  const parts = [
    p.approvals.length > 0 ? `${plural(p.approvals.length, "oracle")} to approve` : "",
    p.probes > 0 ? `${plural(p.probes, "probe")} to approve` : "",
    p.signoffs.length > 0
      ? `${plural(p.signoffs.length, "sign-off")} (${shortList(p.signoffs.map((s) => s.qid))})`
      : "",
  ].filter((x) => x !== "");
  if (parts.length === 0) return null;
  return `PERSON: ${parts.join(", ")}; in their terminal: ${commands(p).join("; ")}`;
}

function commands(p: PersonPending): string[] {
  if (APPROVE_COVERS_ALL) return [kbz("approve")];
  const targets = [
    ...new Set(
      p.approvals.map((a) => (a.scope === null ? kbz("approve", a.ledger) : kbz("approve", { scope: a.scope }))),
    ),
  ];
  return [
    ...targets,
    ...(p.probes > 0
      ? [`${kbz("check", { probe: true, approve: true })}${(p.probeTarget ?? []).map((w) => ` ${w}`).join("")}`]
      : []),
    ...p.signoffs.map((s) => kbz("sign", s.ledger, s.gate, { evidence: ph('"..."') })),
  ];
}

function shortList(ids: string[]): string {
  return ids.length > 4 ? `${ids.slice(0, 4).join(", ")}, +${ids.length - 4} more` : ids.join(", ");
}
