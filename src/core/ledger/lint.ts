// Ledger-quality rules (docs/formats.md#lint), advisory warnings plus kbz's errors for oracles that cannot
// fail (issue 20.9: a swallowed exit status, an EXPECT matching empty or zero-test output).
// Lexical signals only; nothing executes.
import type { Gate, Ledger } from "./model.ts";
import { isRunnable } from "./model.ts";
import { oracleRefs } from "../run/oracle-files.ts";

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
  "ok okay done pass passed success successful succeeded complete completed finished yes true 0 good fine working".split(
    " ",
  ),
);

const ACTIVITY_PREFIXES = [
  "work on",
  "working on",
  "improve",
  "enhance",
  "handle",
  "support",
  "ensure",
  "make sure",
  "try",
  "attempt",
  "look at",
  "look into",
  "investigate",
  "consider",
  "review",
  "refactor",
  "clean up",
  "cleanup",
  "polish",
  "update",
  "tidy",
  "address",
  "deal with",
  "add support",
];
const ACTIVITY = new RegExp(`^(?:${ACTIVITY_PREFIXES.map((p) => p.replace(/ /g, "\\s+")).join("|")})\\b`, "i");

// A CHECK whose last command swallows the exit status passes whatever the first part did.
const SWALLOWED_EXIT = /(?:\|\||;|\n)\s*(?:true|:|exit(?:\s+0)?)\s*;?\s*$/;

// What test runners print for a run of zero tests: an EXPECT any of these contains passes on an
// empty or mis-selected suite.
const ZERO_TEST_RUNS = [
  "TAP version 13\n1..0\n# tests 0\n# suites 0\n# pass 0\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 5\n",
  "bun test v1.0.0\n\n 0 pass\n 0 fail\nRan 0 tests across 0 files. [5.00ms]\n",
  "Test Suites: 0 total\nTests:       0 total\nSnapshots:   0 total\nTime:        0.1 s\nNo tests found, exiting with code 0\n",
  "\n  0 passing (1ms)\n\n",
  "============================= no tests ran in 0.01s =============================\n",
  "ok  \texample.com/pkg\t0.001s [no tests to run]\nPASS\n",
  "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
];

/** Whether EXPECT (substring or /regex/) is satisfied by `text`; an unusable regex never matches. */
function expectMatches(g: Gate, text: string): boolean {
  if (!g.expectRegex) return g.expect !== null && g.expect !== "" && text.includes(g.expect);
  if (g.expectRegex.source.length > 200) return false;
  try {
    return new RegExp(g.expectRegex.source, g.expectRegex.flags.replace(/[gy]/g, "")).test(text);
  } catch {
    return false;
  }
}

function gateFindings(g: Gate): LintFinding[] {
  const out: LintFinding[] = [];
  const add = (rule: string, message: string, level: LintLevel = "warn") =>
    out.push({ level, gate: g.id, rule, message, line: g.line });
  if (g.check !== null && FIXED_OUTPUT.test(g.check.trim())) {
    add(
      "tautological-check",
      `CHECK looks like a fixed-output command: "${g.check}"; use an oracle that observes the named outcome`,
    );
  }
  const weak = g.expect !== null && WEAK_EXPECT.has(g.expect.trim().toLowerCase());
  if (weak) {
    add(
      "weak-expect",
      `EXPECT "${g.expect}" is a common word that also appears in failure output; expect a marker only success prints`,
    );
  }
  if (g.check !== null && SWALLOWED_EXIT.test(g.check)) {
    add(
      "check-cannot-fail",
      `CHECK ends by discarding the exit status ("${g.check}"); a failing command still passes. Remove the trailing || true / ; true / ; exit 0`,
      "error",
    );
  }
  if (g.expectRegex && expectMatches(g, "")) {
    add(
      "expect-matches-empty",
      `EXPECT ${g.expect} matches empty output, so any run that exits 0 passes; expect a marker only success prints`,
      "error",
    );
  } else if (!weak && g.expect !== null && ZERO_TEST_RUNS.some((run) => expectMatches(g, run))) {
    add(
      "expect-matches-zero-tests",
      `EXPECT ${JSON.stringify(g.expect)} is printed by a run of zero tests too; expect a count of tests that ran (e.g. /# pass [1-9]/)`,
      "error",
    );
  }
  if (g.pathLike) {
    add(
      "path-read-as-regex",
      `EXPECT "${g.expect}" looks like a literal path but is read as a regular expression; escape the inner slashes or drop the wrapping slashes`,
    );
  }
  if (g.check === null) {
    add("manual-gate", "no CHECK, so this outcome is judged by hand and its evidence is only as good as the reader");
    if (/[0-9]/.test(g.title)) {
      add(
        "unmeasured-number",
        `title "${g.title}" states a number that nothing measures; add a CHECK that measures it`,
      );
    }
  }
  if (g.check !== null && g.oracle === null) {
    const runners = oracleRefs(g.check).runners;
    if (runners.length > 0) {
      add(
        "runner-without-oracle",
        `CHECK runs a test runner (${runners.join(", ")}) but names no ORACLE:, so an edited test file or runner config keeps its approval; add e.g. ORACLE: test/**, vitest.config.ts`,
      );
    }
  }
  if (ACTIVITY.test(g.title)) {
    add(
      "activity-not-outcome",
      `title "${g.title}" names an activity, not an outcome; state the result someone can observe`,
    );
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
