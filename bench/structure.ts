// Figures for issue 9: structure plan, apply and check on random plans of 50, 100 and 200 leaves
// (the first event initialises the registry and regroups every chain). Prints numbers; asserts
// nothing. Run: `bun bench/structure.ts`.
import { applyStructure, planStructure } from "../src/io/structure/apply.ts";
import { checkStructure } from "../src/io/structure/oracle.ts";
import { prng } from "../test/helpers/prng.ts";
import { child, makeScope, refinement, request, SCOPE, type TaskSpec } from "../test/core/structure/scope.ts";

function tasks(n: number): TaskSpec[] {
  const rand = prng(n);
  const out: TaskSpec[] = [];
  for (let k = 0; k < n; k++) {
    const needs = new Set<string>();
    const count = k === 0 ? 0 : Math.floor(rand() * 3);
    for (let i = 0; i < count; i++) needs.add(`T${Math.max(0, k - 1 - Math.floor(rand() * 20))}`);
    out.push({ id: `T${k}`, needs: [...needs] });
  }
  return out;
}

function ms(t0: number): string {
  return `${(performance.now() - t0).toFixed(1)} ms`;
}

for (const n of [50, 100, 200]) {
  const root = makeScope(tasks(n));
  let t0 = performance.now();
  planStructure(root, SCOPE, request("init", 1));
  const plan = ms(t0);
  t0 = performance.now();
  const init = await applyStructure(root, SCOPE, request("init", 1));
  const apply = ms(t0);
  t0 = performance.now();
  const v = checkStructure(root, SCOPE);
  const check = ms(t0);
  t0 = performance.now();
  const last = `T${n - 1}`;
  await applyStructure(root, SCOPE, request("split", 2, { [last]: refinement([child(last, "a"), child(last, "b")]) }));
  const split = ms(t0);
  const groups = init.status === "applied" ? init.complexity.groups : 0;
  console.log(`${n} leaves: plan ${plan}, first apply ${apply} (${groups} groups), check ${check} (ok ${v.ok}), split ${split}`);
}
