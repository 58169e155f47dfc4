// `kbz next` as a use case: the scope's facts (ops/facts.ts, the one builder) and the advice on
// them. Options in, data out; the CLI prints it, `kbz advance` ends with it.
import type { IdOrder } from "../core/plan/order.ts";
import * as path from "node:path";
import { adviseNext, type Advice, type SignFirst, type SoloItem } from "../core/schedule/advise.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { isLeafLedger, leafLedgerName } from "../core/plan/leaf-id.ts";
import { withSoloLedgers } from "../io/discover.ts";
import { GATE_LABEL } from "../core/ledger/state.ts";
import { loadSnapshot, scopeSnapshot } from "./snapshot.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { VerificationError } from "../core/receipts/errors.ts";
import { cascadesOf } from "./refresh.ts";
import type { Policy } from "../core/schedule/policy.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { readSchedule, scopeLedgerText, type ScopeRead } from "./facts.ts";

/** `--slots` when not given (next, advance, dash) and the dashboard's Queue: four leaves at once. The one slot default. */
export const DEFAULT_SLOTS = 4;

export interface NextRequest {
  root: string; // canonical
  scope: string;
  slots?: number; // default DEFAULT_SLOTS
  order?: IdOrder; // default natural
  policy?: Policy; // default id-order
  details?: boolean; // the reasons each task waits, structure (the text output always wants them)
  rootFlag?: string; // the --root the caller was given, if any (for the commands printed)
}

/** The review reasons a stale input causes: a VERIFIED leaf whose gate went STALE, a receipt no longer current. */
const CASCADING = /^(verified-ledger-not-met|verification-changed-)/;

export function nextAdvice(o: NextRequest): { snap: NextSnapshot; advice: Advice } {
  const req = { root: o.root, scope: o.scope, slots: o.slots ?? DEFAULT_SLOTS, order: o.order ?? "natural" };
  // One read: the advice, and what it adds (cascades, signatures first, done), are decided inside
  // it from the same texts.
  const { advice, status } = readSchedule(req, (read) => adviceOn(read, o));
  const snap = advice.snap;
  // The solo ledgers are judged with the scope (status, the Stop hook): their gates that are not
  // met are review items here too, named by ledger (a leaf's work can make a solo gate STALE).
  const solo = soloNotMet(o.root);
  if (solo.length > 0) advice.advice.solo = solo;
  // Verified and released: every gate of the scope met (the root's one check ran) and no lease
  // of the scope left. The work is done, and next says so instead of advising the check again.
  if (
    advice.advice.action === "verify-root" &&
    !advice.advice.signFirst &&
    status !== null &&
    scopeVerified(status) &&
    !snap.leases.some((l) => l.scope === o.scope)
  )
    advice.advice.action = solo.length > 0 ? "review" : "done";
  return advice;
}

/**
 * The advice on one read of a scope, with what it adds from the same read (a cascade's cause,
 * the signatures the root needs first): what `kbz next` says and the dashboard's queue shows.
 * The status view is built only when the advice needs one.
 */
export function adviceOn(
  read: ScopeRead,
  o: { details?: boolean; policy?: Policy; rootFlag?: string },
): { advice: { snap: NextSnapshot; advice: Advice }; status: Snapshot | null } {
  const snap = read.facts;
  const advice = adviseNext(snap, { details: o.details ?? true, policy: o.policy ?? "id-order" });
  const cascading = advice.attention.some((a) => CASCADING.test(a.reason));
  const verifyRoot = advice.action === "verify-root";
  if (!cascading && !verifyRoot) return { advice: { snap, advice }, status: null };
  // A cascade needs only the root and node ledgers and the leaves with a STALE gate (the facts know which); the root's
  // verification (sign first, done) needs the whole scope.
  const stale = new Set<string>();
  if (!verifyRoot) for (const [id, t] of snap.tasks) if (t.gates.includes("stale-unmet")) stale.add(leafLedgerName(id));
  const keep = verifyRoot ? undefined : (file: string) => !isLeafLedger(file) || stale.has(path.basename(file));
  const status = scopeSnapshot(read.inputs, read.trace, read.attestations, keep);
  // A cascade (one changed file, many stale gates and receipts) is grouped under its cause.
  if (cascading && !(read.receiptFile instanceof VerificationError)) {
    const from = { receiptFile: read.receiptFile, ledgerText: scopeLedgerText(read.inputs) };
    const cascades = cascadesOf(status, from, process.env, o.rootFlag);
    if (cascades.length > 0) advice.cascades = cascades;
  }
  if (advice.action === "verify-root") {
    const sign = unsignedIntegration(status);
    if (sign.length > 0) advice.signFirst = sign;
  }
  return { advice: { snap, advice }, status };
}

/** The scope's root ledger has gates, and every gate of its ledgers (root, nodes, leaves) is met. */
function scopeVerified(snap: Snapshot): boolean {
  const rootLedger = path.join(snap.target.root, ".unlazy", snap.target.scope!, "GATES.md");
  return (
    snap.problems.length === 0 &&
    snap.gates.some((g) => path.resolve(g.file) === rootLedger) &&
    snap.gates.every((g) => g.state === "met")
  );
}

/** The gates of the solo ledgers (root GATES.md, gates/*.md) that are not met, by ledger. */
export function soloNotMet(root: string): SoloItem[] {
  const files = withSoloLedgers({ root, mode: "scope", scope: null, files: [], discoveryErrors: [] }).files;
  if (files.length === 0) return [];
  const snap = loadSnapshot({ root, mode: "explicit", scope: null, files, discoveryErrors: [] });
  return snap.gates
    .filter((g) => g.state !== "met")
    .map((g) => ({
      ledger: path.relative(root, g.file).split(path.sep).join("/"),
      gate: g.gate.id,
      state: g.reason ?? GATE_LABEL[g.state],
      manual: !isRunnable(g.gate),
    }));
}

/**
 * The manual gates of the scope's root and node ledgers that are not met: `kbz check --reverify`
 * cannot meet them, and the root's S_STRUCTURE fails while one is open (unfinished-integration),
 * so a person signs them before the one call that verifies the root.
 */
export function unsignedIntegration(snap: Snapshot): SignFirst[] {
  const root = snap.target.root;
  return snap.gates
    .filter((g) => !isLeafLedger(g.file) && !isRunnable(g.gate) && g.state !== "met" && g.state !== "abandoned")
    .map((g) => ({
      ledger: path.relative(root, path.resolve(root, g.file)).split(path.sep).join("/"),
      gate: g.gate.id,
      title: g.gate.title,
    }));
}
