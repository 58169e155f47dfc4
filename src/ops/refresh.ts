// One refresh for a cascade: a change to one shared file (src/parse.js) turns every
// gate that reads it STALE and every receipt that binds it stale. `cascadesOf` groups what is
// stale under the file that changed, for `kbz next`; `refreshStale` re-runs all of it in one
// call (`kbz check --stale`): the receipts through `verify run` with the policy each was
// accepted under (which re-runs its ledger), the other stale gates through `kbz check`.
import * as path from "node:path";
import { kbz } from "../core/text/command.ts";
import { leafOfLedger } from "../core/plan/leaf-id.ts";
import type { Cascade } from "../core/schedule/advise.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { resolveTarget } from "../io/discover.ts";
import { checkGates, type CheckResult, type CheckRequest } from "./check.ts";
import { loadSnapshot } from "./snapshot.ts";
import { inspectReceipt } from "../io/receipts/audit.ts";
import { explainReceipt } from "../io/receipts/explain.ts";
import { verifyRun, type LedgerResult } from "./verifyRun.ts";
import { readReceiptFile, receiptOf, type ReceiptFile } from "../io/receipts/file.ts";
import type { Env } from "../io/run/shell.ts";

export type { Cascade };

interface StaleGate {
  qid: string;
  ledger: string; // root-relative
  leaf: string | null;
  cause: string;
}

interface StaleReceipt {
  ledger: string; // root-relative receipt key
  leaf: string | null;
  cause: string;
}

const rel = (root: string, file: string) => path.relative(root, path.resolve(root, file)).split(path.sep).join("/");

const leafOf = leafOfLedger;

/** "STALE (input changed: src/parse.js)", "STALE (oracle changed: a, b; …)": the first file named. */
function causeOf(reason: string | undefined): string | null {
  const m = /^STALE \((?:input|oracle) changed: ([^;),]+)/.exec(reason ?? "");
  return m ? m[1]!.trim() : null;
}

function staleGates(root: string, snap: Snapshot): StaleGate[] {
  const out: StaleGate[] = [];
  for (const g of snap.gates) {
    if (g.state !== "stale-unmet") continue;
    const cause = causeOf(g.reason);
    if (cause === null) continue;
    const ledger = rel(root, g.file);
    out.push({ qid: g.qid, ledger, leaf: leafOf(ledger), cause });
  }
  return out;
}

/** Where the receipts are read from: the receipts file as read, and the ledgers' texts when the verb holds them. */
export interface ReceiptsRead {
  receiptFile: ReceiptFile;
  ledgerText?: (key: string) => string | null | undefined;
}

/** Accepted receipts of the scope that are no longer current, each with the input that moved. */
function staleReceipts(root: string, scope: string, from: ReceiptsRead, env: Env): StaleReceipt[] {
  const { receiptFile, ledgerText } = from;
  const out: StaleReceipt[] = [];
  const prefix = `.unlazy/${scope}/`;
  for (const key of Object.keys(receiptFile.receipts).sort()) {
    if (!key.startsWith(prefix) || receiptOf(receiptFile, key)?.status !== "accepted") continue;
    const r = inspectReceipt(root, key, { receiptFile, env, ledgerText });
    if (r.current) continue;
    const changes = explainReceipt(root, key, { env, receiptFile, ledgerText }).changes;
    const moved = changes.find((c) => c.path !== undefined && c.kind.startsWith("input"));
    out.push({ ledger: key, leaf: leafOf(key), cause: moved?.path ?? changes[0]?.text ?? r.reason });
  }
  return out;
}

/**
 * What is stale in the scope `snap` holds, grouped by the file that changed (kbz next's CASCADE
 * lines): from the snapshot and receipts the verb read, nothing read again.
 */
export function cascadesOf(snap: Snapshot, from: ReceiptsRead, env: Env = process.env, rootFlag?: string): Cascade[] {
  const root = snap.target.root;
  const scope = snap.target.scope!;
  const gates = staleGates(root, snap);
  const receipts = staleReceipts(root, scope, from, env);
  const byCause = new Map<string, { gates: number; receipts: number; leaves: Set<string> }>();
  const entry = (cause: string) => {
    let e = byCause.get(cause);
    if (!e) byCause.set(cause, (e = { gates: 0, receipts: 0, leaves: new Set() }));
    return e;
  };
  for (const g of gates) {
    const e = entry(g.cause);
    e.gates++;
    if (g.leaf) e.leaves.add(g.leaf);
  }
  for (const r of receipts) {
    const e = entry(r.cause);
    e.receipts++;
    if (r.leaf) e.leaves.add(r.leaf);
  }
  const collator = new Intl.Collator("en", { numeric: true });
  return [...byCause.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([cause, e]) => ({
      cause,
      gates: e.gates,
      receipts: e.receipts,
      leaves: [...e.leaves].sort(collator.compare),
      next: kbz("check", { scope, root: rootFlag, stale: true }),
    }));
}

export interface RefreshRequest extends Omit<CheckRequest, "files" | "scope" | "only" | "reverify"> {
  root: string; // canonical
  scope: string;
}

export interface RefreshResult {
  /** The stale gates run by `kbz check` (none when every stale gate's ledger holds a receipt). */
  check: CheckResult | null;
  /** The stale receipts run again, with the policy each was accepted under. */
  receipts: LedgerResult[];
  gates: number; // stale gates refreshed (through either path)
  stillStale: string[]; // qids still not met afterwards
  exit: 0 | 1 | 2;
}

/** `kbz check --stale`: re-run every stale gate and every stale receipt of a scope, once each. */
export async function refreshStale(req: RefreshRequest): Promise<RefreshResult> {
  const { root, scope } = req;
  const snap = loadSnapshot(resolveTarget({ root, scope }));
  const gates = staleGates(root, snap);
  const receiptFile = readReceiptFile(root);
  const receipts = staleReceipts(root, scope, { receiptFile }, req.env);
  const viaReceipt = new Set(receipts.map((r) => r.ledger));
  const direct = gates.filter((g) => !viaReceipt.has(g.ledger));
  let check: CheckResult | null = null;
  if (direct.length > 0)
    check = (
      await checkGates({ ...req, scope, files: [], reverify: false, only: direct.map((g) => g.qid), snapshot: snap })
    ).result;
  const results: LedgerResult[] = [];
  if (receipts.length > 0) {
    // Each receipt keeps its own policy; verify run re-runs its whole ledger from the root.
    for (const r of receipts) {
      const policy = receiptOf(receiptFile, r.ledger)!.policy!;
      results.push(
        ...(await verifyRun({
          root,
          ledgers: [r.ledger],
          policy,
          approve: req.approve,
          reviewed: false,
          env: req.env,
          timeoutS: req.timeoutS,
        })),
      );
    }
  }
  const after = loadSnapshot(resolveTarget({ root, scope }));
  const wanted = new Set(gates.map((g) => g.qid));
  const stillStale = after.gates.filter((g) => wanted.has(g.qid) && g.state !== "met").map((g) => g.qid);
  const receiptsOk = results.every((r) => r.status === "ACCEPTED" || r.status === "CURRENT_EVIDENCE");
  const broken = check !== null && check.exit === 2;
  return {
    check,
    receipts: results,
    gates: gates.length,
    stillStale,
    exit: broken ? 2 : stillStale.length === 0 && receiptsOk ? 0 : 1,
  };
}
