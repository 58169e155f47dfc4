// Ledger-quality rules (docs/formats.md#lint), advisory warnings plus kbz's errors for gates that
// cannot fail (a fixed-output CHECK, a swallowed exit status, an EXPECT matching empty or zero-test
// output or printed by the CHECK's own echo) and for attribute lines kbz would ignore (`check:`,
// `INPUT:`: the gate would silently turn manual). Lexical signals only; nothing executes.
import type { Gate, Ledger } from "./model.ts";
import { isRunnable } from "./model.ts";
import { ATTR_KEYS, isFenceClose, mayOpenFence, type Fence } from "./parse.ts";
import { distance, nearest } from "../plan/leaf-id.ts";
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

/**
 * The runner warning, saying what the approval does bind (the same binding `kbz check` and
 * `kbz approve` list), so lint and check never disagree (issue 44 item 7: lint said an edited test
 * "keeps its approval" while check listed `package.json#scripts.test, test.js` as bound).
 */
const SCRIPT_ALIAS = /^(?:npm|pnpm|yarn|bun) (?:test|run \S+)$/;

function runnerMessage(runners: string[], bound: string[] | null): string {
  const binds =
    bound === null
      ? "its approval binds the files the CHECK names"
      : bound.length > 0
        ? `its approval binds ${bound.slice(0, 6).join(", ")}${bound.length > 6 ? `, … (${bound.length})` : ""}`
        : "its approval binds no file";
  return `CHECK runs a test runner (${runners.join(", ")}); ${binds}, but a test or config file the runner finds by itself is bound only when ORACLE: names it; add e.g. ORACLE: test/**, vitest.config.ts`;
}

function gateFindings(g: Gate, bound?: LintContext["bound"]): LintFinding[] {
  const out: LintFinding[] = [];
  const add = (rule: string, message: string, level: LintLevel = "warn") =>
    out.push({ level, gate: g.id, rule, message, line: g.line });
  if (g.check !== null && FIXED_OUTPUT.test(g.check.trim())) {
    add(
      "tautological-check",
      `CHECK looks like a fixed-output command: "${g.check}"; use an oracle that observes the named outcome`,
      "error",
    );
  } else if (g.check !== null && g.expect !== null && printsOwnExpect(g)) {
    add(
      "expect-printed-by-check",
      `EXPECT ${JSON.stringify(g.expect)} is printed by the CHECK's own echo and the CHECK ends with exit status 0 whatever ran before, so it cannot fail; expect a marker only the program under test prints`,
      "error",
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
    // With the binding (ops/lint.ts), the runners its scripts reach; a package manager's script
    // alias (npm test -> node test.js) binds what the script names, so it alone is no runner.
    const binding = bound?.(g) ?? null;
    const runners = binding ? binding.runners.filter((r) => !SCRIPT_ALIAS.test(r)) : oracleRefs(g.check).runners;
    if (runners.length > 0) add("runner-without-oracle", runnerMessage(runners, binding?.files ?? null));
  }
  if (ACTIVITY.test(g.title)) {
    add(
      "activity-not-outcome",
      `title "${g.title}" names an activity, not an outcome; state the result someone can observe`,
    );
  }
  return out;
}

/**
 * The CHECK's top-level commands and the operator before each ("" for the first), split on
 * `;`, `&&`, `||`, `|`, `&` and newlines outside quotes. Enough for the lexical rules below.
 */
function commands(check: string): { op: string; cmd: string }[] {
  const out: { op: string; cmd: string }[] = [];
  let quote = "";
  let cur = "";
  let op = "";
  for (let i = 0; i < check.length; i++) {
    const c = check[i]!;
    if (quote !== "") {
      if (c === "\\" && quote === '"') cur += c + (check[++i] ?? "");
      else {
        if (c === quote) quote = "";
        cur += c;
      }
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    if (c === "\\") {
      cur += c + (check[++i] ?? "");
      continue;
    }
    const two = check.slice(i, i + 2);
    const sep = two === "&&" || two === "||" ? two : c === ";" || c === "|" || c === "&" || c === "\n" ? c : "";
    if (sep === "") {
      cur += c;
      continue;
    }
    out.push({ op, cmd: cur.trim() });
    op = sep;
    cur = "";
    i += sep.length - 1;
  }
  out.push({ op, cmd: cur.trim() });
  return out.filter((c) => c.cmd !== "");
}

const ECHO = /^(?:echo|printf)(?:\s+(.*))?$/is;

/** What an echo/printf command prints, roughly: its arguments without quotes and echo's flags. */
function echoed(cmd: string): string | null {
  const m = ECHO.exec(cmd);
  if (!m) return null;
  const args = (m[1] ?? "").replace(/^(?:-[neE]+\s+)+/, "");
  return args.replace(/\\(.)/g, "$1").replace(/["']/g, "");
}

/**
 * The CHECK itself prints the EXPECT and its exit status is fixed, so the gate passes whether or
 * not the work was done: an echo/printf that always runs and writes to the output (not into a
 * pipe, not after `&&`/`||`) prints it, and the last command is a fixed-output one that always
 * runs (`node t.js; echo DONE_OK`, `node t.js | tee log; echo DONE_OK`).
 */
function printsOwnExpect(g: Gate): boolean {
  const cmds = commands(g.check!);
  // Pipelines bind tighter than && and ||: a command runs whatever came before when the pipeline
  // it ends starts the command line or follows ;, & or a newline.
  const always = (i: number): boolean => {
    while (i > 0 && cmds[i]!.op === "|") i--;
    return cmds[i]!.op !== "&&" && cmds[i]!.op !== "||";
  };
  const last = cmds.length - 1;
  if (last < 1 || !FIXED_OUTPUT.test(cmds[last]!.cmd) || !always(last)) return false;
  const printed: string[] = [];
  cmds.forEach((c, i) => {
    const text = echoed(c.cmd);
    if (text !== null && always(i) && cmds[i + 1]?.op !== "|") printed.push(text);
  });
  return printed.some((t) => expectMatches(g, t)) || expectMatches(g, printed.join("\n"));
}

// The untouched `kbz init` starter: its heading's placeholders and the template's example CHECKs
// name an outcome nobody asked for and scripts that do not exist.
const PLACEHOLDER = /<(?:what this task delivers|id|short name|scope|branch)>/;

/** Gates whose CHECK is one of the starter's examples (`starterChecks`), and a placeholder heading. */
function starterFindings(ledger: Ledger, live: Gate[], starterChecks: ReadonlySet<string>): LintFinding[] {
  const out: LintFinding[] = [];
  const heading = /^#[^\n]*$/m.exec(ledger.text);
  if (heading && PLACEHOLDER.test(heading[0])) {
    const line = ledger.text.slice(0, heading.index).split("\n").length;
    out.push({
      level: "error",
      gate: null,
      rule: "starter-placeholder",
      message: `line ${line}: the heading is still the starter's placeholder (${heading[0].trim()}); name what this task delivers`,
      line,
    });
  }
  for (const g of live) {
    if (g.check !== null && starterChecks.has(g.check)) {
      out.push({
        level: "error",
        gate: g.id,
        rule: "starter-example",
        message: `is the starter's example gate (CHECK: ${g.check}); replace it with an outcome of your task and a check that exists`,
        line: g.line,
      });
    }
  }
  return out;
}

/**
 * Indented lines under a gate that look like a misspelled attribute key (`check:`, `Expect:`,
 * `INPUT:`, `CHECK :`): kbz ignores them, so a gate silently loses its CHECK or INPUTS. Only a
 * single word of letters followed by a colon counts, and only when it is a known key in another
 * case, or near one (edit distance about a third of its length, four letters or more), so prose
 * under a gate (`  Note: …`) stays prose, as the originals read it.
 */
function unknownKeyFindings(ledger: Ledger): LintFinding[] {
  const out: LintFinding[] = [];
  const text = ledger.text;
  const gateAt = new Map(ledger.gates.map((g) => [g.line, g]));
  let current: Gate | null = null;
  let fence: Fence | null = null;
  let lineNo = 0;
  for (let s = 0; s < text.length; ) {
    const nl = text.indexOf("\n", s);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(s, end).replace(/\r$/, "");
    const at = s;
    s = end + 1;
    lineNo++;
    if (fence) {
      if (isFenceClose(text, at, at + line.length, fence)) fence = null;
      continue;
    }
    if (mayOpenFence(text, at, at + line.length)) {
      const open = /^ {0,3}(`{3,}|~{3,})(.*)$/s.exec(line);
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
        fence = { char: open[1]!.charCodeAt(0), length: open[1]!.length, line: lineNo };
        continue;
      }
    }
    const gate = gateAt.get(lineNo);
    if (gate) current = gate;
    else if (line.startsWith("#") || line.startsWith("- ")) current = null;
    if (!current || !(line.startsWith(" ") || line.startsWith("\t"))) continue;
    const m = /^[ \t]+([A-Za-z]+)([ \t]*):/.exec(line);
    if (!m) continue;
    const word = m[1]!;
    const upper = word.toUpperCase();
    const keys = ATTR_KEYS as readonly string[];
    if (word === upper && keys.includes(word) && m[2] === "") continue;
    let key: string | null = keys.includes(upper) ? upper : null;
    // A near miss: an uppercase word as far as `nearest` allows; in other cases one edit (`Input:`).
    if (key === null && upper.length >= 4) key = nearest(upper, keys);
    if (key === null || (word !== upper && distance(upper, key) > 1)) continue;
    const why = key === word ? "a space before the colon" : key === upper ? "keys are uppercase" : "a misspelled key";
    const lost = key === "CHECK" && current.check === null ? ", and the gate has no CHECK" : "";
    out.push({
      level: "error",
      gate: current.id,
      rule: "unknown-attribute",
      message: `line ${lineNo}: "${word}${m[2]}:" is not an attribute kbz knows (${why}), so the line is ignored${lost}; did you mean "${key}:"?`,
      line: lineNo,
    });
  }
  return out;
}

export interface LintContext {
  /** The CHECKs of `kbz init`'s starter ledger (a gate still using one is an error). */
  starterChecks?: ReadonlySet<string>;
  /**
   * What a gate's approval binds (file keys as `kbz approve` lists them) and the test runners the
   * CHECK reaches through package scripts, for the runner warning; null when it cannot be read.
   */
  bound?: (g: Gate) => { files: string[]; runners: string[] } | null;
}

/** Findings for one parsed, valid ledger, in line order, file-level findings last. */
export function lintLedger(ledger: Ledger, ctx: LintContext = {}): LintFinding[] {
  const live = ledger.gates.filter((g) => !ledger.abandons.has(g.id));
  const starterChecks = ctx.starterChecks ?? new Set<string>();
  const out = live.flatMap((g) => gateFindings(g, ctx.bound));
  out.push(...unknownKeyFindings(ledger), ...starterFindings(ledger, live, starterChecks));
  out.sort((a, b) => a.line - b.line);
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
