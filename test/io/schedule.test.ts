// The one reader under `kbz next`: with a STRUCTURE.json registry the scheduler and the structure
// check share one read of the scope, so every scope file is opened once (strace counts the opens).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { applyStructure } from "../../src/io/structure/apply.ts";
import { BIN, tempDir } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";
import { child, makeScope, refinement, request, SCOPE } from "../core/structure/scope.ts";

function opensUnder(root: string, args: string[]): Map<string, number> {
  const log = path.join(tempDir("kbz-strace-"), "opens");
  const r = spawnSync("strace", ["-f", "-qq", "-e", "trace=open,openat", "-o", log, BIN, ...args], {
    cwd: root,
    encoding: "utf8",
  });
  expect(r.status).toBe(0);
  const counts = new Map<string, number>();
  const scopeDir = path.join(root, ".unlazy", SCOPE) + "/";
  for (const line of fs.readFileSync(log, "utf8").split("\n")) {
    const m = /open(?:at)?\([^"]*"([^"]+)"/.exec(line);
    if (!m || line.includes("O_DIRECTORY") || line.includes("= -1")) continue;
    const file = path.resolve(root, m[1]!);
    // Directories are listed twice (discovery, then the consistency pass re-lists them); files are what is read.
    if (file.startsWith(scopeDir) && !fs.statSync(file).isDirectory())
      counts.set(file.slice(scopeDir.length), (counts.get(file.slice(scopeDir.length)) ?? 0) + 1);
  }
  return counts;
}

describe.skipIf(!needs("strace"))("kbz next reads a scope once", () => {
  test("with a STRUCTURE.json registry every scope file is opened exactly once", async () => {
    const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }], {
      extra: { "gates/node-1.md": "- [ ] N1: branch integrated\n  EVIDENCE: pending\n" },
    });
    await applyStructure(root, SCOPE, request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) }));
    expect(fs.existsSync(path.join(root, ".unlazy", SCOPE, "STRUCTURE.json"))).toBe(true);
    const opens = opensUnder(root, ["next", "--scope", SCOPE, "--slots", "2", "--json"]);
    for (const name of ["PLAN.md", "ACCESS.json", "STRUCTURE.json", "GATES.md", "gates/leaf-A.1.md", "gates/node-1.md"])
      expect(opens.get(name)).toBe(1);
    expect([...opens].filter(([, n]) => n !== 1)).toEqual([]);
  });
});
