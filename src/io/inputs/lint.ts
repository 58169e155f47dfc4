// Lint findings that need the file system (issue 28 item 7): a gate whose INPUTS match more files
// than the cap, or with an entry that matches no regular file (issue 39), can never be met, so
// `kbz lint` says so as an error, as check and status do.
import * as path from "node:path";
import type { LintFinding } from "../../core/ledger/lint.ts";
import type { Ledger } from "../../core/ledger/model.ts";
import { ledgerBase } from "../../core/workspace/inside.ts";
import { expandInputs, inputsUnmatched, TOO_MANY_INPUTS } from "./expand.ts";

export function inputFindings(file: string, ledger: Ledger): LintFinding[] {
  const base = ledgerBase(file);
  const out: LintFinding[] = [];
  for (const g of ledger.gates) {
    if (!g.inputs) continue;
    const cwd = g.cwd ? path.resolve(base, g.cwd) : base;
    const e = expandInputs(cwd, g.inputs);
    if (e.truncated)
      out.push({ level: "error", gate: g.id, rule: "inputs-cap", message: TOO_MANY_INPUTS, line: g.line });
    // Issue 39: an entry that covers nothing binds nothing, so the gate can never be met.
    else if (e.unmatched.length > 0)
      out.push({
        level: "error",
        gate: g.id,
        rule: "inputs-unmatched",
        message: inputsUnmatched(e.unmatched),
        line: (g.attrIndex.INPUTS ?? g.line - 1) + 1,
      });
  }
  return out;
}
