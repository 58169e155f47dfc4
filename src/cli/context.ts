// The one place a verb learns where it runs: the repository root (walked up from the current
// folder), the scope (inferred when exactly one exists) and the output mode. Every verb calls
// these instead of reading --root, --scope, UNLAZY_SCOPE or process.cwd() itself.
import * as path from "node:path";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { matchLeaf, unknownLeafMessage } from "../core/plan/leaf-id.ts";
import { dispatchProblems, type Snapshot } from "../core/snapshot.ts";
import { statusSnapshot } from "../ops/status.ts";
import { rootOf, scopesOf } from "../ops/workspace.ts";
import { isValidId, SCOPE_ID_MESSAGE } from "../core/workspace/ids.ts";
import { printWarnings } from "./output.ts";
import { positionals } from "./options.ts";

export interface RootArgs {
  root?: string;
}

export interface ScopeArgs extends RootArgs {
  scope?: string;
}

export interface OutputArgs {
  json?: boolean;
  verbose?: boolean;
}

/** A usage error that says what to do next. */
export function usage(message: string, hint?: string): UsageError {
  return new UsageError(message, hint === undefined ? {} : { hint });
}

/**
 * `--root` as given (canonical), else the nearest folder at or above the current one that holds
 * `.unlazy/`, `GATES.md` or `gates/*.md`, else the git top level, else the current folder.
 */
export function rootFor(argv: RootArgs, cwd: string = process.cwd()): string {
  return rootOf(argv.root, cwd);
}

/** `--scope`, else UNLAZY_SCOPE: validated, not required to exist; null when neither is set. */
export function requestedScope(argv: ScopeArgs, env: Record<string, string | undefined> = process.env): string | null {
  const s = argv.scope ?? env.UNLAZY_SCOPE ?? null;
  if (s === null || s === "") return null;
  if (!isValidId(s))
    throw usage(SCOPE_ID_MESSAGE, `scope ids are folder names under .unlazy/; ${kbz("scope list")} shows them`);
  return s;
}

/** The requested scope, else the only scope under `.unlazy/`, else null (none or several). */
export function scopeFor(
  root: string,
  argv: ScopeArgs,
  env: Record<string, string | undefined> = process.env,
): string | null {
  const asked = requestedScope(argv, env);
  if (asked !== null) return asked;
  const scopes = scopesOf(root);
  return scopes.length === 1 ? scopes[0]! : null;
}

/** Like scopeFor, but a verb that cannot work without a scope says which ones exist. */
export function requireScope(
  root: string,
  argv: ScopeArgs,
  verb: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const scope = scopeFor(root, argv, env);
  if (scope !== null) return scope;
  const scopes = scopesOf(root);
  if (scopes.length === 0) {
    throw usage(
      `${verb} needs a scope and there is none under ${root}/.unlazy/`,
      `create one with ${kbz("init", { scope: ph("ID") })}, or pass --root`,
    );
  }
  throw usage(
    `${verb} needs --scope: ${scopes.length} scopes exist (${scopes.join(", ")})`,
    `pass --scope ${scopes[0]} (or set UNLAZY_SCOPE)`,
  );
}

/** Output mode: one JSON envelope, or short text (details only with --verbose). */
export function outputMode(argv: OutputArgs): { json: boolean; verbose: boolean } {
  return { json: !!argv.json, verbose: !!argv.verbose };
}

/**
 * A leaf id as typed (`1.1` or `leaf-1.1`) resolved against the ids a verb knows, in their
 * spelling; an unknown id is a usage error naming the nearest known one.
 */
export function leafFor(wanted: string, known: readonly string[], flag = "--leaf"): string {
  const m = matchLeaf(wanted, known);
  if (m.id !== null) return m.id;
  throw usage(
    `${flag}: ${unknownLeafMessage(wanted, known, m.suggestion)}`,
    m.suggestion !== null ? `use ${flag} ${m.suggestion}` : `${kbz("next")} lists the leaves of the scope`,
  );
}

export interface TargetArgs extends ScopeArgs {
  ledger?: string[];
  "--"?: string[];
}

/**
 * Explicit ledger files: relative to --root when it is given, else to the current folder (the
 * root found by walking up may lie above it).
 */
export function ledgerFiles(argv: TargetArgs, cwd: string = process.cwd()): string[] {
  const files = positionals(argv);
  return argv.root !== undefined ? files : files.map((f) => path.resolve(cwd, f));
}

/** The snapshot a gate verb (status, check --status, dash) reports on; file problems exit 2. */
export function snapshotFor(argv: TargetArgs, opts: { solo?: boolean } = {}): Snapshot {
  const files = ledgerFiles(argv);
  if (files.length > 0 && argv.scope !== undefined)
    throw usage("explicit ledger files cannot be combined with --scope", "pass either ledger files or --scope ID");
  const root = rootFor(argv);
  const snap = statusSnapshot({ root, files, scope: files.length > 0 ? null : requestedScope(argv), solo: opts.solo });
  if (snap.problems.length > 0) {
    printWarnings(snap.ledgers.flatMap((l) => l.warnings));
    throw new FileProblemsError(snap.problems);
  }
  const invalidDispatch = dispatchProblems(snap);
  if (invalidDispatch.length > 0) throw new FileProblemsError(invalidDispatch);
  return snap;
}
