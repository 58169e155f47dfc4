// "Why did it re-run?" in a person's words: the reuse rule's reason plus every difference
// between the fingerprint stored at acceptance and the one computed now — which input file,
// which gate definition, which environment value, the contract revision or the verifier.
import * as fs from "node:fs";
import * as path from "node:path";
import { unmetReason } from "../../core/ledger/state.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import { computeContext, type ContextOptions, type Fingerprint } from "./context.ts";
import { VerificationError, verificationText } from "../../core/receipts/errors.ts";
import { normalizedDefinition, readLedger, type LedgerRead } from "./ledger.ts";
import { inspectReceipt, type ReceiptReason } from "./audit.ts";
import { ledgerKey } from "./paths.ts";
import { readReceiptFile, receiptOf, type Receipt, type ReceiptFile } from "./file.ts";
import { kbz } from "../../core/text/command.ts";

export type ChangeKind =
  | "no-receipt"
  | "renamed"
  | "unfinished"
  | "not-closed"
  | "gate-not-met"
  | "ledger-text"
  | "gate-added"
  | "gate-removed"
  | "gate-changed"
  | "definition-text"
  | "contract-revision"
  | "input-added"
  | "input-removed"
  | "input-changed"
  | "gate-file"
  | "environment"
  | "platform"
  | "verifier"
  | "no-fingerprint"
  | "context-error";

export interface Change {
  kind: ChangeKind;
  text: string;
  path?: string;
  gate?: string;
  name?: string;
}

export interface Explanation {
  key: string;
  current: boolean;
  reason: ReceiptReason | null;
  changes: Change[];
}

const GATE_PARTS = ["title", "CHECK", "EXPECT", "CWD", "ABANDON"];
/** Past this many input changes the list is cut; the count is still given. */
export const MAX_INPUT_CHANGES = 50;

const own = <T>(o: Record<string, T>, k: string): T | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const kindOf = (v: string) => (v === "directory" ? "directory" : v === "absent" ? "absent" : "file");

export function explainReceipt(
  root: string,
  file: string,
  opts: ContextOptions & { receiptFile?: ReceiptFile },
): Explanation {
  const receiptFile = opts.receiptFile ?? readReceiptFile(root);
  const inspection = inspectReceipt(root, file, { ...opts, receiptFile });
  const key = ledgerKey(root, file);
  if (inspection.current) return { key, current: true, reason: null, changes: [] };
  const reason = inspection.reason;
  const receipt = receiptOf(receiptFile, key);
  const changes: Change[] = [];
  if (!receipt) {
    changes.push(...missing(root, file, key, receiptFile));
    return { key, current: false, reason, changes };
  }
  if (receipt.status !== "accepted") {
    changes.push({
      kind: "unfinished",
      text:
        receipt.status === "pending" || receipt.status === "running"
          ? "the last run did not finish (interrupted or crashed while the check ran); its receipt was withdrawn before the check started"
          : "the last run was not accepted (the check failed or was not approved, or an input changed while it ran)",
    });
    return { key, current: false, reason, changes };
  }
  if (!receipt.policy?.closed)
    changes.push({ kind: "not-closed", text: "it was accepted without --closed; such receipts are never reused" });
  const led = readLedger(root, file, opts.ledgerText);
  changes.push(...ledgerChanges(led, receipt));
  changes.push(...contextChanges(root, led, receipt, opts));
  return { key, current: false, reason, changes };
}

function missing(root: string, file: string, key: string, receiptFile: ReceiptFile): Change[] {
  let definition: string | null = null;
  try {
    definition = sha256Hex(normalizedDefinition(readLedger(root, file).text));
  } catch (e) {
    if (!(e instanceof VerificationError)) throw e;
  }
  const moved = Object.entries(receiptFile.receipts).filter(
    ([k, r]) =>
      k !== key && r.fingerprint?.definition === definition && !fs.existsSync(path.join(root, ...k.split("/"))),
  );
  if (definition !== null && moved.length > 0) {
    return moved.map(([k]) => ({
      kind: "renamed" as const,
      path: k,
      text: `it was accepted as ${k}, which no longer exists; receipts are keyed by ledger path and do not follow a rename`,
    }));
  }
  return [{ kind: "no-receipt", text: `there is no receipt for ${key}; it was never run with ${kbz("verify run")}` }];
}

function ledgerChanges(led: LedgerRead, receipt: Receipt): Change[] {
  const out: Change[] = [];
  led.doc.gates.forEach((g, i) => {
    const state = led.states[i]!;
    if (state === "met") return;
    const why = state === "abandoned" ? "abandoned" : unmetReason(state);
    out.push({ kind: "gate-not-met", gate: g.id, text: `gate ${g.id} is not met now (${why})` });
  });
  if (out.length === 0 && sha256Hex(led.text) !== receipt.ledgerHash) {
    // Definition changes are named by the fingerprint diff; here only what it cannot see.
    const definition = sha256Hex(normalizedDefinition(led.text));
    if (!receipt.fingerprint) out.push({ kind: "ledger-text", text: "the ledger text changed since acceptance" });
    else if (receipt.fingerprint.definition === definition)
      out.push({ kind: "ledger-text", text: "check marks or evidence in the ledger changed since acceptance" });
  }
  return out;
}

function contextChanges(root: string, led: LedgerRead, receipt: Receipt, opts: ContextOptions): Change[] {
  let now: Fingerprint;
  if (!receipt.policy) return [];
  try {
    now = computeContext(root, led, receipt.policy, opts).fingerprint;
  } catch (e) {
    if (!(e instanceof VerificationError)) throw e;
    return [{ kind: "context-error", text: `the inputs cannot be fingerprinted now: ${verificationText(e)}` }];
  }
  const then = receipt.fingerprint;
  if (!then) {
    return [
      {
        kind: "no-fingerprint",
        text: "the receipt has no fingerprint details (written by another tool), so what changed cannot be named",
      },
    ];
  }
  return [
    ...verifierChanges(then, now),
    ...definitionChanges(then, now),
    ...revisionChanges(led.key, then, now),
    ...inputChanges(then, now),
    ...dependsChanges(then, now),
    ...runtimeChanges(then, now),
  ];
}

/** Issue 42 item 6: a gate's INPUTS file or oracle file (or ENV value) that changed since acceptance, by name. */
function dependsChanges(then: Fingerprint, now: Fingerprint): Change[] {
  const out: Change[] = [];
  const before = then.depends ?? {};
  const after = now.depends ?? {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(byCodeUnit);
  for (const k of keys) {
    const a = own(before, k);
    const b = own(after, k);
    if (a === b) continue;
    if (k.startsWith("env:")) {
      out.push({ kind: "environment", name: k.slice(4), text: `a gate's ENV value ${k.slice(4)} changed` });
      continue;
    }
    const what = a === undefined ? "is new" : b === undefined ? "is no longer used" : "changed";
    out.push({ kind: "gate-file", path: k, text: `${k}, which a gate reads (INPUTS) or runs (its oracle), ${what}` });
  }
  if (out.length <= MAX_INPUT_CHANGES) return out;
  const rest = out.length - MAX_INPUT_CHANGES;
  return [
    ...out.slice(0, MAX_INPUT_CHANGES),
    { kind: "gate-file", text: `… and ${rest} more change(s) of gates' files` },
  ];
}

function verifierChanges(then: Fingerprint, now: Fingerprint): Change[] {
  const a = then.verifier;
  const b = now.verifier;
  if (a?.name === b.name && a.version === b.version && a.build === b.build) return [];
  const who = (v: Fingerprint["verifier"] | undefined) =>
    v ? `${v.name} ${v.version} (build ${String(v.build).slice(0, 12)})` : "an unknown verifier";
  return [{ kind: "verifier", text: `the verifier changed: ${who(a)} accepted it, ${who(b)} audits it now` }];
}

function definitionChanges(then: Fingerprint, now: Fingerprint): Change[] {
  const out: Change[] = [];
  const before = then.gates ?? {};
  const ids = [...new Set([...Object.keys(before), ...Object.keys(now.gates)])].sort(byCodeUnit);
  for (const id of ids) {
    const a = own(before, id);
    const b = own(now.gates, id);
    if (!a) out.push({ kind: "gate-added", gate: id, text: `gate ${id} was added to the ledger` });
    else if (!b) out.push({ kind: "gate-removed", gate: id, text: `gate ${id} was removed from the ledger` });
    else {
      const parts = GATE_PARTS.filter((_, k) => a[k] !== b[k]);
      if (parts.length > 0)
        out.push({ kind: "gate-changed", gate: id, text: `gate ${id} definition changed (${parts.join(", ")})` });
    }
  }
  if (out.length === 0 && then.definition !== now.definition) {
    out.push({
      kind: "definition-text",
      text: "ledger text outside the gates changed (headings, prose, OWNS, ABANDON or gate order)",
    });
  }
  return out;
}

function revisionChanges(key: string, then: Fingerprint, now: Fingerprint): Change[] {
  if ((then.contractRevision ?? null) === now.contractRevision) return [];
  const plan = `.unlazy/${key.split("/")[1]}/PLAN.md`;
  return [
    {
      kind: "contract-revision",
      path: plan,
      text: `the contract revision in ${plan} changed (${then.contractRevision ?? "none"} → ${now.contractRevision ?? "none"})`,
    },
  ];
}

function inputChanges(then: Fingerprint, now: Fingerprint): Change[] {
  const out: Change[] = [];
  const before = then.inputs ?? {};
  const paths = [...new Set([...Object.keys(before), ...Object.keys(now.inputs)])].sort(byCodeUnit);
  for (const p of paths) {
    const a = own(before, p) ?? "absent";
    const b = own(now.inputs, p) ?? "absent";
    if (a === b) continue;
    const [ka, kb] = [kindOf(a), kindOf(b)];
    if (ka === "absent") out.push({ kind: "input-added", path: p, text: `input ${kb} ${p} was added` });
    else if (kb === "absent") out.push({ kind: "input-removed", path: p, text: `input ${ka} ${p} was removed` });
    else if (ka !== kb)
      out.push({ kind: "input-changed", path: p, text: `input ${p} changed from a ${ka} to a ${kb}` });
    else out.push({ kind: "input-changed", path: p, text: `input file ${p} changed` });
  }
  if (out.length <= MAX_INPUT_CHANGES) return out;
  const rest = out.length - MAX_INPUT_CHANGES;
  return [...out.slice(0, MAX_INPUT_CHANGES), { kind: "input-changed", text: `… and ${rest} more input change(s)` }];
}

function runtimeChanges(then: Fingerprint, now: Fingerprint): Change[] {
  const out: Change[] = [];
  const rt = then.runtime;
  if (rt?.platform !== now.runtime.platform || rt?.arch !== now.runtime.arch) {
    out.push({
      kind: "platform",
      text: `the platform changed (${rt?.platform}/${rt?.arch} → ${now.runtime.platform}/${now.runtime.arch})`,
    });
  }
  const before = rt?.env ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(now.runtime.env)])].sort(byCodeUnit);
  for (const n of names) {
    const a = own(before, n) ?? null;
    const b = own(now.runtime.env, n) ?? null;
    if (a === b) continue;
    const how = a === null ? "was set" : b === null ? "was unset" : "changed";
    const hint = n === "PATH" ? ` (${kbz("verify run", { portable: true })} leaves PATH out)` : "";
    out.push({ kind: "environment", name: n, text: `environment value ${n} ${how}${hint}` });
  }
  return out;
}
