// Loading a scope for structure work (kill §4.11.1, §4.11.2). Reuses the PLAN table parser,
// the ledger parser, the dispatch and lease readers and the stable reader; every read is kept
// in `files` so a later re-read can prove nothing changed.
import { VerificationError, verificationText } from "../receipts/errors.ts";
import { leafReceiptIssues } from "../receipts/scope.ts";
import * as path from "node:path";
import { parseLedger } from "../ledger/parse.ts";
import type { Ledger } from "../ledger/model.ts";
import { gateState } from "../ledger/state.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { parsePlan } from "../plan/table.ts";
import { coordination } from "../../io/store/active.ts";
import { DispatchStateError, parseDispatch } from "../dispatch/waves.ts";
import { isValidId, resolveTarget } from "../workspace/discover.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES, ReadError, readStable } from "../workspace/read.ts";
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
  StructureError,
  type AccessSets,
  type GateDef,
  type Integration,
  type LeaseView,
  type WaveView,
  type Model,
  type Registry,
  type TaskRow,
} from "./model.ts";

const RESOURCE = /^[a-z0-9][a-z0-9:._/-]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function scopeDir(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope);
}

/** A scope file's text, or null when absent; any other read problem is an error naming the file. */
export function readScopeFile(root: string, scope: string, rel: string): string | null {
  const file = path.join(scopeDir(root, scope), rel);
  let bytes: Buffer;
  try {
    bytes = readStable(file, { label: rel, maxBytes: MAX_LEDGER_BYTES, root });
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") return null;
    if (e instanceof ReadError) fail(e.message, rel);
    throw e;
  }
  const decoded = decodeLedgerText(bytes);
  if (!("text" in decoded)) fail(decoded.message, rel, decoded.line);
  return decoded.text;
}

/** The scope's ledgers as scope-relative names (`GATES.md`, `gates/<name>.md`), sorted. */
export function discoverLedgers(root: string, scope: string, message = "invalid scope ledger discovery"): string[] {
  let target;
  try {
    target = resolveTarget({ root, scope });
  } catch {
    fail(message);
  }
  if (target.discoveryErrors.length > 0) fail(message);
  const dir = scopeDir(root, scope);
  return target.files.map((f) => path.relative(dir, f).split(path.sep).join("/")).sort(cmp);
}

/** Access validation (kill §4.11.2) with the spec's messages; used for ACCESS.json and children. */
export function validateAccess(entry: unknown): AccessSets {
  if (!isObject(entry) || entry.complete !== true) fail("complete access declaration required");
  const lists: string[][] = [];
  for (const key of ["reads", "resourceReads", "resourceWrites"]) {
    const v = entry[key];
    if (!Array.isArray(v) || v.some((s) => typeof s !== "string" || s.trim() === "" || CONTROL.test(s)) || new Set(v).size !== v.length) {
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

export interface LoadOptions {
  allowPending?: boolean;
  /** Audit VERIFIED leaves' verification receipts (the checker and structural events; not the scheduler, which raises its own attention). */
  receipts?: boolean;
}

function receiptIssues(root: string, scope: string, rows: TaskRow[]): Record<string, string> {
  try {
    return leafReceiptIssues(root, scope, rows, process.env);
  } catch (e) {
    if (e instanceof VerificationError) fail(verificationText(e));
    throw e;
  }
}

export function loadStructure(root: string, scope: string, opts: LoadOptions = {}): Model {
  if (!isValidId(scope)) fail("invalid scope");
  const files: Record<string, string | null> = {};
  const read = (rel: string): string | null => {
    const text = readScopeFile(root, scope, rel);
    files[rel] = text;
    return text;
  };
  if (!opts.allowPending && readScopeFile(root, scope, JOURNAL) !== null) fail("pending structure transaction: recover first");

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
  if (!isObject(access) || access.schema !== 1 || access.contractRevision !== plan.revision || !isObject(access.leaves)) {
    fail("ACCESS revision/schema mismatch");
  }
  const leaves = access.leaves as Record<string, unknown>;
  if (canonicalIds(Object.keys(leaves)) !== canonicalIds(plan.rows.map((r) => r.id))) fail("ACCESS inventory mismatch");

  const ledgers = discoverLedgers(root, scope);
  if (!ledgers.includes("GATES.md")) fail("root GATES.md required");
  const leafFiles = ledgers.filter((f) => /^gates\/leaf-.*\.md$/.test(f));
  if (canonicalIds(leafFiles) !== canonicalIds(plan.rows.map((r) => `gates/leaf-${r.id}.md`))) fail("leaf inventory mismatch");

  const rows: TaskRow[] = plan.rows.map((r) => {
    const text = read(`gates/leaf-${r.id}.md`) ?? fail("leaf inventory mismatch");
    const ledger = parseLedger(text, `leaf-${r.id}`);
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
  const integrations: Integration[] = ledgers
    .filter((f) => !leafFiles.includes(f))
    .map((file) => {
      const text = read(file) ?? fail("invalid scope ledger discovery");
      const ledger = parseLedger(text, path.basename(file));
      if (ledger.errors.length > 0) fail(`invalid integration ledger ${file}`);
      return { file, text, gates: gateDefs(ledger), gateStates: gateStatesOf(ledger) };
    });

  const dispatchText = read("dispatch.json");
  let waves: WaveView[];
  try {
    waves = dispatchText === null ? [] : [...parseDispatch(dispatchText).waves.values()].map(plainWave);
  } catch (e) {
    if (e instanceof DispatchStateError) fail("invalid dispatch");
    throw e;
  }
  const ids = new Set(rows.map((r) => r.id));
  for (const w of waves) for (const l of w.leaves) if (!l.startsWith("leaf-") || !ids.has(l.slice(5))) fail("orphan dispatch leaf");

  const registryText = read(REGISTRY);
  const leases = leaseViews(root);
  if (leases.some((l) => l.invalid)) fail("invalid lease");
  for (const l of leases) if (l.scope === scope && (!l.leaf.startsWith("leaf-") || !ids.has(l.leaf.slice(5)))) fail("orphan lease");

  let meta: Registry;
  if (registryText === null) meta = initialRegistry(rows, integrations);
  else {
    try {
      meta = JSON.parse(registryText) as Registry;
    } catch {
      fail("invalid STRUCTURE schema");
    }
    if (!isObject(meta)) fail("invalid STRUCTURE schema");
  }
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
    declared: sortIds(rows.filter((r) => waves.some((w) => w.leaves.includes(`leaf-${r.id}`))).map((r) => r.id)),
    files,
    hash: hashOf({ files, leases }),
    ...(opts.receipts ? { receipts: receiptIssues(root, scope, rows) } : {}),
  };
}

function plainWave(w: ReturnType<typeof parseDispatch>["waves"] extends Map<string, infer W> ? W : never): WaveView {
  return { id: w.id, state: w.state, leaves: [...w.leaves], started: Object.fromEntries(w.started), returned: Object.fromEntries(w.returned) };
}

/** Every lease of every scope as {scope, leaf, globs, invalid}, in file-name order. */
export function leaseViews(root: string): LeaseView[] {
  return coordination(root).leases().map((l) => ({ scope: l.scope, leaf: l.leaf, globs: [...l.globs], invalid: l.invalid }));
}

function canonicalIds(ids: string[]): string {
  return JSON.stringify(sortIds(ids));
}

/** The registry synthesized before the first apply (kill §4.11.1 step 8). */
export function initialRegistry(rows: TaskRow[], integrations: Integration[]): Registry {
  const meta = emptyRegistry();
  meta.initial = sortIds(rows.map((r) => r.id));
  meta.expected = [...meta.initial];
  meta.requiredEdges = rows.flatMap((r) => r.needs.map((n): [string, string] => [n, r.id]));
  for (const r of rows) meta.requiredGates[r.id] = r.gates.map((g) => g.id);
  // S_STRUCTURE is guarded by its own check (missing-structure-gate), so a retried first event
  // whose GATES.md write already landed synthesizes the same registry.
  for (const i of integrations) meta.requiredIntegrations[i.file] = i.gates.map((g) => g.id).filter((g) => !(i.file === "GATES.md" && g === STRUCTURE_GATE));
  meta.groups = meta.initial.map((id) => [id]);
  return meta;
}

/** Reload and require the same inputs (kill `assertStableStructure`). */
export function assertStable(model: Model, message = "inputs changed while checking; retry"): void {
  let again: Model;
  try {
    again = loadStructure(model.root, model.scope, { allowPending: true });
  } catch (e) {
    if (e instanceof StructureError) fail(message);
    throw e;
  }
  if (again.hash !== model.hash) fail(message);
}
