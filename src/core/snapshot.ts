// The status snapshot: the ledgers of a target, parsed, their gates and problems, and the scope's
// dispatch aggregate. Pure: io/read.ts reads the files (loadSnapshot) and hands the parts here.
import * as path from "node:path";
import type { FileProblem } from "./errors.ts";
import type { Gate, Ledger } from "./ledger/model.ts";
import { gateVerdicts, unattestedGates, vacuityReason, type Attestations, type TraceData } from "./trace.ts";
import { stemOf } from "./ledger/model.ts";
import { parseLedger } from "./ledger/parse.ts";
import { gateState, qualifiedId, type GateState } from "./ledger/state.ts";
import { isInside } from "./workspace/inside.ts";
import type { Target } from "./workspace/target.ts";
import { dispatchPath, type DispatchAggregate } from "./dispatch/waves.ts";

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
  /** Set when a probe found the gate VACUOUS (state `vacuous`): what was hidden. */
  vacuous?: string[];
}

export interface Snapshot {
  target: Target;
  ledgers: LedgerEntry[];
  gates: GateView[];
  problems: FileProblem[]; // every error of every ledger plus discovery errors
  /** The scope's dispatch waves (docs/formats.md#check-run); null without a scope or with discovery errors. */
  dispatch?: DispatchAggregate | null;
  /** Gates that held an approval or attested evidence and are gone (io/check/attested.ts): unmet until a person prunes them. */
  removed?: string[];
}

export function displayPath(root: string, file: string): string {
  return isInside(root, file) && file !== root ? path.relative(root, file) : file;
}

function entryFail(file: string, root: string, line: number, message: string): LedgerEntry {
  const display = displayPath(root, file);
  return {
    file,
    display,
    stem: stemOf(file),
    ledger: null,
    problems: [{ file: display, line, message }],
    warnings: [],
    unreadable: true,
  };
}

/** A ledger that could not be read: one problem at `line`. */
export function unreadableEntry(file: string, root: string, line: number, message: string): LedgerEntry {
  return entryFail(file, root, line, message);
}

/** A ledger's entry from its decoded bytes (io/read.ts loadLedgerFile reads them). */
export function ledgerEntry(
  file: string,
  root: string,
  decoded: { text: string } | { line: number; message: string },
  parse: (text: string, stem: string) => Ledger = parseLedger,
): LedgerEntry {
  if (!("text" in decoded)) return entryFail(file, root, decoded.line, decoded.message);
  const display = displayPath(root, file);
  const stem = stemOf(file);
  const ledger = parse(decoded.text, stem);
  return {
    file,
    display,
    stem,
    ledger,
    problems: ledger.errors.map((d) =>
      d.portable
        ? { file: display, line: d.line, message: d.message, portable: d.portable }
        : { file: display, line: d.line, message: d.message },
    ),
    warnings: ledger.warnings.map((d) => ({ file: display, line: d.line, message: d.message })),
    unreadable: false,
  };
}

/**
 * The status snapshot from its read parts. `trace` holds the verdict records of these ledgers
 * and the digests now (io/trace.ts): a met gate whose INPUTS changed since its pass reads STALE,
 * one a probe found VACUOUS is unmet and carries what was hidden (core/trace.ts gateVerdicts).
 * `attested`: kbz's attestations of these ledgers (io/check/attested.ts), null under the agent
 * policy; a met gate they do not vouch for reads UNATTESTED (core/trace.ts unattestedGates).
 */
export function buildSnapshot(
  target: Target,
  ledgers: LedgerEntry[],
  dispatch: DispatchAggregate | null,
  trace: TraceData,
  attested: Attestations,
): Snapshot {
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
    const { stale, failed, vacuous } = gateVerdicts(
      trace,
      target.root,
      entry.file,
      l,
      (g) => gateState(g, l) === "met",
      attested?.get(entry.file),
    );
    for (const g of l.gates) {
      const reason = stale.get(g.id);
      const view: GateView = {
        qid: qualifiedId(l, g),
        file: entry.file,
        gate: g,
        state: reason ? "stale-unmet" : gateState(g, l),
      };
      if (reason) view.reason = reason;
      // An unchecked gate whose last run of this definition failed reads as failed, with how (issue 31).
      const failure = failed.get(g.id);
      if (failure && view.state === "unmet") {
        view.state = "failed";
        view.reason = failure;
      }
      const hidden = vacuous.get(g.id);
      if (hidden && view.state === "met")
        Object.assign(view, { state: "vacuous", reason: vacuityReason(hidden), vacuous: hidden });
      gates.push(view);
    }
    if (attested) unattest(gates.slice(gates.length - l.gates.length), entry.file, attested, trace, l);
  }
  disambiguate(gates, target.root);
  return { target, ledgers, gates, problems, dispatch };
}

/**
 * Ids name their ledger by its stem (`GATES:G1`). Where two ledgers share a stem (the solo
 * GATES.md beside a scope's), their gates are named by the ledger's root-relative path without
 * `.md` instead (`GATES:G1`, `.unlazy/S/GATES:N1`), so no message names two gates alike (issue 43).
 */
function disambiguate(gates: GateView[], root: string): void {
  const files = new Map<string, Set<string>>();
  for (const g of gates) {
    const stem = g.qid.slice(0, g.qid.length - g.gate.id.length - 1);
    if (!files.has(stem)) files.set(stem, new Set());
    files.get(stem)!.add(g.file);
  }
  for (const g of gates) {
    const stem = g.qid.slice(0, g.qid.length - g.gate.id.length - 1);
    if (files.get(stem)!.size > 1) g.qid = `${displayPath(root, g.file).replace(/\.md$/i, "")}:${g.gate.id}`;
  }
}

/** Under the person policy: the met gates of one ledger's views kbz's attestations do not vouch for become UNATTESTED. */
function unattest(
  views: GateView[],
  file: string,
  attested: NonNullable<Attestations>,
  trace: TraceData,
  ledger: Ledger,
): void {
  const met = views.filter((v) => v.state === "met");
  const reasons = unattestedGates(
    file,
    met.map((v) => v.gate),
    attested.get(file),
    trace.records.get(file),
    ledger,
  );
  for (const v of met) {
    const reason = reasons.get(v.gate.id);
    if (reason === undefined) continue;
    v.state = "unattested";
    v.reason = reason;
  }
}

/**
 * An invalid dispatch.json as a located problem (docs/formats.md#check-run: scoped verdicts exit 2).
 * Kept out of `problems` because the Stop hook treats it as a blocking item, not a failure.
 */
export function dispatchProblems(snap: Snapshot): FileProblem[] {
  const scope = snap.target.scope;
  if (!snap.dispatch?.error || !scope) return [];
  const message = snap.dispatch.error.replace(/^invalid dispatch state: /, "");
  const file = displayPath(snap.target.root, dispatchPath(snap.target.root, scope));
  return [
    { file, line: snap.dispatch.errorLine ?? 1, message: `invalid dispatch state for scope ${scope}: ${message}` },
  ];
}
