// kbz approvals list|revoke|prune: see and withdraw recorded consent (docs/formats.md#fixes gap).
import * as path from "node:path";
import { kbz } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import { pathFacts } from "../core/run/show.ts";
import {
  approvalPolicy,
  approvalStore,
  ApprovalStoreError,
  explainApproval,
  pruneApprovals,
  revokeApprovals,
  setApprovalPolicy,
  type ApprovalStore,
  type StoredApproval,
} from "../ops/approvals.ts";
import { rootFor } from "./context.ts";
import type { ExitCode, Verb } from "./index.ts";
import { emit, envelope, failWith, report } from "./envelope.ts";
import { out } from "./output.ts";

interface ApprovalsArgs {
  action: "list" | "revoke" | "prune" | "explain" | "policy";
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
    path: r?.oracle.path ?? null,
    timeoutMs: r?.oracle.timeoutMs ?? null,
    platform: r?.oracle.platform ?? null,
    sandbox: r?.oracle.sandbox ?? null,
    oracleFiles: r?.oracle.bound?.files ?? null,
    env: r?.oracle.bound ? Object.keys(r.oracle.bound.env) : null,
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

/** What a record is bound to besides its CHECK and EXPECT (approvals list). */
function bindings(a: StoredApproval): string {
  const o = a.record!.oracle;
  const [digest, entries] = pathFacts(o.path).fingerprint.split("/");
  const files = Object.keys(o.bound?.files ?? {});
  const env = Object.keys(o.bound?.env ?? {});
  const bound = `${files.length ? ` files=${files.join(",")}` : ""}${env.length ? ` env=${env.join(",")}` : ""}`;
  return `      cwd=${o.cwd} shell=${o.shell} PATH=${entries} (sha256 ${digest}) timeout=${o.timeoutMs / 1000}s${o.sandbox ? " sandbox" : ""}${bound}`;
}

/** kbz approvals explain LEDGER GATE: is the gate's current oracle approved, and if not, what differs. */
function explain(store: ApprovalStore, argv: ApprovalsArgs): ExitCode {
  const [ledger, gate, ...rest] = argv.args ?? [];
  if (!ledger || !gate || rest.length > 0)
    throw new UsageError(`explain takes LEDGER GATE (e.g. ${kbz("approvals explain", "GATES.md", "G1")})`);
  const root = rootFor({});
  const file = path.resolve(process.cwd(), ledger);
  const gateId = gate.replace(/^.*:/, "");
  const { task, same, approved, lines, diffs, verdict } = explainApproval(
    store,
    root,
    file,
    gateId,
    ledger,
    process.env,
  );
  const oracleFiles = Object.keys(task.oracle.bound?.files ?? {});
  const fields = {
    gate: task.qid,
    file: task.file,
    approvals: same,
    differs: lines.slice(1).map((l) => l.trim()),
    oracleFiles,
    diffs,
  };
  return report(!!argv.json, envelope(verdict, approved ? 0 : 1, fields), () => {
    if (approved)
      out(
        `${task.qid}: approved for its current oracle (cwd ${task.cwd}${oracleFiles.length ? `; files ${oracleFiles.join(", ")}` : ""})`,
      );
    else if (same === 0) out(`${task.qid}: never approved; ${kbz("check")} prints its oracle for the user to review`);
    else for (const l of [`${task.qid}: ${lines[0]}`, ...lines.slice(1)]) out(l);
    for (const d of diffs) {
      out(`  ${d.file} since the approval (from git HEAD):`);
      for (const l of d.lines) out(`    ${l}`);
    }
  });
}

function list(store: ApprovalStore, asJson: boolean): ExitCode {
  const all = store.list();
  if (asJson) {
    return emit(
      envelope("ok", 0, { action: "list", dir: store.dir, count: all.length, records: all.map((a) => view(a)) }),
    );
  }
  for (const a of all) {
    out(line(a));
    if (a.record) out(bindings(a));
  }
  out(`${all.length} approval record(s) in ${store.dir}`);
  return 0;
}

function revoke(store: ApprovalStore, argv: ApprovalsArgs): ExitCode {
  const gone = revokeApprovals(store, argv.args ?? [], argv.record ?? [], process.env);
  if (argv.json)
    return emit(
      envelope(gone.length > 0 ? "revoked" : "nothing-revoked", gone.length > 0 ? 0 : 1, {
        action: "revoke",
        dir: store.dir,
        revoked: gone.map((a) => view(a)),
      }),
    );
  else {
    for (const a of gone) out(`revoked${line(a)}`);
    out(`revoked ${gone.length} approval record(s)`);
  }
  return gone.length > 0 ? 0 : 1;
}

async function prune(store: ApprovalStore, asJson: boolean): Promise<ExitCode> {
  // REMOVED gates of this repository: the person confirms they are gone on purpose.
  const { forgotten, gone, litter, kept } = await pruneApprovals(store, rootFor({}), process.env);
  if (asJson)
    return emit(
      envelope("pruned", 0, {
        action: "prune",
        dir: store.dir,
        pruned: gone.map((d) => view(d.a, { reason: d.reason })),
        removedGates: forgotten,
        litter,
        keptRemoved: kept,
      }),
    );
  else {
    for (const qid of forgotten) out(`confirmed removed ${qid}`);
    for (const d of gone) out(`pruned${line(d.a)} [${d.reason}]`);
    out(`pruned ${gone.length} approval record(s)`);
    if (litter.length > 0) out(`removed ${litter.length} stray lock/temp file(s) of crashed writers`);
    if (kept > 0) out(`removed ${kept} kept oracle file(s) no approval names any more`);
  }
  return 0;
}

/** kbz approvals policy [person|signed|agent]: show, or (a person's act under every policy) set, who may approve. */
function policy(store: ApprovalStore, argv: ApprovalsArgs): ExitCode {
  const [wanted, ...rest] = argv.args ?? [];
  if (rest.length > 0 || (wanted !== undefined && wanted !== "agent" && wanted !== "person" && wanted !== "signed"))
    throw new UsageError("policy takes person, signed or agent (or nothing, to show it)");
  if (wanted === undefined) {
    const { policy: now, handEdited, acts } = approvalPolicy(store);
    const edited = handEdited
      ? "; policy.json was edited by hand (it carries no valid MAC), so person holds: set the policy with this verb"
      : "";
    // acts.log lines whose MAC does not hold were not written by kbz (or were edited, removed or reordered).
    const forged =
      acts.bad.length > 0
        ? `acts.log: ${acts.bad.length} of ${acts.lines} lines carry no valid MAC (line ${acts.bad.slice(0, 5).join(", ")}${acts.bad.length > 5 ? ", …" : ""}): written or changed by hand`
        : null;
    return report(
      !!argv.json,
      envelope(now, 0, { action: "policy", dir: store.dir, policy: now, handEdited, acts }),
      () => {
        out(`policy: ${now} (${POLICY_TEXT[now]})${edited}`);
        if (forged) out(forged);
      },
    );
  }
  setApprovalPolicy(store, wanted, process.env);
  return report(!!argv.json, envelope(wanted, 0, { action: "policy", dir: store.dir, policy: wanted }), () =>
    out(`policy: ${wanted} (${POLICY_TEXT[wanted]})`),
  );
}

const POLICY_TEXT: Record<string, string> = {
  signed: "as person, and approvals and sign-offs count only when signed by an allowed signer (git's user.signingKey)",
  person: "approving, signing and pruning need a person at a terminal; evidence counts only with kbz's record",
  agent: "unlazy's consent model: --approve and sign from any shell; evidence is not attested",
};

export async function handleApprovals(argv: ApprovalsArgs): Promise<ExitCode> {
  const store = approvalStore(process.env);
  try {
    if (argv.action === "list") {
      if ((argv.args ?? []).length > 0) throw new UsageError("list takes no arguments");
      return list(store, !!argv.json);
    }
    if (argv.action === "revoke") return revoke(store, argv);
    if (argv.action === "explain") return explain(store, argv);
    if (argv.action === "policy") return policy(store, argv);
    if ((argv.args ?? []).length > 0) throw new UsageError("prune takes no arguments");
    return await prune(store, !!argv.json);
  } catch (e) {
    if (!(e instanceof ApprovalStoreError)) throw e;
    return failWith(
      [
        {
          file: e.file ?? null,
          line: e.file !== undefined ? (e.line ?? 1) : null,
          message: `approval store: ${e.message}`,
          hint: e.hint ?? null,
        },
      ],
      false,
      !!argv.json,
      { dir: store.dir },
    );
  }
}

export const verb: Verb = {
  command: "approvals <action> [args..]",
  describe:
    "list, revoke, prune or explain recorded CHECK approvals, or show/set the consent policy (UNLAZY_APPROVAL_DIR or ~/.unlazy/approved)",
  builder: (y) =>
    y
      .positional("action", {
        choices: ["list", "revoke", "prune", "explain", "policy"],
        describe: "list | revoke <ledger> [gate] | prune | explain <ledger> <gate> | policy [person|signed|agent]",
      })
      .positional("args", { type: "string", array: true })
      .option("record", {
        type: "string",
        array: true,
        describe: "revoke: a record name (as listed)",
        requiresArg: true,
      })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(
        "revoke, prune and policy are a person's acts: run them in a terminal (kbz refuses without one, and where an " +
          "agent host, by its marker or among its parent processes). policy signed counts only approvals and sign-offs " +
          "signed by an allowed signer (docs/formats.md#signed-policy). prune also confirms REMOVED gates (gates that held an " +
          "approval or attested evidence and were deleted). policy person (the default) gives approving and signing " +
          "to a person only and counts evidence only with kbz's record of it; policy agent restores unlazy's model.",
      ),
  handler: (argv) => handleApprovals(argv as ApprovalsArgs),
};
