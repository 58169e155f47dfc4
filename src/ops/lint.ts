// `kbz lint` as a use case: each ledger file read and parsed, then the text rules
// (core/ledger/lint.ts) and the INPUTS rules (io/inputs/lint.ts: the cap needs the file system).
// Never executes a CHECK. Options in, data out; cli/lint.ts prints (and stores at most so many).
import * as path from "node:path";
import { UsageError, type FileProblem } from "../core/errors.ts";
import { lintLedger, type LintFinding } from "../core/ledger/lint.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import type { Gate } from "../core/ledger/model.ts";
import { ledgerBase } from "../core/workspace/inside.ts";
import { canonicalRoot } from "../io/discover.ts";
import { gateOracle } from "../io/oracle/binding.ts";
import { findRoot } from "../io/root.ts";
import { resolveTarget } from "../io/discover.ts";
import { inputFindings } from "../io/inputs/lint.ts";
import { workOrOracleFindings } from "../io/oracle/lint.ts";
import { loadLedgerFile } from "../io/read.ts";
import { noLedgers } from "./snapshot.ts";
import { soloLedger } from "./init.ts";

let starter: Set<string> | null = null;

/** The example CHECKs of `kbz init`'s starter GATES.md: a gate still using one is a lint error. */
function starterChecks(): Set<string> {
  starter ??= new Set(parseLedger(soloLedger(), "GATES").gates.flatMap((g) => (g.check === null ? [] : [g.check])));
  return starter;
}

export type { LintFinding };

export interface LintedFile {
  /** The file as given. */
  file: string;
  /** Why it could not be parsed (then no findings). */
  problems: FileProblem[];
  findings: LintFinding[];
}

/** What each gate's approval binds (io/oracle gateOracle, as kbz approve lists it); null when it cannot be read. */
function boundKeys(file: string): (g: Gate) => { files: string[]; runners: string[] } | null {
  return (g) => {
    try {
      const base = ledgerBase(file);
      const root = findRoot(canonicalRoot(base));
      const b = gateOracle(root, file, g, { cwd: g.cwd ? path.resolve(base, g.cwd) : base });
      return { files: Object.keys(b.files), runners: b.runners };
    } catch {
      return null;
    }
  };
}

/** Lint each file (relative to `cwd`), in the order given. */
export function lintFiles(files: string[], cwd: string): LintedFile[] {
  return files.map((file) => {
    const abs = path.resolve(cwd, file);
    const entry = loadLedgerFile(abs, cwd, false);
    if (entry.problems.length > 0 || !entry.ledger) return { file, problems: entry.problems, findings: [] };
    return {
      file,
      problems: [],
      findings: [
        ...lintLedger(entry.ledger, { starterChecks: starterChecks(), bound: boundKeys(abs) }),
        ...inputFindings(abs, entry.ledger),
        ...workOrOracleFindings(findRoot(canonicalRoot(ledgerBase(abs))), abs, entry.ledger),
      ],
    };
  });
}

/** No ledger named: the ledgers `kbz status` would judge, relative to `cwd`. */
export function ledgersToLint(root: string, scope: string | null, cwd: string): string[] {
  const target = resolveTarget({ root, scope });
  if (target.mode === "none") throw noLedgers(root);
  for (const e of target.discoveryErrors) throw new UsageError(`${path.relative(cwd, e.path) || "."}: ${e.message}`);
  return target.files.map((f) => path.relative(cwd, f) || f);
}
