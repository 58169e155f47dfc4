import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { unifiedDiff } from "../../../src/core/text/unified.ts";
import { tempDir } from "../../helpers/kbz.ts";
import { prng } from "../../helpers/prng.ts";

/** GNU diff -u's hunks (headers left out) for two texts. */
function gnu(before: string, after: string): string[] {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, "a"), before);
  fs.writeFileSync(path.join(dir, "b"), after);
  const r = spawnSync("diff", ["-u", "a", "b"], { cwd: dir, encoding: "utf8" });
  return r.stdout
    .split("\n")
    .slice(2)
    .filter((l) => l !== "" && !l.startsWith("\\"));
}

describe("unifiedDiff", () => {
  test("equal texts give no lines; a changed line shows as - and + with its context and a hunk header", () => {
    expect(unifiedDiff("f", "a\nb\n", "a\nb\n")).toEqual([]);
    expect(unifiedDiff("t.sh", "1\n2\n3\n4\n5\n", "1\n2\nthree\n4\n5\n")).toEqual([
      "--- t.sh (approved)",
      "+++ t.sh (now)",
      "@@ -1,5 +1,5 @@",
      " 1",
      " 2",
      "-3",
      "+three",
      " 4",
      " 5",
    ]);
  });

  test("a file that did not exist at approval, and one that is gone", () => {
    expect(unifiedDiff("n", null, "x\n")).toEqual(["--- /dev/null", "+++ n (now)", "@@ -0,0 +1,1 @@", "+x"]);
    expect(unifiedDiff("n", "x\n", null)).toEqual(["--- n (approved)", "+++ /dev/null", "@@ -1,1 +0,0 @@", "-x"]);
  });

  test("the changed lines agree with GNU diff -u on random edits (the same lines removed and added)", () => {
    const rand = prng(39);
    for (let round = 0; round < 40; round++) {
      const a = Array.from({ length: 5 + Math.floor(rand() * 30) }, (_, i) => `line ${i % 7}`);
      const b = a.flatMap((l) =>
        rand() < 0.15
          ? []
          : rand() < 0.15
            ? [l, `new ${Math.floor(rand() * 5)}`]
            : rand() < 0.1
              ? [`changed ${l}`]
              : [l],
      );
      const ours = unifiedDiff("f", a.join("\n") + "\n", b.join("\n") + "\n").slice(2);
      const theirs = gnu(a.join("\n") + "\n", b.join("\n") + "\n");
      const count = (ls: string[], c: string) => ls.filter((l) => l.startsWith(c)).length;
      expect(count(ours, "-")).toBe(count(theirs, "-"));
      expect(count(ours, "+")).toBe(count(theirs, "+"));
    }
  });
});
