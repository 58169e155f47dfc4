// Figures for issue 5: `kbz next --json` on random plans of 100, 1,000 and 10,000 leaves.
// Prints numbers; asserts nothing. Run after `bun build.ts`: `bun bench/next.ts`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { prng } from "../test/helpers/prng.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const SIZES = [100, 1_000, 10_000];
const RUNS = 7;
const SLOTS = 8;

/** A random DAG scope: each leaf needs up to 3 of the 40 leaves before it, owns two globs, reads a few. */
function makeScope(leaves: number): string {
  const rand = prng(leaves);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `kbz-bench-next-${leaves}-`));
  const dir = path.join(root, ".unlazy", "bench");
  fs.mkdirSync(path.join(dir, "gates"), { recursive: true });
  const wave: number[] = [];
  const state: string[] = [];
  const rows: string[] = [];
  const access: Record<string, unknown> = {};
  for (let k = 0; k < leaves; k++) {
    const id = `${1 + Math.floor(k / 10)}.${1 + (k % 10)}`;
    const needs = new Set<number>();
    const count = k === 0 ? 0 : Math.floor(rand() * 4);
    for (let n = 0; n < count; n++) needs.add(Math.max(0, k - 1 - Math.floor(rand() * 40)));
    const ns = [...needs];
    wave[k] = 1 + Math.max(0, ...ns.map((n) => wave[n]!));
    const open = ns.every((n) => state[n] === "VERIFIED");
    state[k] = !open ? "WAITING" : k < leaves * 0.4 ? "VERIFIED" : "READY";
    const area = `src/m${k % 25}/${id}`;
    const owns = [`${area}/**`, `test/m${k % 25}/${id}.test.ts`];
    const idOf = (n: number) => `${1 + Math.floor(n / 10)}.${1 + (n % 10)}`;
    rows.push(
      `| ${id} | ${owns.join(", ")} | ${ns.length ? ns.map(idOf).join(", ") : "-"} | mechanical | ${wave[k]} | ${state[k]} |`,
    );
    const reads = ["contracts/**", ...ns.slice(0, 2).map((n) => `src/m${n % 25}/${idOf(n)}/api.ts`)];
    if (rand() < 0.2) reads.push(`src/m${Math.floor(rand() * 25)}/*.ts`);
    access[id] = {
      complete: true,
      reads: [...new Set(reads)],
      resourceReads: rand() < 0.1 ? ["db:test"] : [],
      resourceWrites: rand() < 0.02 ? [`port:${3000 + (k % 50)}`] : [],
    };
    const done = state[k] === "VERIFIED";
    fs.writeFileSync(
      path.join(dir, "gates", `leaf-${id}.md`),
      `# Gates: leaf ${id}\nOWNS: ${owns.join(", ")}\n\n- [${done ? "x" : " "}] G1: leaf ${id} works\n  EVIDENCE: ${done ? "reviewed in session" : "pending"}\n- [${done ? "x" : " "}] G2: leaf ${id} documented\n  EVIDENCE: ${done ? "reviewed in session" : "pending"}\n`,
    );
  }
  fs.writeFileSync(
    path.join(dir, "PLAN.md"),
    `# Plan: bench\nContract revision: 1.\n\n## Leaf dispatch table\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
  fs.writeFileSync(
    path.join(dir, "ACCESS.json"),
    JSON.stringify({ schema: 1, contractRevision: 1, leaves: access }, null, 2) + "\n",
  );
  return root;
}

interface Sample {
  wall: number;
  cpu: number;
}

function time(root: string): { samples: Sample[]; summary: string } {
  const samples: Sample[] = [];
  let summary = "";
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = Bun.spawnSync({
      cmd: [BIN, "next", "--scope", "bench", "--slots", String(SLOTS), "--json"],
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    const wall = performance.now() - t0;
    // CPU time (user + system) of the child: the shared machine inflates wall time, not this.
    samples.push({ wall, cpu: Number(r.resourceUsage.cpuTime.total) / 1000 });
    if (r.exitCode === 2) throw new Error(`kbz next failed: ${r.stdout.toString()}${r.stderr.toString()}`);
    const a = JSON.parse(r.stdout.toString());
    summary = `action ${a.action}, mode ${a.mode}, launch ${a.launch.length}, blocked ${JSON.stringify(a.blocked)}`;
  }
  return { samples, summary };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const walls: number[] = [];
const cpus: number[] = [];
const keep = process.env.KEEP === "1";
for (const n of SIZES) {
  const root = makeScope(n);
  const { samples, summary } = time(root);
  const wall = median(samples.map((x) => x.wall));
  const cpu = median(samples.map((x) => x.cpu));
  walls.push(wall);
  cpus.push(cpu);
  const min = Math.min(...samples.map((x) => x.wall));
  console.log(
    `${String(n).padStart(6)} leaves: wall median ${wall.toFixed(1)} ms (min ${min.toFixed(1)}), cpu median ${cpu.toFixed(1)} ms (${summary})`,
  );
  if (keep) console.log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}
for (let i = 1; i < SIZES.length; i++) {
  console.log(
    `${SIZES[i - 1]} -> ${SIZES[i]} leaves: wall x${(walls[i]! / walls[i - 1]!).toFixed(2)}, cpu x${(cpus[i]! / cpus[i - 1]!).toFixed(2)} (target <= x20)`,
  );
}
console.log(
  `10,000 leaves: wall ${walls[walls.length - 1]!.toFixed(1)} ms, cpu ${cpus[cpus.length - 1]!.toFixed(1)} ms (target < 500 ms)`,
);
console.log(
  `load average while measuring: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")} on ${os.cpus().length} cores`,
);
