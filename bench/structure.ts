// Figures for issues 9 and 19: structure plan, first apply (initialises the registry and
// regroups every chain), check and a split of the last leaf on the generated plans of 1,000 and
// 10,000 leaves (test/core/structure/generated.ts: each leaf needs up to three of the fifty
// before it, 30 % VERIFIED). Each size runs in its own process so its peak RSS is its own.
// Prints wall and CPU milliseconds per step and the peak RSS; asserts nothing.
// Run: `bun bench/structure.ts` (or `bun bench/structure.ts --size N` for one size).
import * as fs from "node:fs";
import { applyStructure, planStructure } from "../src/io/structure/apply.ts";
import { StructureError } from "../src/core/structure/model.ts";
import { checkStructure } from "../src/io/structure/oracle.ts";
import { generatedScope } from "../test/core/structure/generated.ts";
import { child, refinement, request, SCOPE } from "../test/core/structure/scope.ts";

const SIZES = [1_000, 10_000];

interface Step {
  wall: number;
  cpu: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function step(fn: () => unknown): Promise<Step> {
  const [w, c] = [performance.now(), cpuMs()];
  await fn();
  return { wall: performance.now() - w, cpu: cpuMs() - c };
}

async function one(n: number): Promise<void> {
  const root = generatedScope(n);
  try {
    let groups = 0;
    let ok = false;
    const plan = await step(() => planStructure(root, SCOPE, request("init", 1)));
    const apply = await step(async () => {
      const r = await applyStructure(root, SCOPE, request("init", 1));
      if (r.status === "applied") groups = r.complexity.groups;
    });
    const check = await step(() => (ok = checkStructure(root, SCOPE).ok));
    const last = `T${n - 1}`;
    let refused: string | null = null;
    const split = await step(async () => {
      try {
        await applyStructure(root, SCOPE, request("split", 2, { [last]: refinement([child(last, "a"), child(last, "b")]) }));
      } catch (e) {
        // A journal past the 8 MiB bound (docs/formats.md#structure-journal) is refused unwritten;
        // reported, not thrown. With digest images the 10,000-leaf split's journal is 4.8 MiB.
        if (!(e instanceof StructureError)) throw e;
        refused = e.message;
      }
    });
    const rssMB = process.resourceUsage().maxRSS / 1024;
    console.log(JSON.stringify({ n, plan, apply, check, split, refused, groups, ok, rssMB }));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const at = process.argv.indexOf("--size");
if (at >= 0) await one(Number(process.argv[at + 1]));
else {
  const f = (s: Step) => `${s.wall.toFixed(0)} ms (cpu ${s.cpu.toFixed(0)})`;
  const results: { n: number; plan: Step }[] = [];
  for (const n of SIZES) {
    const r = Bun.spawnSync({ cmd: [process.execPath, import.meta.path, "--size", String(n)], stdout: "pipe", stderr: "inherit" });
    if (r.exitCode !== 0) throw new Error(`size ${n} failed`);
    const x = JSON.parse(r.stdout.toString());
    results.push(x);
    console.log(
      `${n} leaves: plan ${f(x.plan)}, first apply ${f(x.apply)} (${x.groups} groups), check ${f(x.check)} (ok ${x.ok}), split ${f(x.split)}${x.refused ? ` (refused: ${x.refused})` : ""}; peak RSS ${x.rssMB.toFixed(0)} MB`,
    );
  }
  const [a, b] = results;
  if (a && b) console.log(`growth 1,000 -> 10,000 (cpu): plan ${(b.plan.cpu / a.plan.cpu).toFixed(1)}x`);
}
