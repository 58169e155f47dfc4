// The structure model (docs/formats.md#structure): PLAN.md, ACCESS.json, the ledgers,
// dispatch.json, the leases and STRUCTURE.json of one scope as one Model, with the access
// validation and the registry synthesized before the first apply. Pure: the files come through
// the ScopeInputs port; every read is kept in `files`, which the model hash covers and the
// recovery journal's `observed` records (io/structure/model.ts proves a model current through
// its reader instead).
import * as path from "node:path";
import { ReadError } from "../errors.ts";
import type { LeaseRecord } from "../dispatch/lease-record.ts";
import { DispatchStateError, parseDispatch } from "../dispatch/waves.ts";
import type { Ledger } from "../ledger/model.ts";
import { parseLedger } from "../ledger/parse.ts";
import { gateState } from "../ledger/state.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { parsePlan } from "../plan/table.ts";
import { isValidId } from "../workspace/ids.ts";
import type { ScopeInputs } from "../workspace/inputs.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import { activeTasks, attemptsOf } from "./handoff.ts";
import {
  cmp,
  emptyRegistry,
  fail,
  hashOf,
  isObject,
  JOURNAL,
  REGISTRY,
  sortIds,
  STRUCTURE_GATE,
  type GateDef,
  type Integration,
  type WaveRecord,
  type Model,
  type Registry,
  type TaskRow,
} from "./model.ts";
import type { AccessDecl } from "../plan/access.ts";
import type { LeaseView } from "../dispatch/lease-record.ts";
import { leafIdOf, leafLedgerName, leafStem } from "../plan/leaf-id.ts";

const RESOURCE = /^[a-z0-9][a-z0-9:._/-]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function scopeDir(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope);
}

/** A scope file's text through the port, or null when absent; a read problem is a StructureError naming the file. */
export function scopeText(inputs: ScopeInputs, rel: string): string | null {
  try {
    return inputs.text(rel);
  } catch (e) {
    if (e instanceof ReadError) fail(e.message, rel, e.code === "DECODE" ? e.line : undefined);
    throw e;
  }
}

/** The scope's ledgers as scope-relative names (`GATES.md`, `gates/<name>.md`), sorted. */
export function scopeLedgers(inputs: ScopeInputs, message = "invalid scope ledger discovery"): string[] {
  let target;
  try {
    target = inputs.target();
  } catch {
    fail(message);
  }
  if (target.discoveryErrors.length > 0) fail(message);
  const dir = scopeDir(inputs.root, inputs.scope);
  return target.files.map((f) => path.relative(dir, f).split(path.sep).join("/")).sort(cmp);
}

/** Access validation (docs/formats.md#access) with the spec's messages; used for ACCESS.json and children. */
export function validateAccess(entry: unknown): AccessDecl {
  if (!isObject(entry) || entry.complete !== true) fail("complete access declaration required");
  const lists: string[][] = [];
  for (const key of ["reads", "resourceReads", "resourceWrites"]) {
    const v = entry[key];
    if (
      !Array.isArray(v) ||
      v.some((s) => typeof s !== "string" || s.trim() === "" || CONTROL.test(s)) ||
      new Set(v).size !== v.length
    ) {
      fail("invalid access sets");
    }
    lists.push(v as string[]);
  }
  const reads = lists[0]!.map((r) => {
    const n = normalizeOwnsPath(r);
    if (!n.ok || /[<>|]/.test(r)) fail("invalid read path");
    return n.glob;
  });
  for (const r of [...lists[1]!, ...lists[2]!]) if (!RESOURCE.test(r)) fail("invalid resource id");
  return { reads, resourceReads: [...lists[1]!], resourceWrites: [...lists[2]!] };
}

export function gateDefs(ledger: Ledger): GateDef[] {
  return ledger.gates.map((g) => ({ id: g.id, title: g.title, check: g.check, expect: g.expect, cwd: g.cwd }));
}

export function gateStatesOf(ledger: Ledger): Record<string, ReturnType<typeof gateState>> {
  const out: Record<string, ReturnType<typeof gateState>> = {};
  for (const g of ledger.gates) out[g.id] = gateState(g, ledger);
  return out;
}

export interface ModelOptions {
  allowPending?: boolean;
}

/**
 * The structure model (docs/formats.md#structure) from one scope's inputs. Pure: the files come
 * through the ScopeInputs port, so inside `kbz next` it reads nothing the scheduler already read.
 */
export function structureModel(inputs: ScopeInputs, opts: ModelOptions = {}): Model {
  const { root, scope } = inputs;
  if (!isValidId(scope)) fail("invalid scope");
  const files: Record<string, string | null> = {};
  const read = (rel: string): string | null => {
    const text = scopeText(inputs, rel);
    files[rel] = text;
    return text;
  };
  if (!opts.allowPending && scopeText(inputs, JOURNAL) !== null) fail("pending structure transaction: recover first");

  const planText = read("PLAN.md");
  if (planText === null) fail("PLAN.md: missing required file");
  let plan;
  try {
    plan = parsePlan(planText, cmp, "PLAN.md");
  } catch (e) {
    if (e instanceof ScheduleInputError) fail(e.located());
    throw e;
  }
  const accessText = read("ACCESS.json");
  let access: unknown = null;
  try {
    access = accessText === null ? null : JSON.parse(accessText);
  } catch {
    access = null;
  }
  if (
    !isObject(access) ||
    access.schema !== 1 ||
    access.contractRevision !== plan.revision ||
    !isObject(access.leaves)
  ) {
    fail("ACCESS revision/schema mismatch");
  }
  const leaves = access.leaves as Record<string, unknown>;
  if (canonicalIds(Object.keys(leaves)) !== canonicalIds(plan.rows.map((r) => r.id))) fail("ACCESS inventory mismatch");

  const ledgers = scopeLedgers(inputs);
  if (!ledgers.includes("GATES.md")) fail("root GATES.md required");
  const leafFiles = ledgers.filter((f) => /^gates\/leaf-.*\.md$/.test(f));
  if (canonicalIds(leafFiles) !== canonicalIds(plan.rows.map((r) => `gates/${leafLedgerName(r.id)}`)))
    fail("leaf inventory mismatch");

  const rows: TaskRow[] = plan.rows.map((r) => {
    const text = read(`gates/${leafLedgerName(r.id)}`) ?? fail("leaf inventory mismatch");
    const ledger = parseLedger(text, leafStem(r.id));
    if (ledger.errors.length > 0) fail(`invalid leaf ledger ${r.id}`);
    if (canonicalIds(ledger.owns) !== canonicalIds(r.owns)) fail(`OWNS mirror mismatch ${r.id}`);
    return {
      id: r.id,
      owns: [...r.owns],
      needs: [...r.needs],
      tier: r.tier,
      wave: r.wave,
      state: r.state,
      access: validateAccess(leaves[r.id]),
      ledger: text,
      gates: gateDefs(ledger),
      gateStates: gateStatesOf(ledger),
    };
  });
  const leafSet = new Set(leafFiles);
  const integrations: Integration[] = ledgers
    .filter((f) => !leafSet.has(f))
    .map((file) => {
      const text = read(file) ?? fail("invalid scope ledger discovery");
      const ledger = parseLedger(text, path.basename(file));
      if (ledger.errors.length > 0) fail(`invalid integration ledger ${file}`);
      return { file, text, gates: gateDefs(ledger), gateStates: gateStatesOf(ledger) };
    });

  const { dispatchText, waves } = dispatchOf(inputs);
  files["dispatch.json"] = dispatchText;
  const ids = new Set(rows.map((r) => r.id));
  for (const w of waves) for (const l of w.leaves) if (!ids.has(leafIdOf(l) ?? "")) fail("orphan dispatch leaf"); // "" is no id

  const registryText = read(REGISTRY);
  const leases = leaseViewsOf(inputs.leases());
  if (leases.some((l) => l.invalid)) fail("invalid lease");
  for (const l of leases) if (l.scope === scope && !ids.has(leafIdOf(l.leaf) ?? "")) fail("orphan lease");

  const meta = registryText === null ? initialRegistry(rows, integrations) : parseRegistry(registryText);
  const reports = Array.isArray(meta.reports) ? meta.reports : [];
  const attempts = attemptsOf(waves);
  return {
    scope,
    root,
    revision: plan.revision,
    planText,
    accessText: accessText!,
    dispatchText,
    rows,
    integrations,
    waves,
    leases,
    meta,
    registryInitialized: registryText !== null,
    active: sortIds(activeTasks(rows, waves, reports)),
    started: sortIds(rows.filter((r) => (attempts.get(r.id) ?? []).length > 0).map((r) => r.id)),
    declared: sortIds(rows.filter((r) => waves.some((w) => w.leaves.includes(leafStem(r.id)))).map((r) => r.id)),
    files,
    hash: hashOf({ files, leases }),
  };
}

/** dispatch.json's text and its waves (none without the file). */
function dispatchOf(inputs: ScopeInputs): { dispatchText: string | null; waves: WaveRecord[] } {
  let dispatchText: string | null;
  try {
    dispatchText = inputs.dispatchText();
  } catch (e) {
    if (e instanceof ReadError) fail(e.message, "dispatch.json", e.code === "DECODE" ? e.line : undefined);
    throw e;
  }
  try {
    return {
      dispatchText,
      waves: dispatchText === null ? [] : [...parseDispatch(dispatchText).waves.values()].map(plainWave),
    };
  } catch (e) {
    if (e instanceof DispatchStateError) fail("invalid dispatch");
    throw e;
  }
}

function parseRegistry(text: string): Registry {
  let meta: Registry;
  try {
    meta = JSON.parse(text) as Registry;
  } catch {
    fail("invalid STRUCTURE schema");
  }
  if (!isObject(meta)) fail("invalid STRUCTURE schema");
  return meta;
}

function plainWave(w: ReturnType<typeof parseDispatch>["waves"] extends Map<string, infer W> ? W : never): WaveRecord {
  return {
    id: w.id,
    state: w.state,
    leaves: [...w.leaves],
    started: Object.fromEntries(w.started),
    returned: Object.fromEntries(w.returned),
  };
}

/** Lease records as {scope, leaf, globs, invalid}, in file-name order. */
export function leaseViewsOf(records: readonly LeaseRecord[]): LeaseView[] {
  return records.map((l) => ({ scope: l.scope, leaf: l.leaf, globs: [...l.globs], invalid: l.invalid }));
}

function canonicalIds(ids: string[]): string {
  return JSON.stringify(sortIds(ids));
}

/** The registry synthesized before the first apply (docs/formats.md#structure-events). */
export function initialRegistry(rows: TaskRow[], integrations: Integration[]): Registry {
  const meta = emptyRegistry();
  meta.initial = sortIds(rows.map((r) => r.id));
  meta.expected = [...meta.initial];
  meta.requiredEdges = rows.flatMap((r) => r.needs.map((n): [string, string] => [n, r.id]));
  for (const r of rows) meta.requiredGates[r.id] = r.gates.map((g) => g.id);
  // S_STRUCTURE is guarded by its own check (missing-structure-gate), so a retried first event
  // whose GATES.md write already landed synthesizes the same registry.
  for (const i of integrations)
    meta.requiredIntegrations[i.file] = i.gates
      .map((g) => g.id)
      .filter((g) => !(i.file === "GATES.md" && g === STRUCTURE_GATE));
  meta.groups = meta.initial.map((id) => [id]);
  return meta;
}
