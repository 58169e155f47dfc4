// Under the person policy (docs/formats.md#attestations) a met gate counts only while kbz's own
// record in the approval store vouches for its evidence: UNATTESTED otherwise. A gate that held an
// approval or attested evidence and is gone from its ledger, or whose ledger is gone, is REMOVED
// until a person confirms with `kbz approvals prune`. Both are read by every reader of a snapshot
// (status, check, the Stop hook, the dashboard): one readdir and one read per attested ledger.
import * as fs from "node:fs";
import * as path from "node:path";
import { isRunnable, stemOf, type Gate, type Ledger } from "../../core/ledger/model.ts";
import type { Snapshot } from "../../core/snapshot.ts";
import type { Target } from "../../core/workspace/target.ts";
import { readInputStore } from "../inputs/store.ts";
import { approvalDirFor } from "../run/approval.ts";
import { forget, inputsDigest, readRootAttestations, type RootAttestations } from "../run/attest.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { readPolicy } from "../run/personal.ts";

type Env = Record<string, string | undefined>;

export const UNATTESTED_RUNNABLE = "UNATTESTED (kbz has no record of this pass; run kbz check --reverify)";
export const UNATTESTED_MANUAL = "UNATTESTED (no person signed this here; a person signs it with kbz sign in a terminal)";

function realOf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Does a ledger kbz once attested (now gone) belong to what this target judges? */
function belongs(target: Target, ledger: string): boolean {
  const root = realOf(target.root);
  if (target.mode === "explicit") return target.files.some((f) => realOf(f) === ledger);
  const dir = path.dirname(ledger);
  const base = path.basename(dir) === "gates" ? path.dirname(dir) : dir;
  if (path.basename(ledger) !== "GATES.md" && path.basename(dir) !== "gates") return false;
  if (base === root) return true; // the solo ledgers are judged together with any scope
  const scopeDir = path.dirname(base);
  if (scopeDir !== path.join(root, ".unlazy")) return false;
  // The current scope's ledgers, and those of a scope whose folder is gone altogether.
  return path.basename(base) === target.scope || !fs.existsSync(base);
}

function removedItem(qid: string, where: string): string {
  return `${qid} REMOVED (${where}; a person confirms with kbz approvals prune, or ABANDON it)`;
}

/** The REMOVED items of a snapshot's target. */
function removedGates(snap: Snapshot, atts: RootAttestations): string[] {
  const out: string[] = [];
  const loaded = new Map(snap.ledgers.map((l) => [realOf(l.file), l]));
  for (const [ledger, rec] of atts.ledgers) {
    const ids = [...new Set([...Object.keys(rec.gates), ...Object.keys(rec.approved)])].sort();
    if (ids.length === 0) continue;
    const entry = loaded.get(ledger);
    const shown = path.relative(snap.target.root, ledger) || ledger;
    if (entry) {
      if (!entry.ledger || entry.problems.length > 0) continue; // an invalid ledger is reported as such
      const have = new Set(entry.ledger.gates.map((g) => g.id));
      for (const id of ids) if (!have.has(id)) out.push(removedItem(`${entry.stem}:${id}`, `deleted from ${shown}`));
    } else if (!fs.existsSync(ledger) && belongs(snap.target, ledger)) {
      for (const id of ids) out.push(removedItem(`${stemOf(ledger)}:${id}`, `${shown} was deleted`));
    }
  }
  return out;
}

/** Does kbz's record vouch for this met gate's evidence (and INPUTS digests)? */
function attested(root: string, atts: RootAttestations, real: string, file: string, g: Gate, inputStores: Map<string, ReturnType<typeof readInputStore>>): boolean {
  const a = atts.valid(real, g.id);
  // The gate is met, so an automatic evidence line names its current definition digest: the same
  // evidence text binds the same definition (a manual gate has none), without hashing it again.
  if (!a || a.evidence !== g.evidence || (a.definition !== null) !== isRunnable(g)) return false;
  if (!g.inputs) return true;
  if (!inputStores.has(file)) inputStores.set(file, readInputStore(root, file));
  return a.inputs === inputsDigest(inputStores.get(file)!.gates[g.id]?.files);
}

/** Mark UNATTESTED gates and list REMOVED ones, under the person policy only. */
export function markAttestations(snap: Snapshot, env: Env = process.env): void {
  const store = approvalDirFor(env);
  if (readPolicy(store) !== "person") return;
  const atts = readRootAttestations(store, snap.target.root);
  const inputStores = new Map<string, ReturnType<typeof readInputStore>>();
  const reals = new Map<string, string>();
  for (const v of snap.gates) {
    if (v.state !== "met") continue;
    let real = reals.get(v.file);
    if (real === undefined) reals.set(v.file, (real = realOf(v.file)));
    if (attested(snap.target.root, atts, real, v.file, v.gate, inputStores)) continue;
    v.state = "unattested";
    v.reason = isRunnable(v.gate) ? UNATTESTED_RUNNABLE : UNATTESTED_MANUAL;
  }
  const removed = removedGates(snap, atts);
  if (removed.length > 0) snap.removed = removed;
}

/**
 * The scheduler's view (kbz next): per ledger, the met gates kbz has no record of; null under the
 * agent policy (nothing to check).
 */
export function unattestedGates(root: string, env: Env = process.env): ((file: string, ledger: Ledger, isMet: (g: Gate) => boolean) => Set<string>) | null {
  const store = approvalDirFor(env);
  if (readPolicy(store) !== "person") return null;
  const atts = readRootAttestations(store, root);
  const inputStores = new Map<string, ReturnType<typeof readInputStore>>();
  return (file, ledger, isMet) => {
    const real = realOf(file);
    return new Set(ledger.gates.filter((g) => isMet(g) && !attested(root, atts, real, file, g, inputStores)).map((g) => g.id));
  };
}

/** Whether this root has REMOVED gates to report although no ledger is left (status, the Stop hook). */
export function hasAttestedLedgers(root: string, env: Env = process.env): boolean {
  const store = approvalDirFor(env);
  if (readPolicy(store) !== "person") return false;
  return readRootAttestations(store, root).ledgers.size > 0;
}

/**
 * `kbz approvals prune`: a person confirms that the REMOVED gates of this root are gone on
 * purpose; kbz forgets their records. With `only` (qualified ids), just those: the dashboard
 * confirms one REMOVED gate at a time. Returns the qualified ids forgotten.
 */
export async function pruneRemoved(store: string, root: string, only?: ReadonlySet<string>): Promise<string[]> {
  const atts = readRootAttestations(store, root);
  const out: string[] = [];
  for (const [ledger, rec] of atts.ledgers) {
    const ids = [...new Set([...Object.keys(rec.gates), ...Object.keys(rec.approved)])].sort();
    let gone: string[];
    if (!fs.existsSync(ledger)) gone = ids;
    else {
      let text: string;
      try {
        text = fs.readFileSync(ledger, "utf8");
      } catch {
        continue;
      }
      const parsed = parseLedger(text, stemOf(ledger));
      if (parsed.errors.length > 0) continue; // a half-saved ledger is no reason to forget
      const have = new Set(parsed.gates.map((g) => g.id));
      gone = ids.filter((id) => !have.has(id));
    }
    if (only) gone = gone.filter((id) => only.has(`${stemOf(ledger)}:${id}`));
    if (gone.length === 0) continue;
    await forget(store, root, ledger, gone.length === ids.length ? "all" : gone);
    out.push(...gone.map((id) => `${stemOf(ledger)}:${id}`));
  }
  return out;
}
