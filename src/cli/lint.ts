// kbz lint: advisory ledger-quality findings (docs/formats.md#lint). Never executes a CHECK.
import { UsageError } from "../core/errors.ts";
import { kbz } from "../core/text/command.ts";
import { ledgersToLint, lintFiles, type LintFinding } from "../ops/lint.ts";
import { escapeField, terminalJson } from "../core/text/sanitize.ts";
import { runProbeVerb } from "./probe.ts";
import { envelope, INVALID, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { printProblems, raw } from "./output.ts";
import { rootFor, requestedScope } from "./context.ts";
import { positionals } from "./options.ts";

const MAX_STORED = 64;
const MAX_JSON = 256 * 1024;

interface StoredFinding {
  file: string;
  level: string;
  gate: string | null;
  rule: string;
  message: string;
  line: number;
}

function kept(file: string, f: LintFinding): StoredFinding {
  return {
    file: escapeField(file, 512),
    level: escapeField(f.level, 16),
    gate: f.gate === null ? null : escapeField(f.gate, 128),
    rule: escapeField(f.rule, 64),
    message: escapeField(f.message, 1024),
    line: f.line,
  };
}

export function runLint(files: string[], strict: boolean, asJson: boolean): ExitCode {
  if (files.length === 0)
    throw new UsageError("lint needs at least one ledger file", {
      hint: `name a ledger, or run ${kbz("lint")} with no argument to lint the ledgers ${kbz("status")} finds`,
    });
  let errors = 0;
  let warnings = 0;
  let parseFailed = false;
  const stored: StoredFinding[] = [];
  const order: string[] = [];
  for (const linted of lintFiles(files, process.cwd())) {
    const shown = linted.file;
    order.push(shown);
    if (linted.problems.length > 0) {
      parseFailed = true;
      printProblems(linted.problems.map((p) => ({ ...p, file: escapeField(shown, 512) })));
      for (const p of linted.problems) {
        errors++;
        if (stored.length < MAX_STORED)
          stored.push(kept(shown, { level: "error", gate: null, rule: "parse", message: p.message, line: p.line }));
      }
      continue;
    }
    for (const finding of linted.findings) {
      if (finding.level === "error") errors++;
      else warnings++;
      if (stored.length < MAX_STORED) stored.push(kept(shown, finding));
    }
  }
  const failed = parseFailed || errors > 0 || (strict && warnings > 0);
  const omitted = errors + warnings - stored.length;
  const exit = parseFailed ? 2 : failed ? 1 : 0;
  if (asJson) {
    // Parse problems are the envelope's errors; findings are the verb's own (counts: all of them).
    const problems = stored
      .filter((f) => f.rule === "parse")
      .map((f) => ({
        file: f.file,
        line: f.line,
        message: f.message,
        hint: `fix the ledger line, then run ${kbz("lint")} again`,
      }));
    const body = {
      ok: !failed,
      counts: { errors, warnings },
      findings: stored.slice(),
      truncated: omitted > 0,
      omittedFindings: omitted,
    };
    const make = () => envelope(parseFailed ? INVALID : failed ? "findings" : "ok", exit, body, problems);
    let text = terminalJson(make());
    while (text.length > MAX_JSON && body.findings.length > 0) {
      body.findings.pop();
      body.truncated = true;
      body.omittedFindings++;
      text = terminalJson(make());
    }
    raw(text + "\n");
  } else {
    const lines: string[] = [];
    for (const file of order) {
      // Parse problems were already printed as <file>:<line>: lines on stderr.
      const mine = stored.filter((s) => s.file === escapeField(file, 512) && s.rule !== "parse");
      if (mine.length === 0) continue;
      lines.push(escapeField(file, 512));
      for (const s of mine) {
        const tag = s.level === "error" ? "ERROR" : "WARN ";
        lines.push(`  ${tag} ${s.gate ?? "-"}: ${s.message}  [${s.rule}]`);
      }
    }
    if (omitted > 0) lines.push(`... [report truncated: ${omitted} finding(s) omitted]`);
    if (errors === 0 && warnings === 0 && !parseFailed) lines.push("LINT OK");
    else if (!failed) lines.push(`LINT OK (${warnings} warning(s))`);
    else lines.push(`LINT FINDINGS: ${errors} error(s), ${warnings} warning(s)`);
    raw(lines.join("\n") + "\n");
  }
  return parseFailed ? 2 : failed ? 1 : 0;
}

/** No ledger named: the ledgers `kbz status` would judge, as paths relative to here. */
function discoveredLedgers(argv: { root?: string; scope?: string }): string[] {
  return ledgersToLint(rootFor(argv), requestedScope(argv), process.cwd());
}

export const verb: Verb = {
  command: "lint [ledger..]",
  describe: "audit gate quality: fixed-output oracles, weak EXPECTs, manual numbers, activity titles",
  builder: (y) =>
    y
      .positional("ledger", {
        type: "string",
        array: true,
        describe: `ledger files (default: the ledgers ${kbz("status")} finds)`,
      })
      .option("scope", { type: "string", describe: "use .unlazy/ID (or UNLAZY_SCOPE)", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("strict", { type: "boolean", describe: "warnings fail too (exit 1)" })
      .option("probe", {
        type: "boolean",
        describe: `also run the vacuity probe on passed gates (as ${kbz("check", { probe: true })}; needs its approval)`,
      })
      .option("approve", { type: "boolean", describe: "with --probe: approve each probe oracle, then run it" })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: async (argv) => {
    // No ledger named: lint what status would judge (the probe keeps its own discovery and CHECK directories).
    const given = positionals(argv);
    const ledgers = given.length > 0 ? given : discoveredLedgers(argv);
    if (!argv.probe) return runLint(ledgers, !!argv.strict, !!argv.json);
    // The text rules cannot see a CHECK that ignores its target; the probe can (issue 18).
    const lint = argv.json ? 0 : runLint(ledgers, !!argv.strict, false);
    if (lint === 2) return lint;
    const files = positionals(argv);
    const probe = await runProbeVerb({
      root: process.cwd(),
      files,
      scope: null,
      approve: !!argv.approve,
      asJson: !!argv.json,
    });
    return Math.max(lint, probe) as 0 | 1 | 2;
  },
};
