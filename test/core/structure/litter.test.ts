// Killed `structure apply` runs can leave `*.tmp` files beside the real files (issue 15 point 9):
// `structure recover` and the next apply remove them; a live writer's temp file is kept.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { child, makeScope, refinement, request, SCOPE, type TaskSpec } from "./scope.ts";

const tasks: TaskSpec[] = [{ id: "A" }, { id: "B", needs: ["A"] }];
const deadPid = () => spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();

/** The temp files a writer killed mid-write leaves: `<target>.<pid>.<16 hex>.tmp`. */
function plantStrays(root: string): { dead: string[]; live: string } {
  const dir = path.join(root, ".unlazy", SCOPE);
  const pid = deadPid();
  const dead = [
    `PLAN.md.${pid}.0123456789abcdef.tmp`,
    `STRUCTURE.json.${pid}.aaaaaaaaaaaaaaaa.tmp`,
    `gates/leaf-A.md.${pid}.bbbbbbbbbbbbbbbb.tmp`,
  ];
  for (const rel of dead) fs.writeFileSync(path.join(dir, rel), "half written");
  const live = `ACCESS.json.${process.pid}.cccccccccccccccc.tmp`;
  fs.writeFileSync(path.join(dir, live), "being written");
  return { dead, live };
}

describe("stray temp files of crashed structure writes", () => {
  test("structure recover removes the *.tmp of a killed apply and keeps a live writer's", async () => {
    const root = await makeScope(tasks);
    const { dead, live } = plantStrays(root);
    expect(await recoverStructure(root, SCOPE)).toEqual({ status: "nothing-to-recover" });
    const dir = path.join(root, ".unlazy", SCOPE);
    for (const rel of dead) expect(fs.existsSync(path.join(dir, rel))).toBe(false);
    expect(fs.existsSync(path.join(dir, live))).toBe(true);
  });

  test("the next structure apply removes them too", async () => {
    const root = await makeScope(tasks);
    const { dead } = plantStrays(root);
    const r = await applyStructure(
      root,
      SCOPE,
      request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) }),
    );
    expect(r.status).toBe("applied");
    const dir = path.join(root, ".unlazy", SCOPE);
    for (const rel of dead) expect(fs.existsSync(path.join(dir, rel))).toBe(false);
  });
});
