// Issue 19: `kbz next --policy critical-path` through the CLI: estimates from ACCESS.json, the
// preferred-leaf explanation, and refusals of a bad policy or estimate.
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { planText, type TaskSpec } from "../core/schedule/build.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// 1 and 2 are ready; 2 starts a chain (2 > 3 > 4), 1 has the estimate given.
function scope(estimate: unknown): string {
  const tasks: TaskSpec[] = [{ id: "1" }, { id: "2" }, { id: "3", needs: ["2"] }, { id: "4", needs: ["3"] }];
  const leaves: Record<string, unknown> = {};
  for (const t of tasks) leaves[t.id] = { complete: true, reads: [], resourceReads: [], resourceWrites: [] };
  if (estimate !== undefined) (leaves["1"] as Record<string, unknown>).estimate = estimate;
  const files: Record<string, string> = {
    ".unlazy/api/PLAN.md": planText(tasks),
    ".unlazy/api/ACCESS.json": JSON.stringify({ schema: 1, contractRevision: 1, leaves }),
  };
  for (const t of tasks)
    files[`.unlazy/api/gates/leaf-${t.id}.md`] =
      `OWNS: src/${t.id}/**\n\n- [ ] G1: leaf ${t.id} works\n  EVIDENCE: pending\n`;
  const dir = tempDir();
  dirs.push(dir);
  writeTree(dir, files);
  return dir;
}

const next = (dir: string, ...args: string[]) =>
  runCli(["next", "--scope", "api", "--slots", "1", ...args], { cwd: dir });

test("kbz next --policy critical-path launches the head of the longest chain and says why", async () => {
  const dir = scope(undefined);
  const plain = JSON.parse((await next(dir, "--json")).stdout);
  expect(plain.launch).toEqual(["1"]);
  expect("policy" in plain).toBe(false);
  const r = await next(dir, "--policy", "critical-path", "--json", "--details");
  const j = JSON.parse(r.stdout);
  expect([r.code, j.launch, j.policy]).toEqual([0, ["2"], "critical-path"]);
  expect(j.explain.preferred[0]).toMatchObject({ leaf: "2", remaining: 3, path: ["2", "3", "4"], ahead: ["1"] });
  const text = await next(dir, "--policy", "critical-path", "--details");
  expect(text.stdout).toContain(
    "LAUNCH 1: 2\n  2 preferred: remaining path 3: 2 > 3 > 4; ahead of 1 (1) in id order\n",
  );
});

test("an ACCESS.json estimate outweighs the chain", async () => {
  const r = await next(scope(5), "--policy", "critical-path", "--json");
  expect(JSON.parse(r.stdout).launch).toEqual(["1"]);
});

test("a bad estimate or policy is exit 2 with the file or the flag named", async () => {
  const bad = await next(scope(-1), "--policy", "critical-path");
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain(".unlazy/api/ACCESS.json:1: estimate of 1 must be a positive number up to 1e9 (got -1)");
  const policy = await next(scope(undefined), "--policy", "fastest", "--json");
  expect(policy.code).toBe(2);
  expect(JSON.parse(policy.stdout).error).toContain('invalid policy "fastest"');
});
