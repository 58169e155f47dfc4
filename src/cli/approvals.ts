// kbz approvals list|revoke|prune: see and withdraw recorded consent (docs/formats.md#fixes gap).
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { ApprovalStore, ApprovalStoreError, approvalDirFor, type StoredApproval } from "../io/run/approval.ts";
import { obsoleteReason } from "../io/run/prune.ts";
import type { ExitCode, Verb } from "./index.ts";
import { err, json, out } from "./output.ts";

interface ApprovalsArgs {
  action: "list" | "revoke" | "prune";
  args?: string[];
  record?: string[];
  json?: boolean;
}

function view(a: StoredApproval, extra: Record<string, unknown> = {}) {
  const r = a.record;
  return {
    name: a.name,
    file: r?.file ?? null,
    gate: r?.gate ?? null,
    check: r?.oracle.check ?? null,
    expect: r?.oracle.expect ?? null,
    cwd: r?.oracle.cwd ?? null,
    shell: r?.oracle.shell ?? null,
    approvedAt: r?.approvedAt ?? null,
    problem: a.problem,
    ...extra,
  };
}

function line(a: StoredApproval): string {
  if (!a.record) return `  ? ${a.name}: ${a.problem}`;
  const r = a.record;
  return `  ${r.file} ${r.gate}: ${r.oracle.check}  (approved ${r.approvedAt}, record ${a.name.slice(0, 12)})`;
}

function list(store: ApprovalStore, asJson: boolean): ExitCode {
  const all = store.list();
  if (asJson) {
    json({ schema: 1, dir: store.dir, count: all.length, records: all.map((a) => view(a)) });
    return 0;
  }
  for (const a of all) out(line(a));
  out(`${all.length} approval record(s) in ${store.dir}`);
  return 0;
}

function revoke(store: ApprovalStore, argv: ApprovalsArgs): ExitCode {
  const [ledger, gate, ...rest] = argv.args ?? [];
  const names = (argv.record ?? []).map((n) => (n.endsWith(".json") ? n : `${n}.json`));
  if (rest.length > 0 || (!ledger && names.length === 0) || (ledger && names.length > 0)) {
    throw new UsageError("revoke takes <ledger> [gate] or --record NAME");
  }
  const file = ledger ? path.resolve(ledger) : null;
  const chosen = store
    .list()
    .filter((a) => (file ? a.record?.file === file && (gate === undefined || a.record.gate === gate) : names.includes(a.name)));
  const removed = store.remove(chosen.map((a) => a.name));
  const gone = chosen.filter((a) => removed.includes(a.name));
  if (argv.json) json({ schema: 1, dir: store.dir, revoked: gone.map((a) => view(a)) });
  else {
    for (const a of gone) out(`revoked${line(a)}`);
    out(`revoked ${gone.length} approval record(s)`);
  }
  return gone.length > 0 ? 0 : 1;
}

function prune(store: ApprovalStore, asJson: boolean): ExitCode {
  const doomed = store.list().flatMap((a) => {
    const reason = a.record ? obsoleteReason(a.record) : null;
    return reason ? [{ a, reason }] : [];
  });
  const removed = new Set(store.remove(doomed.map((d) => d.a.name)));
  const gone = doomed.filter((d) => removed.has(d.a.name));
  if (asJson) json({ schema: 1, dir: store.dir, pruned: gone.map((d) => view(d.a, { reason: d.reason })) });
  else {
    for (const d of gone) out(`pruned${line(d.a)} [${d.reason}]`);
    out(`pruned ${gone.length} approval record(s)`);
  }
  return 0;
}

export function handleApprovals(argv: ApprovalsArgs): ExitCode {
  const store = new ApprovalStore(approvalDirFor(process.env), null);
  try {
    if (argv.action === "list") {
      if ((argv.args ?? []).length > 0) throw new UsageError("list takes no arguments");
      return list(store, !!argv.json);
    }
    if (argv.action === "revoke") return revoke(store, argv);
    if ((argv.args ?? []).length > 0) throw new UsageError("prune takes no arguments");
    return prune(store, !!argv.json);
  } catch (e) {
    if (!(e instanceof ApprovalStoreError)) throw e;
    err(`kbz: approval store: ${e.located()}`);
    if (argv.json) json({ schema: 1, dir: store.dir, errors: [{ file: e.file, message: e.message, hint: e.hint }] });
    return 2;
  }
}

export const verb: Verb = {
  command: "approvals <action> [args..]",
  describe: "list, revoke or prune recorded CHECK approvals (UNLAZY_APPROVAL_DIR or ~/.unlazy/approved)",
  builder: (y) =>
    y
      .positional("action", { choices: ["list", "revoke", "prune"], describe: "list | revoke <ledger> [gate] | prune" })
      .positional("args", { type: "string", array: true })
      .option("record", { type: "string", array: true, describe: "revoke: a record name (as listed)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: (argv) => handleApprovals(argv as ApprovalsArgs),
};
