// kbz approve: a person's review of every pending oracle (a runnable gate whose exact oracle has
// no approval), one at a time, answered y(es) / n(o) / a(ll that remain) / q(uit). Only a person
// may run it (io/run/consent.ts); each approval is recorded and logged as given at the terminal.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe } from "../core/errors.ts";
import { isRunnable } from "../core/ledger/model.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { sanitize } from "../core/text/sanitize.ts";
import { probeRequests } from "../io/run/probeRequests.ts";
import { runProbes, type ProbeItem } from "./probe.ts";
import { scopesOf } from "./workspace.ts";
import { kbz } from "../core/text/command.ts";
import { FileProblemsError } from "../core/errors.ts";
import { baseDir, pendingTasks, type CheckTask, type RunSettings } from "../io/check/plan.ts";
import { observeForApproval } from "../io/check/observe.ts";
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
  /** The target as read (its manual gates are listed from it). */
  snap: Snapshot;
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
  return { consent, store, root, pending, views, snap, run: { settings, env: req.env, snap } };
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

/** A manual gate (no CHECK) waiting for a person's sign-off. */
export interface ManualGate {
  qid: string;
  file: string;
  /** The ledger, root-relative. */
  ledger: string;
  title: string;
  /** The gate's lines as written, for the person to read before typing the evidence. */
  lines: string[];
  scope: string | null;
}

/** A probe waiting for a person's approval, with what it hides (root-relative). */
export interface PendingProbe {
  item: ProbeItem;
  hides: string[];
  scope: string | null;
}

/** Everything that waits for the person in a root (issue 39): oracles of every target, probes asked for, manual gates. */
export interface PendingEverything {
  targets: { scope: string | null; oracles: PendingOracles }[];
  probes: PendingProbe[];
  manual: ManualGate[];
  /** Why the probes could not be listed (no bubblewrap), or null. */
  probeProblem: string | null;
}

/**
 * `kbz approve` with no argument: the solo ledgers and every scope (each pending oracle once),
 * the probes `kbz check --probe` asked a person for (io/run/probeRequests.ts), and the manual
 * gates not yet signed. A person only.
 */
export async function pendingEverything(req: { root: string; env: Env }): Promise<PendingEverything> {
  requirePerson("approve", { env: req.env });
  const out: PendingEverything = { targets: [], probes: [], manual: [], probeProblem: null };
  const seen = new Set<string>();
  const requested = new Set(probeRequests(approvalDirFor(req.env), req.root));
  const scopes = scopesOf(req.root);
  // Each scope together with the solo ledgers (as status judges them); the solo ledgers alone when there is no scope.
  for (const scope of scopes.length === 0 ? [null] : scopes) {
    const oracles = pendingOracles({ root: req.root, files: [], scope, solo: scope !== null, env: req.env });
    const keep = oracles.pending
      .map((t, i) => ({ t, v: oracles.views[i]! }))
      .filter(({ t }) => !seen.has(`${t.file}\0${t.gate.id}`));
    for (const { t } of keep) seen.add(`${t.file}\0${t.gate.id}`);
    oracles.pending = keep.map((k) => k.t);
    oracles.views = keep.map((k) => k.v);
    out.targets.push({ scope, oracles });
    for (const g of oracles.snap.gates) {
      const key = `manual\0${g.file}\0${g.gate.id}`;
      if (seen.has(key) || isRunnable(g.gate) || g.gate.checked || g.state === "abandoned" || g.gate.check) continue;
      seen.add(key);
      out.manual.push({
        qid: g.qid,
        file: g.file,
        ledger: path.relative(req.root, g.file) || g.file,
        title: g.gate.title,
        lines: gateLines(g.file, g.gate.line),
        scope,
      });
    }
    const asked = oracles.snap.gates.filter((g) => requested.has(g.qid)).map((g) => g.qid);
    if (asked.length === 0) continue;
    try {
      const planned = await runProbes({
        root: req.root,
        files: [],
        scope,
        solo: scope !== null,
        env: req.env,
        approve: false,
        timeoutS: DEFAULT_TIMEOUT_S,
        only: asked,
        planOnly: true,
      });
      for (const item of planned.items) {
        const key = `probe\0${item.file}\0${item.gate.id}`;
        if (item.verdict !== "approval-required" || seen.has(key)) continue;
        seen.add(key);
        out.probes.push({
          item,
          hides: item.hidden.map((h) => (h.startsWith(`${req.root}/`) ? h.slice(req.root.length + 1) : h)),
          scope,
        });
      }
    } catch (e) {
      out.probeProblem = describe(e);
    }
  }
  return out;
}

/** The gate's own lines (its title line and its indented attributes), as the person reads them. */
function gateLines(file: string, line: number): string[] {
  try {
    const all = fs.readFileSync(file, "utf8").split("\n");
    const out = [all[line - 1] ?? ""];
    for (let i = line; i < all.length && /^\s+\S/.test(all[i]!); i++) out.push(all[i]!);
    return out.map((l) => sanitize(l));
  } catch {
    return [];
  }
}

/** Record the person's approval of a probe's oracle (what it hides was shown). */
export async function approveProbe(p: PendingOracles, probe: PendingProbe): Promise<void> {
  const item = probe.item;
  await p.store.record(item.file, item.gate.id, item.oracle!, p.consent.given);
  logConsent(p.consent, `${path.resolve(item.file)} ${item.gate.id} probe (${kbz("approve")})`);
}

export { terminalKeys, type Keys } from "../io/terminal.ts";
