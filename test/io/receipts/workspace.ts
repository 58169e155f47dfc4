// A verification workspace like verify-once's tests (docs/formats.md#scheduling): `src/value.txt`, a test script
// that counts its real executions and prints REAL_OK for `good`, one runnable gate, a private
// approval store. Runs go through the in-process `verifyRun`, exactly what `kbz verify run` calls.
import * as fs from "node:fs";
import * as path from "node:path";
import { agentApprovalDir } from "../../helpers/approvals.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";
import { inspectReceipt, type Inspection, type ReceiptReason } from "../../../src/io/receipts/audit.ts";
import type { Policy } from "../../../src/io/receipts/context.ts";
import { verifyRun, type LedgerResult } from "../../../src/ops/verifyRun.ts";
import { readReceiptFile, type Receipt } from "../../../src/io/receipts/file.ts";
import type { Verifier } from "../../../src/io/receipts/verifier.ts";

export const CHECK_SCRIPT = `c=$(cat counter 2>/dev/null || echo 0)
echo $((c + 1)) > counter
if [ "$(cat src/value.txt)" = good ]; then echo REAL_OK; else echo value mismatch; exit 1; fi
`;

export const GATES = `# Gates: value
- [ ] G1: source matches expected value
  CHECK: sh tests/check.sh
  EXPECT: REAL_OK
  EVIDENCE: pending
`;

export const MANUAL_GATE = `- [ ] M1: a person read the output
  EVIDENCE: pending
`;

export interface Workspace {
  root: string;
  env: Record<string, string>;
  write(rel: string, content: string | Uint8Array): void;
  read(rel: string): string;
  counter(): number;
  run(o?: Partial<RunOptions>): Promise<LedgerResult[]>;
  audit(ledger?: string, expectedPolicy?: Policy): Inspection;
  receipt(key?: string): Receipt | null;
}

export interface RunOptions {
  inputs: string[];
  env: string[];
  closed: boolean;
  portable: boolean;
  approve: boolean;
  reviewed: boolean;
  ledgers: string[];
  verifier: Verifier;
  processEnv: Record<string, string>;
}

export function policy(o: Partial<RunOptions> = {}): Policy {
  const p: Policy = {
    inputs: [...(o.inputs ?? ["src", "tests"])].sort(),
    env: [...(o.env ?? [])].sort(),
    closed: o.closed ?? true,
  };
  if (o.portable) p.portable = true;
  return p;
}

export function workspace(files: Record<string, string | Uint8Array> = {}): Workspace {
  const root = tempDir("kbz-receipts-");
  writeTree(root, { "src/value.txt": "good\n", "tests/check.sh": CHECK_SCRIPT, "GATES.md": GATES, ...files });
  const store = agentApprovalDir();
  const env = { UNLAZY_APPROVAL_DIR: store, PATH: "/usr/bin:/bin", HOME: path.join(store, "home") };
  const ws: Workspace = {
    root,
    env,
    write: (rel, content) => writeTree(root, { [rel]: content }),
    read: (rel) => fs.readFileSync(path.join(root, rel), "utf8"),
    counter: () =>
      fs.existsSync(path.join(root, "counter")) ? Number(fs.readFileSync(path.join(root, "counter"), "utf8")) : 0,
    run: (o = {}) =>
      verifyRun({
        root,
        ledgers: o.ledgers ?? ["GATES.md"],
        policy: policy(o),
        approve: o.approve ?? true,
        reviewed: o.reviewed ?? false,
        env: o.processEnv ?? env,
        verifier: o.verifier,
      }),
    audit: (ledger = "GATES.md", expectedPolicy) => inspectReceipt(root, ledger, { env, expectedPolicy }),
    receipt: (key = "GATES.md") => readReceiptFile(root).receipts[key] ?? null,
  };
  return ws;
}

export const stale = (reason: ReceiptReason, key = "GATES.md"): Inspection => ({ current: false, reason, key });
export const current = (key = "GATES.md"): Inspection => ({ current: true, key });
