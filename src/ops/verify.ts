// `kbz verify` as use cases (docs/formats.md#receipts): `run` checks ledgers once and keeps a
// receipt, `audit` says which receipts are still current, `explain` says in words why one is not.
// Options in, data out; cli/verify.ts prints verify-once's words.
import * as fs from "node:fs";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { accessEntry, parseAccess } from "../core/plan/access.ts";
import { idCompare } from "../core/plan/order.ts";
import { parsePlan } from "../core/plan/table.ts";
import { loadLedgerFile, readScopeText } from "../io/read.ts";
import { inspectReceipt, type Inspection } from "../io/receipts/audit.ts";
import type { Policy } from "../io/receipts/context.ts";
import { explainReceipt, type Explanation } from "../io/receipts/explain.ts";
import { ledgerKey } from "../io/receipts/paths.ts";
import { verifyRun, type LedgerResult, type VerifyRunRequest } from "./verifyRun.ts";
import { readReceiptFile } from "../io/receipts/file.ts";
import type { Env } from "../io/run/shell.ts";

export type { Explanation, Inspection, LedgerResult, Policy };

/** The ledgers as given, each once and each a different receipt identity. */
export function verifyLedgers(root: string, files: string[]): string[] {
  if (files.length === 0 || new Set(files).size !== files.length)
    throw new UsageError("unique explicit ledgers required");
  const keys = files.map((f) => ledgerKey(root, f));
  if (new Set(keys).size !== keys.length) throw new UsageError("duplicate ledger identity");
  return files;
}

/** A glob's literal folder: the segments before the first wildcard (`src/a/**` -> `src/a`). */
function literalPrefix(glob: string): string | null {
  const segs = glob.split("/");
  const k = segs.findIndex((x) => /[*?[{]/.test(x));
  const lit = (k < 0 ? segs : segs.slice(0, k)).join("/");
  return lit === "" ? null : lit;
}

/**
 * A scope leaf's reads as ACCESS.json declares them, through the one ACCESS parser (the
 * scheduler's, core/plan/access.ts, against the scope's PLAN). A scope whose PLAN or ACCESS.json
 * is missing, unreadable or invalid adds nothing: the ledger's OWNS stand alone.
 */
function accessReads(root: string, scope: string, leaf: string): string[] {
  try {
    const planText = readScopeText(root, scope, "PLAN.md");
    const accessText = readScopeText(root, scope, "ACCESS.json");
    if (planText === null || accessText === null) return [];
    const leaves = parseAccess(accessText, parsePlan(planText, idCompare("natural")));
    return accessEntry(leaf, leaves[leaf]).reads;
  } catch {
    return [];
  }
}

/**
 * Without --inputs: each ledger's OWNS plus, for a scope leaf, its ACCESS.json reads, as their
 * literal folders. What the CHECKs call outside those still needs --inputs.
 */
function defaultInputs(root: string, ledgers: string[]): string[] {
  const inputs: string[] = [];
  for (const rel of ledgers) {
    const file = path.resolve(root, rel);
    const entry = loadLedgerFile(file, root, false);
    const globs = [...(entry.ledger?.owns ?? [])];
    const m = /^\.unlazy\/([^/]+)\/gates\/leaf-(.+)\.md$/.exec(path.relative(root, file).split(path.sep).join("/"));
    if (m) globs.push(...accessReads(root, m[1]!, m[2]!));
    for (const g of globs) {
      const lit = literalPrefix(g);
      if (lit === null)
        throw new UsageError(
          `--inputs required: ${rel} declares ${g}, which has no literal folder; list the inputs with --inputs`,
        );
      inputs.push(lit);
    }
  }
  if (inputs.length === 0) throw new UsageError("--inputs required; include artifacts, checks and their dependencies");
  return inputs;
}

const sortedUnique = (items: string[]) => [...new Set(items)].sort();

export interface PolicyRequest {
  /** --inputs; absent: the ledgers' OWNS and their ACCESS.json reads. */
  inputs?: string[];
  env: string[];
  closed: boolean;
  portable: boolean;
}

/** The receipt policy a run binds: its inputs, environment names, closed and portable flags. */
export function verifyPolicy(root: string, ledgers: string[], o: PolicyRequest): Policy {
  const policy: Policy = {
    inputs: sortedUnique(o.inputs ?? defaultInputs(root, ledgers)),
    env: sortedUnique(o.env),
    closed: o.closed,
  };
  if (o.portable) policy.portable = true;
  return policy;
}

/**
 * `verify run --cwd DIR`: the CHECKs' directory, relative to the root, which must exist. Without
 * it every ledger runs from the root, as verify-once ran gate-check with `--cwd <root>`.
 */
export function verifyCwd(root: string, cwd: string): string {
  const dir = path.resolve(root, cwd);
  let ok = false;
  try {
    ok = cwd !== "" && fs.statSync(dir).isDirectory();
  } catch {}
  if (!ok)
    throw new UsageError(`--cwd is not an existing directory: ${dir}`, {
      hint: `name a folder relative to the root (${kbz("verify run", { cwd: ph("sub") }, ph("LEDGER"))})`,
    });
  return cwd;
}

/** `verify run`: check each ledger once (or reuse its current receipt) and record. */
export function verifyLedgersOnce(req: VerifyRunRequest): Promise<LedgerResult[]> {
  return verifyRun(req);
}

/** `verify audit`: whether each ledger's receipt is current; reads only. */
export function auditReceipts(root: string, ledgers: string[], env: Env): Inspection[] {
  const receiptFile = readReceiptFile(root);
  return ledgers.map((f) => inspectReceipt(root, f, { env, receiptFile }));
}

/** `verify explain`: why one ledger's receipt is not reusable, in words. */
export function explainLedger(root: string, ledger: string, env: Env): Explanation {
  return explainReceipt(root, ledger, { env });
}
