// Files in, one immutable snapshot out. Reading never executes anything and never writes.
import * as path from "node:path";
import { UsageError, type FileProblem } from "./errors.ts";
import type { Gate, Ledger } from "./ledger/model.ts";
import { stemOf } from "./ledger/model.ts";
import { parseLedger } from "./ledger/parse.ts";
import { gateState, qualifiedId, type GateState } from "./ledger/state.ts";
import { MAX_LEDGER_BYTES, ReadError, decodeLedgerText, isInside, readStableWith } from "./workspace/read.ts";
import { canonicalRoot, resolveTarget, type Target } from "./workspace/discover.ts";
import { inputStaleness } from "./inputs/stale.ts";
import { dispatchPath, dispatchStatus, type DispatchAggregate } from "./dispatch/waves.ts";

export interface LedgerEntry {
  file: string; // absolute
  display: string; // as shown to people: relative to the root when inside it
  stem: string;
  ledger: Ledger | null; // null when unreadable or undecodable
  problems: FileProblem[]; // errors; non-empty means the ledger is invalid
  warnings: FileProblem[];
  unreadable: boolean;
}

export interface GateView {
  qid: string;
  file: string;
  gate: Gate;
  state: GateState;
  /** Set when the state has a reason beyond the ledger text (an INPUTS change). */
  reason?: string;
}

export interface Snapshot {
  target: Target;
  ledgers: LedgerEntry[];
  gates: GateView[];
  problems: FileProblem[]; // every error of every ledger plus discovery errors
  /** The scope's dispatch waves (unlazy §3.1.11 step 3); null without a scope or with discovery errors. */
  dispatch?: DispatchAggregate | null;
}

export function displayPath(root: string, file: string): string {
  return isInside(root, file) && file !== root ? path.relative(root, file) : file;
}

export function loadLedgerFile(file: string, root: string, constrainToRoot: boolean, realDirs?: Map<string, string>): LedgerEntry {
  const display = displayPath(root, file);
  const stem = stemOf(file);
  const fail = (line: number, message: string, unreadable: boolean): LedgerEntry => ({
    file,
    display,
    stem,
    ledger: null,
    problems: [{ file: display, line, message }],
    warnings: [],
    unreadable,
  });
  let decoded: ReturnType<typeof decodeLedgerText>;
  try {
    const opts = { label: "gate ledger", maxBytes: MAX_LEDGER_BYTES, root: constrainToRoot ? root : undefined, realDirs };
    decoded = readStableWith(file, opts, decodeLedgerText);
  } catch (e) {
    if (e instanceof ReadError) {
      const msg = e.code === "ENOENT" ? "no such gate file" : e.message;
      return fail(1, msg, true);
    }
    throw e;
  }
  if (!("text" in decoded)) return fail(decoded.line, decoded.message, true);
  const ledger = parseLedger(decoded.text, stem);
  return {
    file,
    display,
    stem,
    ledger,
    problems: ledger.errors.map((d) => (d.portable ? { file: display, line: d.line, message: d.message, portable: d.portable } : { file: display, line: d.line, message: d.message })),
    warnings: ledger.warnings.map((d) => ({ file: display, line: d.line, message: d.message })),
    unreadable: false,
  };
}

/** `load` lets a long-lived reader (the dashboard) reuse entries of files that did not change. */
export function loadSnapshot(target: Target, load: typeof loadLedgerFile = loadLedgerFile): Snapshot {
  const constrained = target.mode !== "explicit";
  const realDirs = new Map<string, string>();
  const ledgers = target.files.map((f) => load(f, target.root, constrained, realDirs));
  const gates: GateView[] = [];
  const problems: FileProblem[] = target.discoveryErrors.map((d) => ({
    file: displayPath(target.root, d.path),
    line: 1,
    message: d.message,
  }));
  for (const entry of ledgers) {
    problems.push(...entry.problems);
    const l = entry.ledger;
    if (!l || entry.problems.length > 0) continue;
    const stale = inputStaleness(target.root, entry.file, l, (g) => gateState(g, l) === "met");
    for (const g of l.gates) {
      const reason = stale.get(g.id);
      const view: GateView = { qid: qualifiedId(l, g), file: entry.file, gate: g, state: reason ? "stale-unmet" : gateState(g, l) };
      if (reason) view.reason = reason;
      gates.push(view);
    }
  }
  const dispatch = target.scope && target.discoveryErrors.length === 0 ? dispatchStatus(target.root, target.scope) : null;
  return { target, ledgers, gates, problems, dispatch };
}

export interface TargetRequest {
  root?: string; // default: the current directory
  files: string[]; // explicit ledgers; empty means discover
  scope?: string | null; // --scope, else the UNLAZY_SCOPE value the caller passes
}

/** Resolve what a command targets and load it (usage problems are thrown, file problems returned). */
export function snapshotForRequest(req: TargetRequest): Snapshot {
  if (req.files.length > 0 && req.scope) throw new UsageError("explicit ledger files cannot be combined with --scope");
  const root = canonicalRoot(req.root ?? process.cwd());
  const target = resolveTarget({ root, files: req.files, scope: req.files.length > 0 ? null : req.scope || null });
  if (target.mode === "none") {
    throw new UsageError(`no gate files found (looked for .unlazy/<scope>/, then GATES.md and gates/*.md under ${root})`);
  }
  return loadSnapshot(target);
}

/**
 * An invalid dispatch.json as a located problem (unlazy §3.1.11 step 3: scoped verdicts exit 2).
 * Kept out of `problems` because the Stop hook treats it as a blocking item, not a failure.
 */
export function dispatchProblems(snap: Snapshot): FileProblem[] {
  const scope = snap.target.scope;
  if (!snap.dispatch?.error || !scope) return [];
  const message = snap.dispatch.error.replace(/^invalid dispatch state: /, "");
  const file = displayPath(snap.target.root, dispatchPath(snap.target.root, scope));
  return [{ file, line: snap.dispatch.errorLine ?? 1, message: `invalid dispatch state for scope ${scope}: ${message}` }];
}
