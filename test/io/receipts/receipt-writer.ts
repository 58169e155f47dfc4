// Child process for store tests: writes receipts `<prefix>-<n>` through `putReceipt`.
// Usage: bun receipt-writer.ts ROOT PREFIX COUNT INPUTS (COUNT 0 = forever, until killed).
import { putReceipt } from "../../../src/io/receipts/file.ts";

const [root, prefix, count, size] = process.argv.slice(2) as [string, string, string, string];
const inputs: Record<string, string> = {};
// A large fingerprint makes each write take long enough for a kill to land mid-write.
for (let i = 0; i < Number(size); i++) inputs[`src/file-${i}.txt`] = "ab".repeat(32);
const limit = Number(count);
for (let n = 0; limit === 0 || n < limit; n++) {
  await putReceipt(root, `gates/${prefix}-${n}.md`, {
    status: "accepted",
    policy: { inputs: ["src"], env: [], closed: true },
    context: "c".repeat(64),
    ledgerHash: "d".repeat(64),
    fingerprint: {
      definition: "e".repeat(64),
      gates: { G1: ["0", "0", "0", "0", "0"] },
      contractRevision: null,
      inputs,
      runtime: { platform: "linux", arch: "x64", env: {} },
      verifier: { name: "kbz", version: "0", build: "f".repeat(64) },
    },
  });
  if (limit === 0) process.stdout.write(`${n}\n`);
}
