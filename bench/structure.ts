// Figures for issues 9 and 19: structure plan, first apply (initialises the registry and
// regroups every chain), check and a split of the last leaf on the generated plans of 1,000 and
// 10,000 leaves (test/core/structure/generated.ts: each leaf needs up to three of the fifty
// before it, 30 % VERIFIED). Each step is one `dist/kbz structure …` process, as an agent runs
// it, so its wall time, CPU and peak resident memory are that command's own.
// Prints the figures; asserts nothing. Run after `bun build.ts`: `bun bench/structure.ts`
// (or `bun bench/structure.ts --size N` for one size).
import * as fs from "node:fs";
import * as path from "node:path";
import { generatedScope } from "../test/core/structure/generated.ts";
import { child, refinement, request, SCOPE } from "../test/core/structure/scope.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const SIZES = [1_000, 10_000];

interface Step {
  wall: number; // ms
  cpu: number; // ms, user + system
  rss: number; // MB, the process's peak resident set
  exit: number;
  out: string;
}

function kbz(root: string, args: string[]): Step {
  const t0 = performance.now();
  const r = Bun.spawnSync([BIN, "structure", ...args, "--scope", SCOPE, "--json"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const wall = performance.now() - t0;
  const u = r.resourceUsage;
  return {
    wall,
    cpu: Number(u.cpuTime.total) / 1000,
    rss: u.maxRSS / 1024 / 1024,
    exit: r.exitCode ?? -1,
    out: r.stdout.toString() + r.stderr.toString(),
  };
}

function one(n: number): { n: number; cpu: Record<string, number> } {
  const root = generatedScope(n);
  try {
    const write = (name: string, body: unknown) => fs.writeFileSync(path.join(root, name), JSON.stringify(body));
    write("init.json", request("init", 1));
    const last = `T${n - 1}`;
    write("split.json", request("split", 2, { [last]: refinement([child(last, "a"), child(last, "b")]) }));
    const steps: [string, Step][] = [
      ["plan", kbz(root, ["plan", "--request", "init.json"])],
      ["first apply", kbz(root, ["apply", "--request", "init.json"])],
      ["check", kbz(root, ["check"])],
      ["split", kbz(root, ["apply", "--request", "split.json"])],
    ];
    const f = (s: Step) => `${s.wall.toFixed(0)} ms (cpu ${s.cpu.toFixed(0)}, peak ${s.rss.toFixed(0)} MB)`;
    const failed = steps.filter(([name, s]) => s.exit !== 0 && !(name === "check" && s.exit === 1));
    for (const [name, s] of failed) console.log(`  ${name} exited ${s.exit}: ${s.out.trim().slice(0, 300)}`);
    const groups = /"groups":(\d+)/.exec(steps[1]![1].out)?.[1] ?? "?";
    console.log(`${n} leaves: ${steps.map(([name, s]) => `${name} ${f(s)}`).join(", ")}; ${groups} groups`);
    return { n, cpu: Object.fromEntries(steps.map(([name, s]) => [name, s.cpu])) };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (!fs.existsSync(BIN)) throw new Error(`no ${BIN}: run \`bun build.ts\` first`);
const at = process.argv.indexOf("--size");
const results = (at >= 0 ? [Number(process.argv[at + 1])] : SIZES).map(one);
const [a, b] = results;
if (a && b) {
  const growth = Object.keys(a.cpu).map((s) => `${s} ${(b.cpu[s]! / a.cpu[s]!).toFixed(1)}x`);
  console.log(`growth ${a.n} -> ${b.n} (cpu): ${growth.join(", ")}`);
}
