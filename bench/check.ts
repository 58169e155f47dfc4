// Figures for issue 3: `kbz check` on 200 trivial gates with --jobs 1 and --jobs 8, and kbz's
// overhead per gate beyond the spawn itself. Prints numbers; asserts nothing.
// Run after `bun build.ts`: `bun bench/check.ts`.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { runChecks } from "../src/ops/checkRun.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const GATES = 200;
const RUNS = 3;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-check-"));
const store = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-approvals-"));
fs.chmodSync(store, 0o700);
// A private last-run cache too: the bench must not fill (or be slowed by) the user's.
const cache = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-cache-"));
const env = { ...process.env, UNLAZY_APPROVAL_DIR: store, KBZ_CACHE_DIR: cache };
function writeLedger(check: (i: number) => string): void {
  const lines = ["# Gates: trivial", ""];
  for (let i = 0; i < GATES; i++)
    lines.push(
      `- [ ] G${i}: gate ${i} prints its token`,
      `  CHECK: ${check(i)}`,
      `  EXPECT: tok-${i}`,
      "  EVIDENCE: pending",
      "",
    );
  fs.writeFileSync(path.join(root, "GATES.md"), lines.join("\n"));
}
writeLedger((i) => `true && printf tok-${i}`);

function kbz(args: string[], more: Record<string, string> = {}): number {
  const t0 = performance.now();
  const r = spawnSync(BIN, ["check", ...args], {
    cwd: root,
    env: { ...env, ...more },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`kbz check ${args.join(" ")} exited ${r.status}`);
  return ms;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;
const sample = (args: string[], more: Record<string, string> = {}) =>
  median(Array.from({ length: RUNS }, () => kbz(args, more)));

/** The spawn itself, the way kbz does it: shells in their own process group, `width` at a time. */
async function spawnCost(width = 1): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < GATES; i = next++) {
      const p = Bun.spawn(["/bin/sh", "-c", `true && printf tok-${i}`], {
        cwd: root,
        detached: true,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      await Promise.all([new Response(p.stdout).arrayBuffer(), new Response(p.stderr).arrayBuffer(), p.exited]);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return (performance.now() - t0) / GATES;
}

kbz(["--approve", "--reverify"]); // record approvals once and warm the page cache
const fixed = sample([]); // everything met: load, parse, reduce, print; nothing runs
const jobs1 = sample(["--reverify", "--jobs", "1"]);
const jobs8 = sample(["--reverify", "--jobs", "8"]);
const perSpawn = await spawnCost();
// The machine's own ceiling for --jobs on trivial gates: the same bare spawns, eight at a time.
// Where process creation is serialised (as on this Firecracker VM), no checker can beat it.
const perSpawn8 = await spawnCost(8);

// kbz's own CPU per gate (children excluded), which the machine's load does not inflate:
// the engine in-process, against the CPU of the bare spawn loop.
const cpu = async (fn: () => Promise<unknown>) => {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / GATES;
};
const engineCpu = await cpu(() =>
  runChecks({ root, files: [], reverify: true, approve: false, jobs: 1, timeoutS: 120, env }),
);
const spawnCpu = await cpu(spawnCost);
const perGate = (jobs1 - fixed) / GATES;

console.log(`machine: ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`${GATES} trivial gates, kbz check --reverify (median of ${RUNS}):`);
console.log(`  --jobs 1: ${jobs1.toFixed(0)} ms`);
console.log(`  --jobs 8: ${jobs8.toFixed(0)} ms   speed-up ${(jobs1 / jobs8).toFixed(2)}x   (target ≥ 1.7x)`);
console.log(
  `bare spawn loop, 8 at a time vs 1 at a time: speed-up ${(perSpawn / perSpawn8).toFixed(2)}x (the machine's ceiling for --jobs on trivial gates)`,
);
console.log(`fixed cost (nothing to run): ${fixed.toFixed(0)} ms`);
console.log(`per gate with --jobs 1: ${perGate.toFixed(2)} ms; bare spawn: ${perSpawn.toFixed(2)} ms`);
console.log(`kbz overhead per gate beyond the spawn: ${(perGate - perSpawn).toFixed(2)} ms wall   (target < 3 ms)`);
console.log(
  `kbz CPU per gate: ${engineCpu.toFixed(2)} ms; bare spawn CPU: ${spawnCpu.toFixed(2)} ms; beyond the spawn: ${(engineCpu - spawnCpu).toFixed(2)} ms CPU`,
);
// The pool itself, independent of CPU contention: gates that mostly wait (sleep 50 ms).
writeLedger((i) => `sleep 0.05 && printf tok-${i}`);
kbz(["--approve", "--reverify"]);
const wait1 = sample(["--reverify", "--jobs", "1"]);
const wait8 = sample(["--reverify", "--jobs", "8"]);
console.log(
  `${GATES} gates that sleep 50 ms: --jobs 1 ${wait1.toFixed(0)} ms, --jobs 8 ${wait8.toFixed(0)} ms, speed-up ${(wait1 / wait8).toFixed(2)}x`,
);

// Containment and sandbox cost per gate (issue 15): the same trivial gates under each level,
// interleaved round by round so the machine's load drifts evenly across them.
writeLedger((i) => `true && printf tok-${i}`);
kbz(["--approve", "--reverify"]);
kbz(["--approve", "--reverify", "--sandbox"]);
const variants: [string, string[], Record<string, string>][] = [
  ["process group", ["--reverify"], { KBZ_CONTAINMENT: "pgroup" }],
  ["PID namespace", ["--reverify"], { KBZ_CONTAINMENT: "pidns" }],
  ["cgroup v2 (default here)", ["--reverify"], {}],
  ["--sandbox (bwrap, in a cgroup)", ["--reverify", "--sandbox"], {}],
];
const times = variants.map(() => [] as number[]);
for (let r = 0; r < RUNS; r++) variants.forEach(([, args, more], i) => times[i]!.push(kbz(args, more)));
console.log(
  `containment cost per gate (${GATES} trivial gates, --jobs 1, median of ${RUNS}, minus the fixed cost; then beyond the process group):`,
);
const pgroupPerGate = (median(times[0]!) - fixed) / GATES;
variants.forEach(([name], i) => {
  const perGate = (median(times[i]!) - fixed) / GATES;
  console.log(
    `  ${name.padEnd(32)} ${perGate.toFixed(2)} ms/gate   ${i === 0 ? "" : `+${(perGate - pgroupPerGate).toFixed(2)} ms/gate`}`,
  );
});

// The vacuity probe (issue 18): each passed gate re-run in the sandbox with its INPUTS hidden
// (one file each), next to a plain --reverify of the same gates.
fs.writeFileSync(path.join(root, "input.txt"), "x\n");
{
  const lines = ["# Gates: trivial", ""];
  for (let i = 0; i < GATES; i++)
    lines.push(
      `- [ ] G${i}: gate ${i} prints its token`,
      `  CHECK: true && printf tok-${i}`,
      `  EXPECT: tok-${i}`,
      "  INPUTS: input.txt",
      "  EVIDENCE: pending",
      "",
    );
  fs.writeFileSync(path.join(root, "GATES.md"), lines.join("\n"));
}
kbz(["--approve", "--reverify"]);
const probeRun = (): number => {
  const t0 = performance.now();
  spawnSync(BIN, ["check", "--probe", "--approve"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  return performance.now() - t0;
};
probeRun(); // records the probe approvals
const plainTimes: number[] = [];
const probeTimes: number[] = [];
for (let r = 0; r < RUNS; r++) {
  plainTimes.push(kbz(["--reverify"]));
  probeTimes.push(probeRun());
}
console.log(
  `vacuity probe per gate (INPUTS hidden, sandboxed): ${((median(probeTimes) - fixed) / GATES).toFixed(2)} ms/gate; the plain --reverify of the same gates: ${((median(plainTimes) - fixed) / GATES).toFixed(2)} ms/gate`,
);
if (!process.env.KEEP) {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(store, { recursive: true, force: true });
  fs.rmSync(cache, { recursive: true, force: true });
} else console.log(root);
