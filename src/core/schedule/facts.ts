// The scheduler's facts (docs/formats.md#plan): what `kbz next` decides from, built from one
// scope's inputs. Pure: the files come through the ScopeInputs port (io/read.ts ScopeReader).
import * as path from "node:path";
import { ReadError } from "../errors.ts";
import { leaseSignature } from "../dispatch/lease-record.ts";
import { DispatchStateError, parseDispatch, waveLine } from "../dispatch/waves.ts";
import type { Gate } from "../ledger/model.ts";
import { parseLedger } from "../ledger/parse.ts";
import { gateState } from "../ledger/state.ts";
import { accessEntry, estimateOf, parseAccess } from "../plan/access.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { codeUnitCompare, idCompare, type IdOrder } from "../plan/order.ts";
import { hasDuplicates, parsePlan, withLeafStates } from "../plan/table.ts";
import { VerificationError, verificationText } from "../receipts/errors.ts";
import { structureModel } from "../structure/build.ts";
import { StructureError } from "../structure/model.ts";
import { verifyStructure } from "../structure/verify.ts";
import { sha256HexOfParts } from "../util/hash.ts";
import type { ScopeInputs } from "../workspace/inputs.ts";
import { gateVerdicts, unattestedGates, type Attestations, type TraceData } from "../trace.ts";
import type { NextSnapshot, RegistryView, TaskFacts, WaveView } from "./snapshot.ts";
import { isLeafLedger, leafLedgerName, leafStem } from "../plan/leaf-id.ts";

/**
 * The receipt audit of the scope's ledgers, as data (ops/facts.ts computes it): the store could
 * not be read (`error`), or each ledger that holds a receipt (root-relative key) → the audit's
 * reason it is not current (null: current), or the VerificationError its audit raised.
 */
export type ReceiptVerdicts =
  | { error: VerificationError }
  | { issues: ReadonlyMap<string, string | null | VerificationError> };

function leafInventory(inputs: ScopeInputs): string[] {
  const { root, scope } = inputs;
  const target = inputs.target();
  if (target.discoveryErrors.length > 0) {
    const d = target.discoveryErrors[0]!;
    throw new ScheduleInputError(`cannot discover scope ledgers: ${d.message}`, path.relative(root, d.path));
  }
  // Discovery lists gates/<name> as path.join(scope gates folder, name): a prefix test and a slice.
  const gates = path.join(root, ".unlazy", scope, "gates") + path.sep;
  const names: string[] = [];
  for (const f of target.files) {
    if (!f.startsWith(gates)) continue;
    const n = f.slice(gates.length);
    if (isLeafLedger(n)) names.push(n);
  }
  return names.sort();
}

/** dispatch.json validated by the dispatch module; absent means no waves. */
function dispatchWaves(text: string | null, file: string): WaveView[] {
  if (text === null) return [];
  try {
    return [...parseDispatch(text).waves.values()];
  } catch (e) {
    if (e instanceof DispatchStateError)
      throw new ScheduleInputError(`invalid dispatch state: ${e.message}`, file, waveLine(text, e.wave));
    throw e;
  }
}

export interface FactsOptions {
  slots: number;
  /** The id order the plan is read in (plan/order.ts): data, like every option here. */
  order: IdOrder;
  /** VERIFIED leaves are checked against these. */
  receipts: ReceiptVerdicts;
  /** The verdict records of the scope's ledgers (INPUTS, probes) and the digests now (io/trace.ts). */
  trace: TraceData;
  /**
   * kbz's attestations of the scope's ledgers (io/check/attested.ts, read once per run); null
   * under the agent policy. A met gate they do not vouch for is `unattested`, not met, here as in
   * status and the Stop hook (core/trace.ts unattestedGates).
   */
  attested: Attestations;
}

/** Receipt failures become schedule errors. */
function receiptIssue(receipts: ReceiptVerdicts, rel: string): string | null {
  if ("error" in receipts) {
    const e = receipts.error;
    throw new ScheduleInputError(
      e.reason + (e.where.detail ? ` (${e.where.detail})` : ""),
      e.where.file ?? null,
      e.where.line ?? null,
    );
  }
  const issue = receipts.issues.get(rel) ?? null;
  if (issue instanceof VerificationError) throw new ScheduleInputError(verificationText(issue), rel);
  return issue;
}

/**
 * The scheduler's facts from one scope's inputs (docs/formats.md#plan, #access, #dispatch,
 * #leases, #structure): every file is asked for once, in the order schedule.mjs read them, so
 * the fingerprint over `inputs.entries` is the original's. io/read.ts readScheduleFacts runs
 * this under the consistency pass.
 */
export function scheduleFacts(inputs: ScopeInputs, o: FactsOptions): NextSnapshot {
  const { root, scope } = inputs;
  const scopeDir = path.join(root, ".unlazy", scope);
  const shown = (rel: string) => path.relative(root, path.join(scopeDir, rel));
  const read = (rel: string, required: boolean): string | null => {
    let text: string | null;
    try {
      text = inputs.text(rel);
    } catch (e) {
      if (e instanceof ReadError) throw new ScheduleInputError(e.message, shown(rel), e.line ?? 1);
      throw e;
    }
    if (text === null && required) throw new ScheduleInputError("missing required file", shown(rel), 1);
    return text;
  };
  const inventory = leafInventory(inputs); // also refuses a missing or unsafe scope directory
  if (read("STRUCTURE.pending.json", false) !== null) {
    throw new ScheduleInputError("pending structure transaction: recover first", shown("STRUCTURE.pending.json"));
  }
  const registry = read("STRUCTURE.json", false);
  const gates = read("GATES.md", false);
  if (registry === null && gates !== null && parseLedger(gates, "GATES").gates.some((g) => g.id === "S_STRUCTURE")) {
    throw new ScheduleInputError("structure registry missing: reconcile before scheduling", shown("GATES.md"));
  }
  const leafStates = inputs.leafStates();
  const compare = idCompare(o.order);
  const plan = withLeafStates(parsePlan(read("PLAN.md", true)!, compare, shown("PLAN.md")), leafStates);

  const expected = plan.rows.map((r) => leafLedgerName(r.id)).sort();
  if (inventory.join("\n") !== expected.join("\n")) {
    const want = new Set(expected);
    const have = new Set(inventory);
    const extra = inventory.filter((n) => !want.has(n));
    const missing = expected.filter((n) => !have.has(n));
    const parts = [
      extra.length ? `not in PLAN: ${extra.join(", ")}` : "",
      missing.length ? `missing: ${missing.join(", ")}` : "",
    ];
    throw new ScheduleInputError(
      `PLAN leaves must match scope leaf ledgers exactly (${parts.filter(Boolean).join("; ")})`,
      shown("gates"),
    );
  }

  const accessFile = shown("ACCESS.json");
  const leaves = parseAccess(read("ACCESS.json", true)!, plan, accessFile);
  const tasks = new Map<string, TaskFacts>();
  if ("error" in o.receipts) receiptIssue(o.receipts, "");
  // schedule.mjs reads ledgers in code-unit id order; so does kbz whatever the display order,
  // which keeps the snapshot fingerprint identical to the original's.
  for (const row of [...plan.rows].sort((a, b) => codeUnitCompare(a.id, b.id))) {
    const decl = accessEntry(row.id, leaves[row.id], accessFile);
    const rel = `gates/${leafLedgerName(row.id)}`;
    const text = read(rel, true)!;
    const ledger = inputs.ledger?.(rel, text, leafStem(row.id)) ?? parseLedger(text, leafStem(row.id));
    if (ledger.errors.length > 0) {
      const first = ledger.errors[0]!;
      throw new ScheduleInputError(
        `invalid leaf ledger ${row.id}: ${ledger.errors.map((e) => `line ${e.line}: ${e.message}`).join("; ")}`,
        shown(rel),
        first.line,
      );
    }
    if (hasDuplicates(ledger.owns))
      throw new ScheduleInputError(`${row.id} OWNS contains duplicates`, shown(rel), ledger.ownsLine);
    if (
      ledger.owns.length === 0 ||
      ledger.owns.length !== row.owns.length ||
      ledger.owns.some((g) => !row.owns.includes(g))
    ) {
      throw new ScheduleInputError(
        `PLAN Owns must equal ledger OWNS for ${row.id} (PLAN: ${row.owns.join(", ") || "-"}; OWNS: ${ledger.owns.join(", ") || "none"})`,
        shown(rel),
        ledger.ownsLine ?? 1,
      );
    }
    const verification = row.state === "VERIFIED" ? receiptIssue(o.receipts, `.unlazy/${scope}/${rel}`) : null;
    const estimate = estimateOf(row.id, leaves[row.id], accessFile);
    const file = path.join(scopeDir, rel);
    const isMet = (g: Gate) => gateState(g, ledger) === "met";
    const verdicts = gateVerdicts(o.trace, root, file, ledger, isMet, o.attested?.get(file));
    // As in status (core/snapshot.ts): STALE first, then VACUOUS (unmet), then UNATTESTED.
    const hiddenBy = verdicts.vacuous;
    const met = o.attested
      ? ledger.gates.filter((g) => !verdicts.stale.has(g.id) && !hiddenBy.has(g.id) && isMet(g))
      : [];
    const unvouched = o.attested
      ? unattestedGates(file, met, o.attested.get(file), o.trace.records.get(file), ledger)
      : null;
    const gates = ledger.gates.map((g) => {
      if (verdicts.stale.has(g.id)) return "stale-unmet";
      const state = gateState(g, ledger);
      if (state === "met" && hiddenBy.has(g.id)) return "vacuous";
      if (unvouched?.has(g.id)) return "unattested";
      return state === "unmet" && verdicts.failed.has(g.id) ? "failed" : state;
    });
    // A gate that would be met but for its probe is a review item too (docs/formats.md#next-output).
    const vacuous =
      hiddenBy.size > 0
        ? ledger.gates.flatMap((g, i) => (gates[i] === "vacuous" ? [{ gate: g.id, hidden: hiddenBy.get(g.id)! }] : []))
        : [];
    tasks.set(row.id, {
      access: { writes: ledger.owns, ...decl },
      gates,
      verification,
      ...(estimate !== undefined ? { estimate } : {}),
      ...(vacuous.length > 0 ? { vacuous } : {}),
    });
  }
  let dispatchText: string | null;
  try {
    dispatchText = inputs.dispatchText();
  } catch (e) {
    if (e instanceof ReadError) throw new ScheduleInputError(e.message, shown("dispatch.json"), e.line ?? 1);
    throw e;
  }
  const waves = dispatchWaves(dispatchText, shown("dispatch.json"));
  const leases = inputs.leases();
  // The fingerprint covers what schedule.mjs read; the structure check below reads from the
  // same inputs (no file twice) and may add the scope's other ledgers after these.
  const entries = inputs.entries.slice();
  const structure = registry === null ? undefined : registryView(inputs);

  // sha256(JSON.stringify(entries) + signature), hashed piece by piece: the texts of 10,000
  // ledgers are never joined into one string.
  const parts = entries.map((e, i) => (i === 0 ? "[" : ",") + JSON.stringify(e));
  parts.push(parts.length === 0 ? "[]" : "]", leaseSignature(leases));
  // State a coordinator served instead of the files is part of what the advice depends on.
  if (dispatchText !== null && !entries.some(([suffix]) => suffix === `${path.sep}dispatch.json`))
    parts.push(dispatchText);
  if (leafStates && leafStates.size > 0) parts.push(JSON.stringify([...leafStates]));
  const fingerprint = sha256HexOfParts(parts);
  return {
    scope,
    slots: o.slots,
    compare,
    plan,
    tasks,
    waves,
    leases,
    fingerprint,
    ...(structure ? { structure } : {}),
  };
}

/** With a registry, the independent checker must pass before any advice (docs/formats.md#scheduling-consistency). */
function registryView(inputs: ScopeInputs): RegistryView {
  let verdict;
  let model;
  try {
    model = structureModel(inputs);
    verdict = verifyStructure(model);
  } catch (e) {
    if (e instanceof StructureError) throw new ScheduleInputError(`structure verification failed: ${e.located()}`);
    throw e;
  }
  if (!verdict.ok) throw new ScheduleInputError(`structure verification failed: ${JSON.stringify(verdict.errors)}`);
  const splits = model.meta.splits.map((s) => ({ parent: s.parent, children: s.children }));
  return { turn: model.meta.turn, groups: model.meta.groups, reports: model.meta.reports, splits };
}
