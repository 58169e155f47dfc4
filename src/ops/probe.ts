// The vacuity probe: re-run a passed gate's CHECK once more in the
// sandbox with the gate's deliverable hidden. A CHECK that still passes without the thing it is
// about is VACUOUS. What is hidden: the gate's INPUTS, else the ledger's OWNS paths, else (a
// solo ledger) the files that differ from git HEAD. Files are replaced by an empty file,
// directories by an empty directory. The probe's oracle is the gate's oracle with the hidden
// paths in its sandbox profile, so it needs its own approval; it never writes evidence, only a
// probe record in kbz's record files that status, lint, next and the Stop hook read.
// The oracle (every file the approval binds: io/oracle/binding.ts) is never hidden, and a gate that
// cannot be probed is a warning: `--probe` exits 1 unless every probed gate observes.
// A VACUOUS gate is unmet. Under the person policy the verdict is also kept in the
// approval store (io/run/attest.ts recordVacuity), bound to the gate's definition and the oracle
// its pass ran under, and it withdraws the gate's approvals: no file in the repository clears it,
// and the CHECK runs again only once a person approves it; a pass under another oracle (which a
// person approved) or a probe that observes clears it.
// The CHECK runs on a throwaway overlay of the repository (io/run/view.ts), so
// it cannot move or delete the live deliverable; afterwards every hidden file must still have the
// digest it had before, else the run says so loudly (DAMAGED, exit 2).
import { changedFromHead } from "../io/gitBlobs.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { FileProblemsError } from "../core/errors.ts";
import { expandInputs } from "../io/inputs/expand.ts";
import { isRunnable, type Gate, type Ledger } from "../core/ledger/model.ts";
import { gateDigest } from "../core/ledger/digest.ts";
import { executeCheck, type RunOutcome } from "../io/run/execute.ts";
import { oracleSignature, type RuntimeOracle } from "../core/run/oracle.ts";
import { ApprovalStore, approvalDirFor, assertStoreOutside } from "../io/run/approval.ts";
import { resolveBwrap, sandboxProfile } from "../io/run/sandbox.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { snapshotForRequest } from "./snapshot.ts";
import { baseDir, gateCwd, oracleFor, realCwd, type RunSettings } from "../io/check/plan.ts";
import { runSettings, type CheckRequest } from "./checkRun.ts";
import { checkEnvironment } from "../io/oracle/env.ts";
import { recordProbes, type ProbeRecord } from "../io/check/probeRecords.ts";
import { logConsent, requirePerson } from "../io/run/consent.ts";
import { oracleBinding } from "../io/oracle/binding.ts";
import type { Env } from "../io/run/shell.ts";
import { throwawayView, viewUsable } from "../io/run/view.ts";
import { digestFile } from "../io/inputs/records.ts";
import { readPolicy } from "../io/run/personal.ts";
import { recordVacuity } from "../io/run/attest.ts";
import { readOracleRecords } from "../io/oracle/records.ts";
import { NO_RECORD, type VacuityStored } from "../core/trace.ts";
import { requestProbes } from "../io/run/probeRequests.ts";

export type ProbeVerdict =
  | "vacuous"
  | "observes"
  | "nothing-hidden"
  | "approval-required"
  | "not-run"
  | "no-view"
  | "damaged";

export interface ProbeItem {
  qid: string;
  file: string;
  gate: Gate;
  cwd: string;
  oracle: RuntimeOracle | null;
  hidden: string[]; // real paths
  hiddenFrom: "INPUTS" | "OWNS" | "git" | "none";
  verdict: ProbeVerdict;
  recorded: string | null; // approval record written now
  outcome: RunOutcome | null;
  /** Hidden paths (real) whose digest changed or that vanished while the probe ran. */
  damaged?: string[];
  /** Why the gate could not be probed (no-view), or why its probe did not run to its end (not-run). */
  why?: string;
  /** VACUOUS under the person policy: how many of the gate's approvals the verdict withdrew. */
  withdrawn?: number;
}

export interface ProbeResult {
  snapshot: Snapshot;
  items: ProbeItem[];
  exit: 0 | 1 | 2;
}

const SKIP = (rel: string) =>
  rel.startsWith(".kbz/") || rel.startsWith(".unlazy/") || rel === ".git" || rel.startsWith(".git/");

/**
 * Files that differ from git HEAD under `root` (changed, staged or untracked), root-relative.
 * git never reads a worktree file's content here (io/gitBlobs.ts: kbz hashes them).
 */
export function filesChangedFromHead(root: string): string[] {
  const names = changedFromHead(root) ?? [];
  return names.filter((n) => !SKIP(n) && fs.existsSync(path.join(root, n))).sort();
}

/**
 * The real paths of the approval's oracle (io/oracle/binding.ts: the files the CHECK runs, the
 * package.json whose scripts it runs and the files they name, its ORACLE: files): never hidden.
 */
function oraclePaths(root: string, ledgerFile: string, gate: Gate, cwd: string, env: Env): Set<string> {
  const display = path.relative(root, ledgerFile) || ledgerFile;
  const b = oracleBinding({ root, display, gate, cwd, env, digestOf: () => "" });
  return new Set(b.items.map((i) => realCwd(i.abs)));
}

/** What the probe hides for one gate, as real paths, and where that list came from. */
export function deliverableOf(
  root: string,
  ledgerFiles: Set<string>,
  ledger: Ledger,
  gate: Gate,
  cwd: string,
  at: { file: string; env: Env },
): { hidden: string[]; from: ProbeItem["hiddenFrom"] } {
  const oracle = oraclePaths(root, at.file, gate, cwd, at.env);
  const real = (base: string, rels: string[]) =>
    rels.map((r) => realCwd(path.join(base, r))).filter((p) => !ledgerFiles.has(p) && !oracle.has(p));
  if (gate.inputs) return { hidden: real(cwd, expandInputs(cwd, gate.inputs).files), from: "INPUTS" };
  if (ledger.owns.length > 0) return { hidden: real(root, expandInputs(root, ledger.owns).files), from: "OWNS" };
  const git = real(root, filesChangedFromHead(root));
  return git.length > 0 ? { hidden: git, from: "git" } : { hidden: [], from: "none" };
}

export interface ProbeRequest extends Omit<CheckRequest, "reverify" | "jobs" | "observer" | "sandbox"> {
  observer?: { item?(item: ProbeItem): void };
  /**
   * Issue 39 (`kbz approve`): only plan: each probe's oracle and what it hides, approval-required
   * when it is not approved, nothing approved, run or recorded.
   */
  planOnly?: boolean;
}

export async function runProbes(req: ProbeRequest): Promise<ProbeResult> {
  const consent = req.approve ? requirePerson("approve", { env: req.env }) : null;
  const snap = req.snapshot ?? snapshotForRequest(req);
  if (snap.problems.length > 0) throw new FileProblemsError(snap.problems);
  const root = snap.target.root;
  const settings: RunSettings = runSettings({ ...req, sandbox: true }, root);
  const storeDir = approvalDirFor(req.env);
  assertStoreOutside(storeDir, [root, path.resolve(req.root ?? process.cwd())]);
  const store = new ApprovalStore(storeDir, root);
  const bwrap = resolveBwrap(req.env);
  const only = req.only ? new Set(req.only) : null;
  const ledgers = new Map(snap.ledgers.map((l) => [l.file, l.ledger!]));
  const ledgerFiles = new Set(snap.ledgers.map((l) => realCwd(l.file)));
  const items: ProbeItem[] = [];
  const records = new Map<string, Record<string, ProbeRecord>>();
  const requested: string[] = [];
  for (const v of snap.gates) {
    // A VACUOUS gate is probed again: a probe that observes is one way its verdict clears.
    if ((v.state !== "met" && v.state !== "vacuous") || !isRunnable(v.gate) || (only && !only.has(v.qid))) continue;
    const ledger = ledgers.get(v.file)!;
    const base = baseDir(snap, v.file, settings);
    const cwd = gateCwd(base, v.gate);
    const { hidden, from } = deliverableOf(root, ledgerFiles, ledger, v.gate, realCwd(cwd), {
      file: v.file,
      env: settings.env,
    });
    const item: ProbeItem = {
      qid: v.qid,
      file: v.file,
      gate: v.gate,
      cwd,
      oracle: null,
      hidden,
      hiddenFrom: from,
      verdict: "nothing-hidden",
      recorded: null,
      outcome: null,
    };
    items.push(item);
    if (hidden.length === 0) {
      req.observer?.item?.(item);
      continue;
    }
    const writable = (ledger.sandbox?.writable ?? [])
      .map((w) => ({ path: w, origin: v.file }))
      .concat(settings.sandbox.writable);
    const profile = {
      ...sandboxProfile(bwrap, root, writable, req.env.HOME || "/root", req.env, settings.sandbox.readable ?? []),
      hidden,
      view: "overlay" as const,
    };
    const oracle = oracleFor(v.file, base, v.gate, settings, profile);
    item.oracle = oracle;
    if (req.planOnly) {
      item.verdict = store.isApproved(v.file, v.gate.id, oracle) ? "not-run" : "approval-required";
      continue;
    }
    if (!store.isApproved(v.file, v.gate.id, oracle)) {
      if (!req.approve) {
        item.verdict = "approval-required";
        requested.push(v.qid);
        req.observer?.item?.(item);
        continue;
      }
      item.recorded = await store.record(v.file, v.gate.id, oracle, consent!.given);
      logConsent(consent!, `${v.file} ${v.gate.id} probe`);
    }
    const view = throwawayView(profile.writable[0]!);
    if (!view) {
      item.verdict = "no-view";
      item.why = (viewUsable() as { why?: string }).why ?? "no throwaway view";
      req.observer?.item?.(item);
      continue;
    }
    const before = hidden.map((h) => fingerprint(root, h));
    let outcome: RunOutcome;
    try {
      outcome = await executeCheck({
        shell: settings.shell,
        check: v.gate.check!,
        expect: { text: v.gate.expect!, regex: v.gate.expectRegex },
        cwd: oracle.cwd,
        env: checkEnvironment(req.env, v.gate.env),
        timeoutMs: settings.timeoutMs,
        sandbox: profile,
        wrap: view.wrap,
      });
    } finally {
      view.dispose();
    }
    item.outcome = outcome;
    item.damaged = hidden.filter((h, i) => fingerprint(root, h) !== before[i]);
    if (item.damaged.length > 0) {
      item.verdict = "damaged";
      req.observer?.item?.(item);
      continue;
    }
    // Only a CHECK that ran to its end and failed observes: a timeout, a kill or a CHECK that could
    // not start says nothing about the deliverable (and would let a slowed machine clear a VACUOUS verdict).
    if (!outcome.ok && (outcome.error !== null || outcome.signal !== null)) {
      item.verdict = "not-run";
      item.why = outcome.error ?? `killed by ${outcome.signal}`;
      req.observer?.item?.(item);
      continue;
    }
    item.verdict = outcome.ok ? "vacuous" : "observes";
    const rec: ProbeRecord = {
      definition: gateDigest(v.gate)!,
      evidence: v.gate.evidence ?? "",
      verdict: item.verdict,
      hidden,
      signature: oracleSignature(oracle),
    };
    (records.get(v.file) ?? records.set(v.file, {}).get(v.file)!)[v.gate.id] = rec;
    req.observer?.item?.(item);
  }
  if (req.planOnly) return { snapshot: snap, items, exit: 0 };
  return finishProbes({ snap, items, records, requested, storeDir, store });
}

/** Keep what the probes found (records, requests for a person, the person policy's verdicts) and the exit code. */
async function finishProbes(r: {
  snap: Snapshot;
  items: ProbeItem[];
  records: Map<string, Record<string, ProbeRecord>>;
  requested: string[];
  storeDir: string;
  store: ApprovalStore;
}): Promise<ProbeResult> {
  const { snap, items, records, requested, storeDir, store } = r;
  const root = snap.target.root;
  // The probes that wait for a person: `kbz approve` lists them (io/run/probeRequests.ts).
  if (requested.length > 0) requestProbes(storeDir, root, requested);
  for (const [file, recs] of records) await recordProbes(root, file, recs);
  if (readPolicy(storeDir) !== "agent") await keepVerdicts(storeDir, root, store, items, records);
  const exit = items.some((i) => i.verdict === "damaged") ? 2 : items.every((i) => i.verdict === "observes") ? 0 : 1;
  return { snapshot: snap, items, exit };
}

/**
 * The person policy's half of a probe's verdicts: kept in the approval store (VACUOUS, or cleared
 * by an observing probe), and a VACUOUS gate's approvals withdrawn.
 */
async function keepVerdicts(
  storeDir: string,
  root: string,
  store: ApprovalStore,
  items: ProbeItem[],
  records: Map<string, Record<string, ProbeRecord>>,
): Promise<void> {
  const approvals = items.some((i) => i.verdict === "vacuous") ? store.list() : [];
  for (const [file, recs] of records) {
    const passes = readOracleRecords(root, file).gates;
    const verdicts: Record<string, VacuityStored | null> = {};
    for (const [id, r] of Object.entries(recs)) {
      if (r.verdict !== "vacuous") {
        verdicts[id] = null;
        continue;
      }
      // The oracle this pass ran under: its oracle pass record's signature, as status reads it.
      const pass = passes[id];
      const oracle =
        pass && pass.definition === r.definition && pass.evidence === r.evidence ? pass.signature : NO_RECORD;
      const hidden = r.hidden.slice(0, 5).map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h));
      verdicts[id] = { definition: r.definition, oracle, hidden };
      const item = items.find((i) => i.file === file && i.gate.id === id)!;
      item.withdrawn = store.remove(
        approvals.filter((a) => a.record?.file === file && a.record.gate === id).map((a) => a.name),
      ).length;
    }
    await recordVacuity(storeDir, root, file, verdicts);
  }
}

/** What a hidden path is now: its streamed digest, "dir", or "missing". */
function fingerprint(root: string, p: string): string {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return "missing";
  }
  if (st.isDirectory()) return "dir";
  return digestFile(fs.realpathSync(root), p) ?? `unreadable ${st.mode}`;
}

/** One line per probed gate, for a terminal (what was hidden, so a person can judge). */
export function probeLine(item: ProbeItem, root: string): string {
  const shown = item.hidden.map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h));
  const list = shown.length > 5 ? `${shown.slice(0, 5).join(", ")}, +${shown.length - 5} more` : shown.join(", ");
  switch (item.verdict) {
    case "vacuous":
      return `  VACUOUS ${item.qid}: passed with its deliverable hidden (${item.hiddenFrom}: ${list})${item.withdrawn ? "; its approval is withdrawn: a person makes the CHECK observe it and approves it" : ""}`;
    case "observes":
      return `  OBSERVES ${item.qid}: failed with its deliverable hidden (${item.hiddenFrom}: ${list})`;
    case "nothing-hidden":
      return `  NOT PROBED ${item.qid}: warning: no deliverable to hide apart from the files its CHECK runs (declare INPUTS: or OWNS:, or commit the rest to git)`;
    case "no-view":
      return `  NOT PROBED ${item.qid}: warning: no throwaway view of the repository to probe in (${item.why}); the probe never runs on the live tree`;
    case "damaged": {
      const lost = item.damaged!.map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h)).join(", ");
      return `  DAMAGED ${item.qid}: hidden paths changed while the probe ran: ${lost}; check them now`;
    }
    case "approval-required":
      return `  APPROVAL REQUIRED ${item.qid} (probe): hides ${list}`;
    default:
      return `  NOT RUN ${item.qid}${item.why ? `: ${item.why}; the probe says nothing about its deliverable` : ""}`;
  }
}
