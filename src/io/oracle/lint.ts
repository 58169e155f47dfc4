// Lint findings about the oracle/work split (issue 39; docs/formats.md#oracle-set): a file the
// CHECK runs, or a checker outside the test folders reaches, that no convention calls a test and
// nothing declares is bound as the oracle but unsure. `kbz lint` asks which it is.
import * as path from "node:path";
import type { LintFinding } from "../../core/ledger/lint.ts";
import type { Ledger } from "../../core/ledger/model.ts";
import { globRegex, matchesAny } from "../../core/run/conventions.ts";
import { ledgerBase } from "../../core/workspace/inside.ts";
import { gateOracle } from "./binding.ts";

export function workOrOracleFindings(root: string, file: string, ledger: Ledger): LintFinding[] {
  const base = ledgerBase(file);
  const owned = ledger.owns.map((o) => globRegex(o));
  const out: LintFinding[] = [];
  for (const g of ledger.gates) {
    if (!g.check) continue;
    let unsure: string[] = [];
    try {
      unsure = gateOracle(root, file, g, { cwd: g.cwd ? path.resolve(base, g.cwd) : base }).unsure;
    } catch {
      continue; // an ORACLE: that cannot be bound is reported by check and status
    }
    for (const key of unsure.filter((k) => !matchesAny(k, owned)).slice(0, 4)) {
      out.push({
        level: "warn",
        gate: g.id,
        rule: "work-or-oracle",
        message: `${key} is run by the CHECK and not declared: the work or the oracle? (WORK: ${key} if the agent writes it; ORACLE: ${key} if it checks)`,
        line: g.line,
      });
    }
  }
  return out;
}
