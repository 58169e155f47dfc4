// Reading a scope for `kbz next` (kill §4.10 steps 2-8, 11-12): every input is read once with
// the stable reader and recorded; at the end everything is read again and must be unchanged.
import { createHash } from "node:crypto";
import * as path from "node:path";
import { parseLedger } from "../ledger/parse.ts";
import { gateState } from "../ledger/state.ts";
import { accessEntry, parseAccess } from "../plan/access.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import type { IdCompare } from "../plan/order.ts";
import { parsePlan } from "../plan/table.ts";
import { resolveTarget } from "../workspace/discover.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES, ReadError, readStable } from "../workspace/read.ts";
import { leaseSignature, parseWaves, readLeases } from "./dispatch-reader.ts";
import type { NextSnapshot, RegistryView, TaskFacts } from "./snapshot.ts";
import { loadStructure } from "../structure/load.ts";
import { StructureError } from "../structure/model.ts";
import { verifyStructure } from "../structure/verify.ts";

/** The ordered record of what was read: scope-relative path suffix → text, or null when absent. */
class Recorded {
  readonly entries: [string, string | null][] = [];

  constructor(
    private readonly root: string,
    private readonly scopeDir: string,
  ) {}

  read(rel: string, required: boolean): string | null {
    const text = readText(this.root, this.scopeDir, rel, required);
    this.entries.push([path.sep + rel.split("/").join(path.sep), text]);
    return text;
  }

  changed(): boolean {
    return this.entries.some(([suffix, text]) => readText(this.root, this.scopeDir, suffix.slice(1).split(path.sep).join("/"), false) !== text);
  }
}

function readText(root: string, scopeDir: string, rel: string, required: boolean): string | null {
  const file = path.join(scopeDir, rel);
  const shown = path.relative(root, file);
  let bytes: Buffer;
  try {
    bytes = readStable(file, { label: rel, maxBytes: MAX_LEDGER_BYTES, root });
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT" && !required) return null;
    if (e instanceof ReadError) throw new ScheduleInputError(e.code === "ENOENT" ? `missing required file` : e.message.replace(`: ${file}`, ""), shown, 1);
    throw e;
  }
  const decoded = decodeLedgerText(bytes);
  if (!("text" in decoded)) throw new ScheduleInputError(decoded.message, shown, decoded.line);
  return decoded.text;
}

function leafInventory(root: string, scope: string): string[] {
  const target = resolveTarget({ root, scope });
  if (target.discoveryErrors.length > 0) {
    const d = target.discoveryErrors[0]!;
    throw new ScheduleInputError(`cannot discover scope ledgers: ${d.message}`, path.relative(root, d.path));
  }
  return target.files
    .filter((f) => path.basename(path.dirname(f)) === "gates")
    .map((f) => path.basename(f))
    .filter((n) => n.startsWith("leaf-") && n.endsWith(".md"))
    .sort();
}

export interface ReadOptions {
  root: string; // canonical
  scope: string; // valid id
  slots: number;
  compare: IdCompare;
}

export function readNextSnapshot(o: ReadOptions): NextSnapshot {
  const scopeDir = path.join(o.root, ".unlazy", o.scope);
  const shown = (rel: string) => path.relative(o.root, path.join(scopeDir, rel));
  const files = new Recorded(o.root, scopeDir);
  if (files.read("STRUCTURE.pending.json", false) !== null) {
    throw new ScheduleInputError("pending structure transaction: recover first", shown("STRUCTURE.pending.json"));
  }
  const registry = files.read("STRUCTURE.json", false);
  const gates = files.read("GATES.md", false);
  if (registry === null && gates !== null && parseLedger(gates, "GATES").gates.some((g) => g.id === "S_STRUCTURE")) {
    throw new ScheduleInputError("structure registry missing: reconcile before scheduling", shown("GATES.md"));
  }
  const plan = parsePlan(files.read("PLAN.md", true)!, o.compare, shown("PLAN.md"));

  const inventory = leafInventory(o.root, o.scope);
  const expected = plan.rows.map((r) => `leaf-${r.id}.md`).sort();
  if (inventory.join("\n") !== expected.join("\n")) {
    const extra = inventory.filter((n) => !expected.includes(n));
    const missing = expected.filter((n) => !inventory.includes(n));
    const parts = [extra.length ? `not in PLAN: ${extra.join(", ")}` : "", missing.length ? `missing: ${missing.join(", ")}` : ""];
    throw new ScheduleInputError(`PLAN leaves must match scope leaf ledgers exactly (${parts.filter(Boolean).join("; ")})`, shown("gates"));
  }

  const accessFile = shown("ACCESS.json");
  const leaves = parseAccess(files.read("ACCESS.json", true)!, plan, accessFile);
  const tasks = new Map<string, TaskFacts>();
  for (const row of plan.rows) {
    const decl = accessEntry(row.id, leaves[row.id], accessFile);
    const rel = `gates/leaf-${row.id}.md`;
    const ledger = parseLedger(files.read(rel, true)!, `leaf-${row.id}`);
    if (ledger.errors.length > 0) {
      const first = ledger.errors[0]!;
      throw new ScheduleInputError(`invalid leaf ledger ${row.id}: ${ledger.errors.map((e) => `line ${e.line}: ${e.message}`).join("; ")}`, shown(rel), first.line);
    }
    if (new Set(ledger.owns).size !== ledger.owns.length) throw new ScheduleInputError(`${row.id} OWNS contains duplicates`, shown(rel), ledger.ownsLine);
    const plain = new Set(row.owns);
    if (ledger.owns.length === 0 || ledger.owns.length !== plain.size || ledger.owns.some((g) => !plain.has(g))) {
      throw new ScheduleInputError(
        `PLAN Owns must equal ledger OWNS for ${row.id} (PLAN: ${row.owns.join(", ") || "-"}; OWNS: ${ledger.owns.join(", ") || "none"})`,
        shown(rel),
        ledger.ownsLine ?? 1,
      );
    }
    tasks.set(row.id, {
      access: { writes: ledger.owns, ...decl },
      gates: ledger.gates.map((g) => gateState(g, ledger)),
    });
  }
  const waves = parseWaves(files.read("dispatch.json", false));
  const leases = readLeases(o.root);

  const structure = registry === null ? undefined : registryView(o.root, o.scope);
  if (files.changed()) throw new ScheduleInputError("inputs changed while scheduling; rerun");
  const signature = leaseSignature(leases);
  if (leaseSignature(readLeases(o.root)) !== signature) throw new ScheduleInputError("leases changed while scheduling; rerun");
  if (leafInventory(o.root, o.scope).join("\n") !== inventory.join("\n")) throw new ScheduleInputError("leaf inventory changed while scheduling; rerun");

  const fingerprint = createHash("sha256").update(JSON.stringify(files.entries) + signature).digest("hex");
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
  return { turn: model.meta.turn, groups: model.meta.groups, reports: model.meta.reports };
}
