// The approval view (issue 27): everything a person must see before approving one oracle, built
// once for every place a person approves: `kbz approve` (cli/approve.ts) and the dashboard's
// Approvals panel (tui). The CHECK, EXPECT, CWD, shell and PATH; the oracle files the CHECK runs
// (with how it reaches each) and the ENV names whose values the approval binds; and, when the gate
// was approved before for another oracle, what differs and a short git diff of each changed file.
// Data only: each edge renders it (approvalViewLines is the plain-text form).
import * as path from "node:path";
import { nearestApproval, nearMissLines } from "../core/run/differ.ts";
import type { RuntimeOracle } from "../core/run/oracle.ts";
import { cwdShown, type CheckTask } from "../io/check/plan.ts";
import { oracleBinding } from "../io/oracle/binding.ts";
import { diffSinceApproval } from "../io/oracle/explain.ts";
import type { ApprovalRecord, ApprovalStore } from "../io/run/approval.ts";
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
  /** Short diffs (from git HEAD) of the oracle files changed since that approval, where git has the approved text. */
  diffs: { file: string; lines: string[] }[];
}

export interface ApprovalViewContext {
  root: string;
  /** The environment the oracle was bound with (RunSettings.env). */
  env: Env;
  /** The store whose records say what was approved before (null: none to compare with). */
  store: ApprovalStore | null;
}

const memo = new Map<string, ApprovalView>();

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

/** The whole oracle of one pending gate, for a person to approve or decline. */
export function approvalView(task: CheckTask, ctx: ApprovalViewContext): ApprovalView {
  const records = recordsOf(ctx.store, task);
  const key = `${ctx.root}\0${task.file}\0${task.gate.id}\0${task.signature}\0${records.map((r) => r.signature).join(",")}`;
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
    diffs: nearest ? changedOracleDiffs(ctx.root, records, o) : [],
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
  if (!v.lastApproval) lines.push("    CHANGED: never approved before");
  else {
    lines.push(`    CHANGED since the approval of ${v.lastApproval.approvedAt.slice(0, 10)}:`);
    for (const d of v.lastApproval.differs) lines.push(`      ${d}`);
    if (v.lastApproval.note) lines.push(`      ${v.lastApproval.note}`);
    for (const d of v.diffs) {
      lines.push(`      ${d.file} since the approval (from git HEAD):`);
      for (const l of d.lines) lines.push(`        ${l}`);
    }
  }
  return lines;
}
