// kbz approve: a person's review of every pending oracle (a runnable gate whose exact oracle has
// no approval), one at a time, answered y(es) / n(o) / a(ll that remain) / q(uit). Only a person
// may run it (io/run/consent.ts); each approval is recorded and logged as given at the terminal.
import * as path from "node:path";
import { kbz } from "../core/text/command.ts";
import { FileProblemsError } from "../core/errors.ts";
import { baseDir, pendingTasks, type CheckTask, type RunSettings } from "../io/check/plan.ts";
import { observeForApproval } from "../io/check/observe.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { DEFAULT_TIMEOUT_S, runSettings } from "./checkRun.ts";
import { snapshotForRequest, type TargetRequest } from "./snapshot.ts";
import { ApprovalStore, approvalDirFor, assertStoreOutside } from "../io/run/approval.ts";
import { noteApproved } from "../io/run/attest.ts";
import { approvalView, ledgerExtras, type ApprovalView } from "./approvalView.ts";
import type { Actor } from "../core/person.ts";
import { logConsent, requirePerson, type Consent } from "../io/run/consent.ts";
import { identityForAct, signApproval } from "../io/sign/act.ts";

type Env = Record<string, string | undefined>;

export interface PendingOracles {
  consent: Consent;
  store: ApprovalStore;
  root: string;
  pending: CheckTask[];
  /** What the person sees of each pending oracle (ops/approvalView.ts), in the same order. */
  views: ApprovalView[];
  /** For the traced run an approval makes (issue 39): the run settings, the caller's environment and the snapshot. */
  run?: { settings: RunSettings; env: Env; snap: Snapshot };
}

/** Every live runnable gate of the target whose current oracle is not approved (a person only). */
export function pendingOracles(
  req: TargetRequest & { env: Env; actor?: Actor; via?: "terminal" | "dashboard" },
): PendingOracles {
  const consent = requirePerson("approve", { env: req.env, via: req.via, actor: req.actor });
  const snap = snapshotForRequest(req);
  if (snap.problems.length > 0) throw new FileProblemsError(snap.problems);
  const root = snap.target.root;
  const settings = runSettings({ env: req.env, timeoutS: DEFAULT_TIMEOUT_S }, root);
  const dir = approvalDirFor(req.env);
  assertStoreOutside(dir, [root]);
  const store = new ApprovalStore(dir, root);
  const pending = pendingTasks(snap, settings, true).filter((t) => !store.isApproved(t.file, t.gate.id, t.oracle));
  const extras = ledgerExtras(snap);
  const views = pending.map((t) => approvalView(t, { root, env: settings.env, store, ...extras }));
  return { consent, store, root, pending, views, run: { settings, env: req.env, snap } };
}

/** Record the person's approval of one reviewed oracle. */
export async function approveOracle(
  p: PendingOracles,
  task: CheckTask,
  how = kbz("approve"),
  env: Env = process.env,
): Promise<string> {
  // Issue 39 (observe's hook; enforce owns this screen): the consented CHECK runs once traced, and
  // the oracle files it reads join what this approval binds.
  if (p.run) await observeForApproval(task, p.run.settings, p.run.env, baseDir(p.run.snap, task.file, p.run.settings));
  // With a signing key (required under the signed policy) the signed record goes into the repository (io/sign/act.ts).
  const id = identityForAct(p.root, p.consent.policy, env);
  if (id) signApproval(p.root, id, task.file, task.gate, task.oracle, env);
  const record = await p.store.record(task.file, task.gate.id, task.oracle, p.consent.given);
  logConsent(p.consent, `${path.resolve(task.file)} ${task.gate.id} ${task.signature} (${how})`);
  await noteApproved(p.consent.store, p.root, task.file, [task.gate.id]);
  return record;
}
