// What to do about each review item `kbz next` raises: the way out, in one line. Shown under the
// item (text) and in `reviewHints` (JSON); skill/references/orchestration.md says the same.
import type { Attention } from "./advise.ts";
import { kbz, placeholder as ph } from "../text/command.ts";
import { leafStem } from "../plan/leaf-id.ts";

export function reviewHint(a: Attention, scope: string): string {
  const w = a.wave ?? ph("W");
  const leafText = a.leaf !== undefined ? leafStem(a.leaf) : "LEAF";
  const leaf = a.leaf !== undefined ? leafText : ph("LEAF");
  const ledger = `.unlazy/${scope}/gates/${leafText}.md`;
  switch (a.reason) {
    case "resume-open-wave":
      return `record the missing steps (${kbz("wave start", { scope, wave: w, leaf: ph("L"), handle: ph("H") })}, then ${kbz("wave seal", { scope, wave: w })}), or give the wave up: ${kbz("wave abandon", { scope, wave: w, reason: ph("TEXT") })}`;
    case "resume-abandoned-wave":
      return `an abandoned wave is a handoff and stays one: stop and tell the user (${kbz("wave status", { scope, wave: w })} shows the reason); nothing more can be launched in this scope until they decide`;
    case "handoff":
      return `a gate or row of ${leafText} was abandoned: that is a handoff; stop and tell the user`;
    case "verified-ledger-not-met":
      return `${leafText} is VERIFIED but its ledger is not ALL MET: run ${kbz("check", {}, ledger)}, or send it back to READY and dispatch it again`;
    case "verified-before-dependency":
      return `${leafText} is VERIFIED before what it needs: send it back to READY until its needs are VERIFIED`;
    case "verified-before-return":
      return `${leafText} is VERIFIED while its wave start has no return: ${kbz("wave return", { scope, wave: ph("W"), leaf })} once the agent has stopped`;
    case "external-or-invalid-lease-needs-review":
      return `a lease of another scope or a corrupt record overlaps this plan: once no agent relies on it, ${kbz("scope release", { scope: ph("ITS_SCOPE") })} (corrupt records: ${kbz("scope release", { invalid: true })})`;
    case "unknown-lease-owner":
      return `a lease of scope ${scope} names no leaf of the plan: once no agent relies on it, ${kbz("scope release", { scope, leaf: ph("THAT_LEAF") })}`;
    case "lease-ownership-mismatch":
      return `${leafText}'s lease no longer matches its Owns: ${kbz("scope release", { scope, leaf })}, then claim it again`;
    case "vacuous-gate":
      return `${leafText}'s gate ${a.gate ?? "G"} still passed with ${shortHidden(a.hidden ?? [])} hidden: re-write its CHECK so it observes its deliverable, then ${kbz("check", { probe: true }, ledger)} again`;
    default:
      return a.reason.startsWith("verification-")
        ? `the receipt of ${leafText} is not current: ${kbz("verify explain", {}, ledger)} says why; ${kbz("verify run")} makes it current`
        : `review the item, then run ${kbz("next")} again`;
  }
}

/** The hidden paths, at most three named (repository text: sanitized by the renderer's output). */
function shortHidden(hidden: string[]): string {
  if (hidden.length === 0) return "its deliverable";
  const shown = hidden.slice(0, 3).join(", ");
  return hidden.length > 3 ? `${shown} and ${hidden.length - 3} more` : shown;
}
