// The approval view (issue 27): everything a person must see before approving one oracle, built
// once for every place a person approves: `kbz approve` (cli/approve.ts) and the dashboard's
// Approvals panel (tui). The CHECK, EXPECT, CWD, shell and PATH; the oracle files the CHECK runs
// (with how it reaches each) and the ENV names whose values the approval binds; and, when the gate
// was approved before for another oracle, what differs and a short git diff of each changed file.
// Data only: each edge renders it (approvalViewLines is the plain-text form).
import * as path from "node:path";
import { lintLedger, type LintFinding } from "../core/ledger/lint.ts";
import type { Snapshot } from "../core/snapshot.ts";
import { inputFindings } from "../io/inputs/lint.ts";
import { nearestApproval, nearMissLines } from "../core/run/differ.ts";
import type { RuntimeOracle } from "../core/run/oracle.ts";
import { cwdShown, type CheckTask } from "../io/check/plan.ts";
import { oracleBinding } from "../io/oracle/binding.ts";
import { diffSinceApproval } from "../io/oracle/explain.ts";
import { latestApproval, type ApprovalRecord, type ApprovalStore } from "../io/run/approval.ts";
import { keptBytesOf, keptEntry, keyPath } from "../io/run/kept.ts";
import { unifiedDiff } from "../core/text/unified.ts";
import * as fs from "node:fs";
import { sandboxLine } from "../io/run/sandbox.ts";
import { pathFacts, type Env } from "../io/run/shell.ts";

export interface OracleFileView {
  /** Root-relative path, or `package.json#scripts.test` for a package-manager script. */
  key: string;
  /** How the CHECK reaches it: `node`, `bash`, `npm test`, `ORACLE` (declared), … */
  via: string;
  /** `missing`, `directory`, … when it is not a readable file today; null when it is. */
  problem: string | null;
}

export interface EnvNameView {
  name: string;
  /** False when the name is declared but unset: the approval binds "unset". */
  set: boolean;
}

export interface ApprovalView {
  qid: string;
  title: string;
  /** The ledger, root-relative where it is inside the root. */
  ledger: string;
  gate: string;
  /** The oracle's signature (what `--approve=<sig>` names, first 12 characters). */
  signature: string;
  check: string;
  expect: string;
  cwd: string;
  shell: string;
  path: { entries: number; digest: string; value: string };
  sandbox: string | null;
  files: OracleFileView[];
  env: EnvNameView[];
  /** The nearest earlier approval of this gate, and what differs from it; null when never approved. */
  lastApproval: { approvedAt: string; differs: string[]; note: string | null } | null;
  /**
   * Diffs of the oracle files changed since that approval: unified diffs against the approved
   * bytes kbz kept (issue 39, io/run/kept.ts), else short diffs from git HEAD where git has them.
   */
  diffs: { file: string; lines: string[]; from: "kept" | "git" }[];
  /** `kbz lint`'s findings for this gate (issue 39: the person sees them before approving). */
  lint: { level: string; rule: string; message: string; line: number }[];
  /** The oracle/work split: the files bound as the oracle are `files`; this is what the gate names as its work. */
  work: { from: "INPUTS" | "OWNS" | "none"; paths: string[] };
}

export interface ApprovalViewContext {
  root: string;
  /** The environment the oracle was bound with (RunSettings.env). */
  env: Env;
  /** The store whose records say what was approved before (null: none to compare with). */
  store: ApprovalStore | null;
  /** The gate's lint findings, by ledger file and gate id (ops/lint.ts); absent: none shown. */
  lint?: (file: string, gateId: string) => ApprovalView["lint"];
  /** The OWNS globs of the gate's ledger (a scope leaf's declared work). */
  owns?: (file: string) => string[];
}

const memo = new Map<string, ApprovalView>();

/** What a view adds from the ledgers of a snapshot: each gate's lint findings and each ledger's OWNS. */
export function ledgerExtras(snap: Pick<Snapshot, "ledgers">): Pick<ApprovalViewContext, "lint" | "owns"> {
  const findings = new Map<string, LintFinding[]>();
  const owns = new Map<string, string[]>();
  for (const l of snap.ledgers) {
    if (!l.ledger) continue;
    owns.set(l.file, l.ledger.owns);
    let f: LintFinding[] = [];
    try {
      f = [...lintLedger(l.ledger), ...inputFindings(l.file, l.ledger)];
    } catch {}
    findings.set(l.file, f);
  }
  return {
    lint: (file, gateId) =>
      (findings.get(file) ?? [])
        .filter((f) => f.gate === gateId)
        .map(({ level, rule, message, line }) => ({ level, rule, message, line })),
    owns: (file) => owns.get(file) ?? [],
  };
}

/** Diffs since the approval a person compares with: the gate's latest (its kept bytes), else the nearest (git HEAD). */
function diffsSince(
  ctx: ApprovalViewContext,
  task: CheckTask,
  records: ApprovalRecord[],
  nearest: ApprovalRecord,
): ApprovalView["diffs"] {
  const latest = ctx.store ? latestApproval(ctx.store.dir, task.file, task.gate.id) : null;
  const base = records.find((r) => r.signature === latest && r.kept) ?? (nearest.kept ? nearest : null);
  const kept = base && ctx.store ? keptDiffs(ctx.store, ctx.root, base, task.oracle) : [];
  const shown = new Set(kept.map((d) => d.file));
  const git = changedOracleDiffs(ctx.root, records, task.oracle)
    .filter((d) => !shown.has(keyPath(d.file) ?? d.file))
    .map((d) => ({ ...d, from: "git" as const }));
  return [...kept, ...git];
}

/** Which way the CHECK reaches each bound file (the binding walk again, without hashing). */
function viaOf(task: CheckTask, ctx: ApprovalViewContext): Map<string, string> {
  try {
    const display = path.relative(ctx.root, task.file) || task.file;
    const b = oracleBinding({
      root: ctx.root,
      display,
      gate: task.gate,
      cwd: task.oracle.cwd,
      env: ctx.env,
      digestOf: () => "",
    });
    return new Map(b.items.map((i) => [i.key, i.via]));
  } catch {
    return new Map();
  }
}

function recordsOf(store: ApprovalStore | null, task: CheckTask): ApprovalRecord[] {
  if (!store) return [];
  const file = path.resolve(task.file);
  try {
    return store
      .list()
      .flatMap((a) => (a.record && a.record.file === file && a.record.gate === task.gate.id ? [a.record] : []));
  } catch {
    return [];
  }
}

/** Short diffs of the oracle files that changed since the nearest approval, where git has the approved text. */
export function changedOracleDiffs(
  root: string,
  records: { oracle: RuntimeOracle }[],
  now: RuntimeOracle,
): { file: string; lines: string[] }[] {
  const near = nearestApproval(records, now);
  const before = near?.record.oracle.bound?.files ?? {};
  const current = now.bound?.files ?? {};
  return Object.keys(before)
    .filter((k) => k in current && current[k] !== before[k])
    .flatMap((file) => {
      const lines = diffSinceApproval(root, file, before[file]!);
      return lines ? [{ file, lines }] : [];
    });
}

/**
 * Unified diffs of each bound file changed since `approved` against the bytes kept at its
 * approval (io/run/kept.ts); the files whose bytes were not kept are left to the git diff.
 */
export function keptDiffs(
  store: ApprovalStore,
  root: string,
  approved: ApprovalRecord,
  now: RuntimeOracle,
  verbose = false,
): { file: string; lines: string[]; from: "kept" }[] {
  const kept = approved.kept;
  if (!kept) return [];
  const before = approved.oracle.bound?.files ?? {};
  const current = now.bound?.files ?? {};
  const paths = new Set<string>();
  for (const k of new Set([...Object.keys(before), ...Object.keys(current)])) {
    if (before[k] === current[k]) continue;
    const rel = keyPath(k);
    if (rel !== null && (rel in kept || !(k in before))) paths.add(rel);
  }
  const out: { file: string; lines: string[]; from: "kept" }[] = [];
  for (const rel of [...paths].sort()) {
    const entry = kept[rel] ? keptEntry(kept[rel]!) : null;
    const old = entry ? keptBytesOf(store.dir, entry.sha) : null;
    if (entry && !old) continue;
    let live: string | null = null;
    try {
      live = fs.readFileSync(path.join(root, rel), "utf8");
    } catch {}
    const lines = unifiedDiff(rel, old ? old.toString("utf8") : null, live);
    if (lines.length === 0) continue;
    out.push({
      file: rel,
      lines:
        verbose || lines.length <= MAX_DIFF_LINES
          ? lines
          : [
              ...lines.slice(0, MAX_DIFF_LINES),
              `… ${lines.length - MAX_DIFF_LINES} more diff lines (--verbose shows them all)`,
            ],
      from: "kept",
    });
  }
  return out;
}

const MAX_DIFF_LINES = 200;

/** The whole oracle of one pending gate, for a person to approve or decline. */
export function approvalView(task: CheckTask, ctx: ApprovalViewContext): ApprovalView {
  const records = recordsOf(ctx.store, task);
  const key = `${ctx.root}\0${task.file}\0${task.gate.id}\0${task.signature}\0${records.map((r) => r.signature).join(",")}\0${ctx.lint ? "lint" : ""}`;
  const known = memo.get(key);
  if (known) return known;
  const o = task.oracle;
  const via = viaOf(task, ctx);
  const bound = o.bound ?? { files: {}, env: {} };
  const files = Object.entries(bound.files).map(([k, digest]) => ({
    key: k,
    via: via.get(k) ?? "",
    problem: /^[0-9a-f]{64}$/.test(digest) ? null : digest,
  }));
  const env = Object.entries(bound.env).map(([name, v]) => ({ name, set: v !== "unset" }));
  const [digest] = pathFacts(o.path).fingerprint.split("/");
  const near = records.length > 0 ? nearMissLines(path.resolve(task.file), records, o, ctx.root) : [];
  const nearest = nearestApproval(records, o);
  const view: ApprovalView = {
    qid: task.qid,
    title: task.gate.title,
    ledger: path.relative(ctx.root, task.file).startsWith("..") ? task.file : path.relative(ctx.root, task.file),
    gate: task.gate.id,
    signature: task.signature,
    check: o.check,
    expect: o.expect,
    cwd: cwdShown(task),
    shell: o.shell,
    path: { entries: o.path ? o.path.split(path.delimiter).length : 0, digest: digest!, value: o.path },
    sandbox: o.sandbox ? sandboxLine(o.sandbox) : null,
    files,
    env,
    lastApproval: nearest
      ? {
          approvedAt: nearest.record.approvedAt,
          differs: nearest.differs,
          note:
            near
              .slice(1 + nearest.differs.length)
              .map((l) => l.trim())
              .join(" ") || null,
        }
      : null,
    diffs: nearest ? diffsSince(ctx, task, records, nearest.record) : [],
    lint: ctx.lint?.(task.file, task.gate.id) ?? [],
    work: task.gate.inputs
      ? { from: "INPUTS", paths: task.gate.inputs }
      : (ctx.owns?.(task.file) ?? []).length > 0
        ? { from: "OWNS", paths: ctx.owns!(task.file) }
        : { from: "none", paths: [] },
  };
  if (memo.size > 256) memo.clear();
  memo.set(key, view);
  return view;
}

const MAX_FILES_SHOWN = 20;

/** The plain-text form (kbz approve): one field a line, the changes and their diffs last. */
export function approvalViewLines(v: ApprovalView, verbose = false): string[] {
  const lines = [
    `${v.qid}: ${v.title}`,
    `    CHECK:  ${v.check}`,
    `    EXPECT: ${v.expect}`,
    `    CWD:    ${v.cwd}`,
    `    SHELL:  ${v.shell}`,
    verbose
      ? `    PATH:   ${pathFacts(v.path.value).transcript}`
      : `    PATH:   ${v.path.entries} entries (sha256 ${v.path.digest}; --verbose prints it)`,
  ];
  if (v.sandbox) lines.push(`    SANDBOX: ${v.sandbox}`);
  const shown = verbose ? v.files : v.files.slice(0, MAX_FILES_SHOWN);
  const fileText = (f: OracleFileView) => `${f.key}${f.via ? ` (${f.via})` : ""}${f.problem ? ` [${f.problem}]` : ""}`;
  lines.push(
    `    ORACLE FILES: ${v.files.length === 0 ? "none (the CHECK text is the whole oracle)" : shown.map(fileText).join(", ")}${shown.length < v.files.length ? `, +${v.files.length - shown.length} more (--verbose)` : ""}`,
  );
  lines.push(
    `    ENV:    ${v.env.length === 0 ? "no names bound (kbz's allow-list only)" : v.env.map((e) => (e.set ? e.name : `${e.name} (unset)`)).join(", ")}`,
  );
  lines.push(
    `    WORK:   ${v.work.from === "none" ? "not declared (the probe hides what differs from git HEAD)" : `${v.work.paths.join(", ")} (${v.work.from})`}`,
  );
  if (v.lint.length === 0) lines.push("    LINT:   no findings");
  else
    for (const f of v.lint)
      lines.push(`    LINT ${f.level === "error" ? "ERROR" : "warning"} ${f.rule} (line ${f.line}): ${f.message}`);
  if (!v.lastApproval) lines.push("    CHANGED: never approved before");
  else {
    lines.push(`    CHANGED since the approval of ${v.lastApproval.approvedAt.slice(0, 10)}:`);
    for (const d of v.lastApproval.differs) lines.push(`      ${d}`);
    if (v.lastApproval.note) lines.push(`      ${v.lastApproval.note}`);
    for (const d of v.diffs) {
      if (d.from === "git") lines.push(`      ${d.file} since the approval (from git HEAD):`);
      for (const l of d.lines) lines.push(`      ${d.from === "git" ? "  " : ""}${l}`);
    }
  }
  return lines;
}
