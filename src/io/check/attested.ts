// Under the person policy (docs/formats.md#attestations) a met gate counts only while kbz's own
// attestation in the approval store vouches for it: a core/trace.ts attestation record, checked by
// the one `verify` against the gate's evidence now and the INPUTS and oracle pass records the
// repository holds now (UNATTESTED otherwise; core/trace.ts unattestedGates, given the records
// read here as data). A gate that held an approval or attested evidence and is gone from its
// ledger, or whose ledger is gone, is REMOVED until a person confirms with `kbz approvals prune`.
// Both are read by every reader of a snapshot (status, check, the Stop hook, the dashboard) and by
// `kbz next`: one read of the root's attestation file, one hash of each ledger's text (core/trace.ts attestedLedgerDigest), and a short hash per met gate only when a ledger changed since kbz attested it.
import * as fs from "node:fs";
import * as path from "node:path";
import { stemOf } from "../../core/ledger/model.ts";
import type { Snapshot } from "../../core/snapshot.ts";
import type { Target } from "../../core/workspace/target.ts";
import { attestedLedgerDigest, type Attestations } from "../../core/trace.ts";
import { approvalDirFor } from "../run/approval.ts";
import {
  forget,
  readRootAttestations,
  recordedGates,
  type LedgerAttestations,
  type RootAttestations,
} from "../run/attest.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { readPolicy } from "../run/personal.ts";
import { kbz } from "../../core/text/command.ts";

type Env = Record<string, string | undefined>;

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
  return `${qid} REMOVED (${where}; a person confirms with ${kbz("approvals prune")}, or ABANDON it)`;
}

/** The REMOVED items of a snapshot's target. */
function removedGates(snap: Snapshot, atts: RootAttestations, realFile: (file: string) => string): string[] {
  const out: string[] = [];
  const loaded = new Map(snap.ledgers.map((l) => [realFile(l.file), l]));
  for (const [ledger, rec] of atts.ledgers) {
    const entry = loaded.get(ledger);
    if (entry) {
      if (!entry.ledger || entry.problems.length > 0) continue; // an invalid ledger is reported as such
      // The ledger is the text kbz last wrote this record for, when every recorded gate was in it.
      if (rec.text !== undefined && rec.text === attestedLedgerDigest(entry.ledger)) continue;
      const have = new Set(entry.ledger.gates.map((g) => g.id));
      // The common case, checked without sorting or naming anything: every recorded gate is there.
      if (everyRecorded(rec, (id) => have.has(id))) continue;
      const shown = path.relative(snap.target.root, ledger) || ledger;
      for (const id of recordedGates(rec))
        if (!have.has(id)) out.push(removedItem(`${entry.stem}:${id}`, `deleted from ${shown}`));
    } else if (!fs.existsSync(ledger) && belongs(snap.target, ledger)) {
      const shown = path.relative(snap.target.root, ledger) || ledger;
      for (const id of recordedGates(rec)) out.push(removedItem(`${stemOf(ledger)}:${id}`, `${shown} was deleted`));
    }
  }
  return out;
}

/** Does `holds` say yes for every gate id the ledger's record speaks for (recordedGates, unsorted)? */
function everyRecorded(rec: LedgerAttestations, holds: (id: string) => boolean): boolean {
  for (const id in rec.gates) if (!holds(id)) return false;
  return rec.approved.every(holds);
}

/** kbz's attestations under `root` (by real ledger path), as data; null under the agent policy, where nothing is checked. */
export function readAttestations(root: string, env: Env = process.env): RootAttestations | null {
  const store = approvalDirFor(env);
  if (readPolicy(store) === "agent") return null;
  return readRootAttestations(store, root);
}

/**
 * The attestations of a read's ledgers, by the file names that read uses (core/trace.ts
 * unattestedGates checks them). Discovered ledgers are real paths already (listed under the
 * canonical root, links refused); only ledgers named on the command line are resolved (a realpath
 * per ledger was a tenth of status).
 */
export function attestationsOf(target: Target, atts: RootAttestations | null): Attestations {
  if (atts === null) return null;
  if (target.mode !== "explicit") return atts.ledgers;
  const out = new Map<string, LedgerAttestations>();
  for (const f of target.files) {
    const rec = atts.ledgers.get(realOf(f));
    if (rec) out.set(f, rec);
  }
  return out;
}

/** List the REMOVED gates of a snapshot's target (under the person policy: `atts` not null). */
export function markRemoved(snap: Snapshot, atts: RootAttestations | null): void {
  if (atts === null) return;
  const realFile = snap.target.mode === "explicit" ? realOf : (file: string) => file;
  const removed = removedGates(snap, atts, realFile);
  if (removed.length > 0) snap.removed = removed;
}

/** Whether this root has REMOVED gates to report although no ledger is left (status, the Stop hook). */
export function hasAttestedLedgers(root: string, env: Env = process.env): boolean {
  const store = approvalDirFor(env);
  if (readPolicy(store) === "agent") return false;
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
    const ids = recordedGates(rec);
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
