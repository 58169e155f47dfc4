// The generated structure plan of issue 19, shared by bench/structure.ts and the pinning test:
// leaf k (ids T0, T1, …) needs up to three of the fifty leaves before it, and the first 30 %
// whose needs are all VERIFIED are VERIFIED (their ledgers met). Built directly (not through
// makeScope, whose wave computation is quadratic) so 10,000 leaves take well under a second.
import { prng } from "../../helpers/prng.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";
import { ledgerText, SCOPE } from "./scope.ts";

export function generatedScope(n: number, root = tempDir("kbz-structure-gen-")): string {
  const rand = prng(n);
  const wave: number[] = [];
  const state: string[] = [];
  const rows: string[] = [];
  const leaves: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  for (let k = 0; k < n; k++) {
    const needs = new Set<number>();
    const count = k === 0 ? 0 : Math.floor(rand() * 4);
    for (let i = 0; i < count; i++) needs.add(Math.max(0, k - 1 - Math.floor(rand() * 50)));
    const ns = [...needs].sort((a, b) => a - b);
    wave[k] = 1 + Math.max(0, ...ns.map((x) => wave[x]!));
    const open = ns.every((x) => state[x] === "VERIFIED");
    state[k] = open && k < n * 0.3 ? "VERIFIED" : open ? "READY" : "WAITING";
    const owns = [`src/T${k}/**`];
    rows.push(
      `| T${k} | ${owns.join(", ")} | ${ns.length ? ns.map((x) => `T${x}`).join(", ") : "-"} | judgment | ${wave[k]} | ${state[k]} |`,
    );
    leaves[`T${k}`] = {
      complete: true,
      reads: rand() < 0.2 ? [`src/T${Math.floor(rand() * n)}/api.ts`] : [],
      resourceReads: rand() < 0.1 ? ["db:test"] : [],
      resourceWrites: rand() < 0.02 ? [`port:${3000 + (k % 50)}`] : [],
    };
    files[`.unlazy/${SCOPE}/gates/leaf-T${k}.md`] = ledgerText(owns, [`GT${k}`], state[k] === "VERIFIED");
  }
  files[`.unlazy/${SCOPE}/PLAN.md`] =
    `# Plan: generated\nContract revision: 1.\n\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n`;
  files[`.unlazy/${SCOPE}/ACCESS.json`] = JSON.stringify({ schema: 1, contractRevision: 1, leaves });
  files[`.unlazy/${SCOPE}/GATES.md`] = "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending\n";
  writeTree(root, files);
  return root;
}
