// Figure for issue 8: auditing a receipt over 2,000 input files (20 MB), in-process and through
// the binary (process start included). Target: under 300 ms. Prints numbers; asserts nothing.
// Run after `bun build.ts`: `bun bench/verify.ts`.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inspectReceipt } from "../src/io/receipts/audit.ts";
import { verifyRun } from "../src/ops/verifyRun.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const FILES = 2_000;
const FILE_BYTES = 10_000;
const RUNS = 15;

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-verify-")));
for (let d = 0; d < 20; d++) fs.mkdirSync(path.join(root, "src", `pkg${d}`), { recursive: true });
const block = Buffer.alloc(FILE_BYTES);
for (let i = 0; i < FILES; i++) {
  for (let k = 0; k < FILE_BYTES; k += 4) block.writeUInt32LE((i * 2654435761 + k) >>> 0, k);
  fs.writeFileSync(path.join(root, "src", `pkg${i % 20}`, `file${i}.bin`), block);
}
fs.writeFileSync(
  path.join(root, "GATES.md"),
  "# Gates: bench\n\n- [x] M1: a person reviewed the build\n  EVIDENCE: reviewed by the bench\n",
);
const env = { ...process.env, UNLAZY_APPROVAL_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-approvals-")) };

const [accepted] = await verifyRun({
  root,
  ledgers: ["GATES.md"],
  policy: { inputs: ["src"], env: [], closed: true },
  approve: false,
  reviewed: true,
  env,
});
if (accepted?.status !== "ACCEPTED") throw new Error(`setup failed: ${JSON.stringify(accepted)}`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const inProcess: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const c = process.cpuUsage();
  const r = inspectReceipt(root, "GATES.md", { env });
  const used = process.cpuUsage(c);
  inProcess.push(performance.now() - t);
  cpu.push((used.user + used.system) / 1000);
  if (!r.current) throw new Error(`audit not current: ${JSON.stringify(r)}`);
}
// The binary's verifier is its own build digest: accept once through it before timing it.
const accept = spawnSync(
  BIN,
  ["verify", "run", "--root", root, "--inputs", "src", "--closed", "--reviewed", "GATES.md"],
  { env, encoding: "utf8" },
);
if (accept.status !== 0) throw new Error(`kbz verify run exited ${accept.status}: ${accept.stderr}`);
const binary: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const r = spawnSync(BIN, ["verify", "audit", "--root", root, "GATES.md"], { env, encoding: "utf8" });
  binary.push(performance.now() - t);
  if (r.status !== 0) throw new Error(`kbz verify audit exited ${r.status}: ${r.stderr}`);
}
console.log(`receipt over ${FILES} files, ${(FILES * FILE_BYTES) / 1e6} MB`);
console.log(
  `audit in-process:      median ${median(inProcess).toFixed(1)} ms, min ${Math.min(...inProcess).toFixed(1)} ms (${RUNS} runs); CPU median ${median(cpu).toFixed(1)} ms`,
);
console.log(
  `kbz verify audit (bin): median ${median(binary).toFixed(1)} ms, min ${Math.min(...binary).toFixed(1)} ms (${RUNS} runs)`,
);
console.log(
  `target: under 300 ms (load average now ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores: wall times include waiting for a CPU)`,
);
fs.rmSync(root, { recursive: true, force: true });
