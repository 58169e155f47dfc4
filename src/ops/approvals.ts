// `kbz approvals` as use cases: the approval store (outside the repository), why a gate's current
// oracle is or is not approved, withdrawing consent (revoke), forgetting what is obsolete (prune,
// with the person's confirmation of REMOVED gates) and the consent policy. A person's acts go
// through io/run/consent.ts. Options in, data out; cli/approvals.ts prints.
import * as path from "node:path";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { nearMissLines } from "../core/run/differ.ts";
import { pruneRemoved } from "../io/check/attested.ts";
import { pendingTasks, type CheckTask } from "../io/check/plan.ts";
import { DEFAULT_TIMEOUT_S, runSettings } from "./checkRun.ts";
import { snapshotForRequest } from "./snapshot.ts";
import { ApprovalStore, ApprovalStoreError, approvalDirFor, type StoredApproval } from "../io/run/approval.ts";
import { readPolicyState, verifyActsLog, writePolicy, type Policy, type PolicyState } from "../io/run/personal.ts";
import { obsoleteReason } from "../io/run/prune.ts";
import { pruneKept } from "../io/run/kept.ts";
import { changedOracleDiffs } from "./approvalView.ts";
import { logConsent, requirePerson } from "../io/run/consent.ts";

export { ApprovalStore, ApprovalStoreError };
export type { StoredApproval };

type Env = Record<string, string | undefined>;

/** The approval store this environment names (UNLAZY_APPROVAL_DIR, else ~/.unlazy/approved). */
export function approvalStore(env: Env): ApprovalStore {
  return new ApprovalStore(approvalDirFor(env), null);
}

export interface ApprovalExplanation {
  task: CheckTask;
  /** Records of the same ledger and gate. */
  same: number;
  approved: boolean;
  /** The near-miss lines: how the nearest record differs (empty when approved). */
  lines: string[];
  /** Each changed oracle file's short diff since the approval (from git HEAD). */
  diffs: ReturnType<typeof changedOracleDiffs>;
  verdict: "approved" | "never-approved" | "approved-for-other-inputs";
}

/** `approvals explain LEDGER GATE`: is the gate's current oracle approved, and if not, what differs. */
export function explainApproval(
  store: ApprovalStore,
  root: string,
  file: string,
  gateId: string,
  ledger: string,
  env: Env,
): ApprovalExplanation {
  const snap = snapshotForRequest({ root, files: [file], scope: null });
  if (snap.problems.length > 0) throw new FileProblemsError(snap.problems);
  const settings = runSettings({ env, timeoutS: DEFAULT_TIMEOUT_S }, root);
  const task = pendingTasks(snap, settings, true).find((t) => t.gate.id === gateId);
  if (!task) throw new UsageError(`GATE: ${gateId} is not a runnable, live gate of ${ledger}`);
  const same = store
    .list()
    .flatMap((a) =>
      a.record && a.record.file === path.resolve(task.file) && a.record.gate === gateId ? [a.record] : [],
    );
  const approved = store.isApproved(task.file, gateId, task.oracle);
  const lines = approved ? [] : nearMissLines(path.resolve(task.file), same, task.oracle, root);
  const diffs = approved ? [] : changedOracleDiffs(root, same, task.oracle);
  const verdict = approved ? "approved" : same.length === 0 ? "never-approved" : "approved-for-other-inputs";
  return { task, same: same.length, approved, lines, diffs, verdict };
}

/**
 * `approvals revoke <ledger> [gate]` or `--record NAME` (a person's act, asked before anything
 * else): remove the chosen records; returns those removed.
 */
export function revokeApprovals(store: ApprovalStore, args: string[], records: string[], env: Env): StoredApproval[] {
  const consent = requirePerson("revoke", { env });
  const [ledger, gate, ...rest] = args;
  const names = records.map((n) => (n.endsWith(".json") ? n : `${n}.json`));
  if (rest.length > 0 || (!ledger && names.length === 0) || (ledger && names.length > 0)) {
    throw new UsageError("revoke takes <ledger> [gate] or --record NAME");
  }
  const file = ledger ? path.resolve(ledger) : null;
  const chosen = store
    .list()
    .filter((a) =>
      file ? a.record?.file === file && (gate === undefined || a.record.gate === gate) : names.includes(a.name),
    );
  const removed = store.remove(chosen.map((a) => a.name));
  const gone = chosen.filter((a) => removed.includes(a.name));
  if (gone.length > 0)
    logConsent(
      consent,
      `revoked ${gone.map((a) => `${a.record?.file ?? "?"} ${a.record?.gate ?? a.name}`).join(", ")}`,
    );
  return gone;
}

export interface Pruned {
  /** REMOVED gates of this repository whose records the person confirmed gone. */
  forgotten: string[];
  /** Obsolete records removed, each with why. */
  gone: { a: StoredApproval; reason: string }[];
  /** Crashed writers' temp files and gone holders' locks swept. */
  litter: string[];
  /** Kept oracle bytes no remaining approval names (io/run/kept.ts), removed. */
  kept: number;
}

/** `approvals prune` (a person's act): confirm REMOVED gates, drop obsolete records, sweep litter. */
export async function pruneApprovals(store: ApprovalStore, root: string, env: Env): Promise<Pruned> {
  const consent = requirePerson("prune", { env });
  const forgotten = await pruneRemoved(store.dir, root);
  if (forgotten.length > 0) logConsent(consent, `confirmed removed ${forgotten.join(", ")}`);
  const doomed = store.list().flatMap((a) => {
    const reason = a.record ? obsoleteReason(a.record) : null;
    return reason ? [{ a, reason }] : [];
  });
  const removed = new Set(store.remove(doomed.map((d) => d.a.name)));
  const gone = doomed.filter((d) => removed.has(d.a.name));
  const litter = store.sweepLitter();
  // The approved bytes only the pruned records kept go with them (issue 39: what the kept cap counts).
  const named = new Set<string>();
  for (const a of store.list()) for (const v of Object.values(a.record?.kept ?? {})) named.add(v.split(" ")[0]!);
  const kept = pruneKept(store.dir, named);
  return { forgotten, gone, litter, kept };
}

/** Who may approve here: "person" (the default), "signed" or "agent" (unlazy's consent model), and whether policy.json was edited by hand. */
export function approvalPolicy(store: ApprovalStore): PolicyState & { acts: { lines: number; bad: number[] } } {
  return { ...readPolicyState(store.dir), acts: verifyActsLog(store.dir) };
}

/** Set the policy: a person's act under every policy. */
export function setApprovalPolicy(store: ApprovalStore, wanted: Policy, env: Env): void {
  const consent = requirePerson("policy", { env, always: true });
  writePolicy(store.dir, wanted, consent.given);
  logConsent(consent, `policy ${wanted}`);
}
