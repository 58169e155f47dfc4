// Reading a scope for `kbz next` (kill §4.10 steps 2-8, 11-12): every input is read once with
// the stable reader and recorded; at the end every input must still be unchanged.
import * as fs from "node:fs";
import * as path from "node:path";
import { parseLedger } from "../ledger/parse.ts";
import { sha256HexOfParts } from "../util/hash.ts";
import { gateState } from "../ledger/state.ts";
import { inputStaleness } from "../inputs/stale.ts";
import { accessEntry, parseAccess } from "../plan/access.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { codeUnitCompare, type IdCompare } from "../plan/order.ts";
import { hasDuplicates, parsePlan } from "../plan/table.ts";
import { resolveTarget } from "../workspace/discover.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES, ReadError, readStableWith, sameFileState } from "../workspace/read.ts";
import { managedEvidenceIssue } from "../receipts/audit.ts";
import { VerificationError, verificationText } from "../receipts/errors.ts";
import { readStore, type Store } from "../receipts/store.ts";
import type { Env } from "../run/shell.ts";
import { coordination } from "../../io/store/active.ts";
import { DispatchStateError, parseDispatch, waveLine } from "../dispatch/waves.ts";
import type { LeaseView, NextSnapshot, RegistryView, TaskFacts, WaveView } from "./snapshot.ts";
import { loadStructure } from "../structure/load.ts";
import { StructureError } from "../structure/model.ts";
import { verifyStructure } from "../structure/verify.ts";

/**
 * The ordered record of what was read: scope-relative path suffix → text, or null when absent.
 * Each file's fstat is taken as it is read; the final consistency pass re-reads only files
 * whose identity, type, size or times moved, so an unchanged scope costs one lstat per file to confirm.
 */
class Recorded {
  readonly entries: [string, string | null][] = [];
  private readonly stats: (fs.BigIntStats | null)[] = [];
  private readonly dirs: string[];
  private readonly dirIds: (fs.BigIntStats | null)[];

  constructor(
    private readonly root: string,
    private readonly scopeDir: string,
  ) {
    // Discovery proved these are real directories inside the root; files are opened without
    // following a final link, so pinning the directories' identities keeps every read inside.
    this.dirs = [path.join(root, ".unlazy"), scopeDir, path.join(scopeDir, "gates")];
    this.dirIds = this.dirIdentities();
  }

  read(rel: string, required: boolean): string | null {
    const file = path.join(this.scopeDir, rel);
    const { text, signature } = readText(this.root, file, required);
    this.stats.push(signature);
    this.entries.push([path.sep + rel.split("/").join(path.sep), text]);
    return text;
  }

  /**
   * Whether any input moved since it was read. This pass is also what proves each read whole:
   * the reads skip their own after-read lstat (nameCheckedByCaller), and a name that now leads
   * elsewhere, or an inode whose size or times moved, is re-read and compared here.
   */
  changed(): boolean {
    if (this.dirIdentities().some((st, k) => !sameState(st, this.dirIds[k]!))) return true;
    for (let k = 0; k < this.entries.length; k++) {
      const [suffix, text] = this.entries[k]!;
      const file = this.scopeDir + suffix;
      if (!sameState(currentStat(file), this.stats[k]!) && readText(this.root, file, false).text !== text) return true;
    }
    return false;
  }

  private dirIdentities(): (fs.BigIntStats | null)[] {
    return this.dirs.map(currentStat);
  }
}

function sameState(a: fs.BigIntStats | null, b: fs.BigIntStats | null): boolean {
  return a === null || b === null ? a === b : sameFileState(a, b);
}

function currentStat(file: string): fs.BigIntStats | null {
  return fs.lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
}

/**
 * The text (null when absent and optional) and the descriptor's stat taken before the bytes
 * were read; the caller's consistency pass (Recorded.changed) compares the name with it.
 */
function readText(root: string, file: string, required: boolean): { text: string | null; signature: fs.BigIntStats | null } {
  const shown = () => path.relative(root, file);
  let read: { decoded: ReturnType<typeof decodeLedgerText>; signature: fs.BigIntStats };
  try {
    const opts = { label: path.basename(file), maxBytes: MAX_LEDGER_BYTES, nameCheckedByCaller: true };
    read = readStableWith(file, opts, (bytes, st) => ({ decoded: decodeLedgerText(bytes), signature: st }));
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT" && !required) return { text: null, signature: null };
    if (e instanceof ReadError) throw new ScheduleInputError(e.code === "ENOENT" ? `missing required file` : e.message, shown(), 1);
    throw e;
  }
  if (!("text" in read.decoded)) throw new ScheduleInputError(read.decoded.message, shown(), read.decoded.line);
  return { text: read.decoded.text, signature: read.signature };
}

function leafInventory(root: string, scope: string): string[] {
  const target = resolveTarget({ root, scope });
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
    if (n.startsWith("leaf-") && n.endsWith(".md")) names.push(n);
  }
  return names.sort();
}

/** dispatch.json validated by the dispatch module; absent means no waves. */
function dispatchWaves(text: string | null, file: string): WaveView[] {
  if (text === null) return [];
  try {
    return [...parseDispatch(text).waves.values()];
  } catch (e) {
    if (e instanceof DispatchStateError) throw new ScheduleInputError(`invalid dispatch state: ${e.message}`, file, waveLine(text, e.wave));
    throw e;
  }
}

/** The lease part of the snapshot fingerprint (kill §4.10 step 12). */
function leaseSignature(leases: LeaseView[]): string {
  return JSON.stringify(leases.map((l) => [l.scope, l.leaf, l.globs, l.invalid]));
}

export interface ReadOptions {
  root: string; // canonical
  scope: string; // valid id
  slots: number;
  compare: IdCompare;
  env?: Env; // for receipt audits; default process.env
  /** Called once every input is read, before the consistency pass (tests change files here). */
  beforeConsistencyCheck?: () => void;
}

/** Receipts are audited through the same function as `kbz verify`; its failures become schedule errors. */
function receiptStore(root: string): Store {
  try {
    return readStore(root);
  } catch (e) {
    if (e instanceof VerificationError) throw new ScheduleInputError(e.reason + (e.where.detail ? ` (${e.where.detail})` : ""), e.where.file ?? null, e.where.line ?? null);
    throw e;
  }
}

function receiptIssue(root: string, rel: string, store: Store, env: Env): string | null {
  try {
    return managedEvidenceIssue(root, rel, { store, env });
  } catch (e) {
    if (e instanceof VerificationError) throw new ScheduleInputError(verificationText(e), rel);
    throw e;
  }
}

export function readNextSnapshot(o: ReadOptions): NextSnapshot {
  const scopeDir = path.join(o.root, ".unlazy", o.scope);
  const shown = (rel: string) => path.relative(o.root, path.join(scopeDir, rel));
  const files = new Recorded(o.root, scopeDir);
  const inventory = leafInventory(o.root, o.scope); // also refuses a missing or unsafe scope directory
  if (files.read("STRUCTURE.pending.json", false) !== null) {
    throw new ScheduleInputError("pending structure transaction: recover first", shown("STRUCTURE.pending.json"));
  }
  const registry = files.read("STRUCTURE.json", false);
  const gates = files.read("GATES.md", false);
  if (registry === null && gates !== null && parseLedger(gates, "GATES").gates.some((g) => g.id === "S_STRUCTURE")) {
    throw new ScheduleInputError("structure registry missing: reconcile before scheduling", shown("GATES.md"));
  }
  const plan = parsePlan(files.read("PLAN.md", true)!, o.compare, shown("PLAN.md"));

  const expected = plan.rows.map((r) => `leaf-${r.id}.md`).sort();
  if (inventory.join("\n") !== expected.join("\n")) {
    const want = new Set(expected);
    const have = new Set(inventory);
    const extra = inventory.filter((n) => !want.has(n));
    const missing = expected.filter((n) => !have.has(n));
    const parts = [extra.length ? `not in PLAN: ${extra.join(", ")}` : "", missing.length ? `missing: ${missing.join(", ")}` : ""];
    throw new ScheduleInputError(`PLAN leaves must match scope leaf ledgers exactly (${parts.filter(Boolean).join("; ")})`, shown("gates"));
  }

  const accessFile = shown("ACCESS.json");
  const leaves = parseAccess(files.read("ACCESS.json", true)!, plan, accessFile);
  const tasks = new Map<string, TaskFacts>();
  const store = receiptStore(o.root);
  // schedule.mjs reads ledgers in code-unit id order; so does kbz whatever the display order,
  // which keeps the snapshot fingerprint identical to the original's.
  for (const row of [...plan.rows].sort((a, b) => codeUnitCompare(a.id, b.id))) {
    const decl = accessEntry(row.id, leaves[row.id], accessFile);
    const rel = `gates/leaf-${row.id}.md`;
    const ledger = parseLedger(files.read(rel, true)!, `leaf-${row.id}`);
    if (ledger.errors.length > 0) {
      const first = ledger.errors[0]!;
      throw new ScheduleInputError(`invalid leaf ledger ${row.id}: ${ledger.errors.map((e) => `line ${e.line}: ${e.message}`).join("; ")}`, shown(rel), first.line);
    }
    if (hasDuplicates(ledger.owns)) throw new ScheduleInputError(`${row.id} OWNS contains duplicates`, shown(rel), ledger.ownsLine);
    if (ledger.owns.length === 0 || ledger.owns.length !== row.owns.length || ledger.owns.some((g) => !row.owns.includes(g))) {
      throw new ScheduleInputError(
        `PLAN Owns must equal ledger OWNS for ${row.id} (PLAN: ${row.owns.join(", ") || "-"}; OWNS: ${ledger.owns.join(", ") || "none"})`,
        shown(rel),
        ledger.ownsLine ?? 1,
      );
    }
    const verification = row.state === "VERIFIED" ? receiptIssue(o.root, `.unlazy/${o.scope}/${rel}`, store, o.env ?? process.env) : null;
    // A met gate whose INPUTS changed since its pass is unmet here too (issue 18).
    const stale = inputStaleness(o.root, path.join(o.root, ".unlazy", o.scope, rel), ledger, (g) => gateState(g, ledger) === "met");
    tasks.set(row.id, {
      access: { writes: ledger.owns, ...decl },
      gates: ledger.gates.map((g) => (stale.has(g.id) ? "stale-unmet" : gateState(g, ledger))),
      verification,
    });
  }
  const coord = coordination(o.root);
  const waves = dispatchWaves(coord.dispatchText(o.scope, () => files.read("dispatch.json", false)), shown("dispatch.json"));
  const leases = coord.leases();

  const structure = registry === null ? undefined : registryView(o.root, o.scope);
  o.beforeConsistencyCheck?.();
  if (files.changed() || JSON.stringify(receiptStore(o.root)) !== JSON.stringify(store)) throw new ScheduleInputError("inputs changed while scheduling; rerun");
  const signature = leaseSignature(leases);
  if (leaseSignature(coord.leases()) !== signature) throw new ScheduleInputError("leases changed while scheduling; rerun");
  if (leafInventory(o.root, o.scope).join("\n") !== inventory.join("\n")) throw new ScheduleInputError("leaf inventory changed while scheduling; rerun");

  // sha256(JSON.stringify(entries) + signature), hashed piece by piece: the texts of 10,000
  // ledgers are never joined into one string.
  const parts = files.entries.map((e, i) => (i === 0 ? "[" : ",") + JSON.stringify(e));
  parts.push(parts.length === 0 ? "[]" : "]", signature);
  const fingerprint = sha256HexOfParts(parts);
  return { scope: o.scope, slots: o.slots, compare: o.compare, plan, tasks, waves, leases, fingerprint, ...(structure ? { structure } : {}) };
}

/** With a registry, the independent checker must pass before any advice (kill §4.10 step 9). */
function registryView(root: string, scope: string): RegistryView {
  let verdict;
  let model;
  try {
    model = loadStructure(root, scope);
    verdict = verifyStructure(model);
  } catch (e) {
    if (e instanceof StructureError) throw new ScheduleInputError(`structure verification failed: ${e.message}`);
    throw e;
  }
  if (!verdict.ok) throw new ScheduleInputError(`structure verification failed: ${JSON.stringify(verdict.errors)}`);
  const splits = model.meta.splits.map((s) => ({ parent: s.parent, children: s.children }));
  return { turn: model.meta.turn, groups: model.meta.groups, reports: model.meta.reports, splits };
}
