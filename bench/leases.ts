// Figures for issue 4: lease claim+release round trips (one process, then 8 contending processes
// through the core API), and `kbz wave` transitions through the binary. Prints numbers; asserts
// nothing. Run after `bun build.ts`: `bun bench/leases.ts`.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { claimLease, releaseLeases } from "../src/io/dispatch/leases.ts";

const REPO = path.resolve(import.meta.dir, "..");
const BIN = path.join(REPO, "dist", "kbz");
const ROUNDS = 200;

function workspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-leases-")));
  fs.mkdirSync(path.join(root, ".unlazy"));
  return root;
}

const single = workspace();
let t = performance.now();
for (let i = 0; i < ROUNDS; i++) {
  await claimLease(single, "bench", "leaf-1", ["src/a/**"]);
  await releaseLeases(single, "bench", "leaf-1");
}
const singleMs = (performance.now() - t) / ROUNDS;
console.log(`claim+release, 1 process, ${ROUNDS} rounds: ${singleMs.toFixed(2)} ms per round`);

const shared = workspace();
const script = path.join(REPO, "test/helpers/lease-churn.ts");
const bun = path.join(REPO, "node_modules/.bin/bun");
t = performance.now();
// The four "shared" globs all overlap one another; the four others are disjoint from everything.
const globs = [
  "src/shared/**",
  "src/shared/a.ts",
  "src/*/a.ts",
  "src/shared",
  "lib/p4/**",
  "lib/p5/**",
  "lib/p6/x.ts",
  "lib/p7",
];
const procs = globs.map((glob, i) =>
  Bun.spawn([bun, script, shared, i < 4 ? `shared-${i}` : `own-${i}`, i < 4 ? "shared" : "own", "100", glob], {
    stdout: "pipe",
  }),
);
const summaries = await Promise.all(procs.map(async (p) => JSON.parse((await new Response(p.stdout).text()).trim())));
const wall = performance.now() - t;
const claimed = summaries.reduce((n, s) => n + s.claimed, 0);
console.log(
  `8 processes x 100 claim/release (4 overlapping, 4 disjoint): ${(wall / 1000).toFixed(2)} s wall, ${claimed} claims granted, ${800 - claimed} refused`,
);

const waves = workspace();
const run = (...args: string[]) => spawnSync(BIN, ["wave", ...args, "--scope", "bench"], { cwd: waves });
t = performance.now();
const N = 20;
for (let i = 0; i < N; i++) {
  run("open", "--wave", `w${i}`, "--leaf", "a");
  run("start", "--wave", `w${i}`, "--leaf", "a", "--handle", "h");
  run("seal", "--wave", `w${i}`);
  run("return", "--wave", `w${i}`, "--leaf", "a");
}
console.log(
  `kbz wave transition through the binary: ${((performance.now() - t) / (N * 4)).toFixed(1)} ms each (${N * 4} transitions)`,
);
