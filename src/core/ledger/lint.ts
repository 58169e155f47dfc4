// Advisory ledger-quality rules (docs/formats.md#lint). Lexical signals only; nothing executes.
import type { Gate, Ledger } from "./model.ts";
import { isRunnable } from "./model.ts";

export type LintLevel = "error" | "warn";

export interface LintFinding {
  level: LintLevel;
  gate: string | null;
  rule: string;
  message: string;
  line: number;
}

const FIXED_OUTPUT = /^(?:(?:echo|printf)(?:\s+[^&|;]*)?|true|:|exit\s+0)$/i;

const WEAK_EXPECT = new Set(
  "ok okay done pass passed success successful succeeded complete completed finished yes true 0 good fine working".split(" "),
);

const ACTIVITY_PREFIXES = [
  "work on", "working on", "improve", "enhance", "handle", "support", "ensure", "make sure", "try", "attempt",
  "look at", "look into", "investigate", "consider", "review", "refactor", "clean up", "cleanup", "polish",
  "update", "tidy", "address", "deal with", "add support",
];
const ACTIVITY = new RegExp(`^(?:${ACTIVITY_PREFIXES.map((p) => p.replace(/ /g, "\\s+")).join("|")})\\b`, "i");

function gateFindings(g: Gate): LintFinding[] {
  const out: LintFinding[] = [];
  const add = (rule: string, message: string) => out.push({ level: "warn", gate: g.id, rule, message, line: g.line });
  if (g.check !== null && FIXED_OUTPUT.test(g.check.trim())) {
    add("tautological-check", `CHECK looks like a fixed-output command: "${g.check}"; use an oracle that observes the named outcome`);
  }
  if (g.expect !== null && WEAK_EXPECT.has(g.expect.trim().toLowerCase())) {
    add("weak-expect", `EXPECT "${g.expect}" is a common word that also appears in failure output; expect a marker only success prints`);
  }
  if (g.pathLike) {
    add("path-read-as-regex", `EXPECT "${g.expect}" looks like a literal path but is read as a regular expression; escape the inner slashes or drop the wrapping slashes`);
  }
  if (g.check === null) {
    add("manual-gate", "no CHECK, so this outcome is judged by hand and its evidence is only as good as the reader");
    if (/[0-9]/.test(g.title)) {
      add("unmeasured-number", `title "${g.title}" states a number that nothing measures; add a CHECK that measures it`);
    }
  }
  if (ACTIVITY.test(g.title)) {
    add("activity-not-outcome", `title "${g.title}" names an activity, not an outcome; state the result someone can observe`);
  }
  return out;
}

/** Findings for one parsed, valid ledger, in gate order, file-level finding last. */
export function lintLedger(ledger: Ledger): LintFinding[] {
  const live = ledger.gates.filter((g) => !ledger.abandons.has(g.id));
  const out = live.flatMap(gateFindings);
  const runnable = live.filter(isRunnable).length;
  if (live.length > 0 && runnable / live.length < 0.5) {
    out.push({
      level: "warn",
      gate: null,
      rule: "mostly-manual",
      message: `only ${runnable} of ${live.length} live gates are runnable; most outcomes here are judged by hand`,
      line: 1,
    });
  }
  return out;
}
