import { describe, expect, test } from "bun:test";
import {
  conflicts,
  conflictWitness,
  ConflictIndex,
  GlobIndex,
  type AccessSets,
} from "../../../src/core/schedule/conflicts.ts";
import { globsOverlap } from "../../../src/core/workspace/paths.ts";
import { prng } from "../../helpers/prng.ts";

const task = (o: Partial<AccessSets>): AccessSets => ({
  writes: [],
  reads: [],
  resourceReads: [],
  resourceWrites: [],
  ...o,
});

describe("Bernstein conflicts", () => {
  test("write/write, write/read and read/write overlaps conflict; shared reads do not", () => {
    expect(conflicts(task({ writes: ["src/a/**"] }), task({ writes: ["src/a/x.ts"] }))).toBe(true);
    expect(conflicts(task({ writes: ["src/a/**"] }), task({ reads: ["src/*"] }))).toBe(true);
    expect(conflicts(task({ reads: ["src"] }), task({ writes: ["src/b/**"] }))).toBe(true);
    expect(conflicts(task({ reads: ["src/**"] }), task({ reads: ["src/**"] }))).toBe(false);
    expect(conflicts(task({ writes: ["src/a/**"], reads: ["src/a/**"] }), task({ writes: ["src/b/**"] }))).toBe(false);
  });

  test("resource writes meet resource reads and writes; resource reads alone never conflict", () => {
    expect(conflicts(task({ resourceWrites: ["db:test"] }), task({ resourceWrites: ["db:test"] }))).toBe(true);
    expect(conflicts(task({ resourceReads: ["db:test"] }), task({ resourceWrites: ["db:test"] }))).toBe(true);
    expect(conflicts(task({ resourceReads: ["db:test"] }), task({ resourceReads: ["db:test"] }))).toBe(false);
  });

  test("paths are case-folded before the overlap test", () => {
    expect(conflicts(task({ writes: ["SRC/1/**"] }), task({ reads: ["src/1/**"] }))).toBe(true);
  });

  test("the witness says which items meet", () => {
    expect(conflictWitness(task({ reads: ["web/api.ts"] }), task({ writes: ["web/**"] }), "b")).toEqual({
      kind: "read/write",
      mine: "web/api.ts",
      theirs: "web/**",
      with: "b",
    });
  });
});

const SEGS = ["src", "SRC", "a", "b", "x.ts", "*", "**", "*.ts", "a*", "{a,b}", "[ab]", "?"];
function randomGlob(rand: () => number): string {
  const n = 1 + Math.floor(rand() * 4);
  return Array.from({ length: n }, () => SEGS[Math.floor(rand() * SEGS.length)]!).join("/");
}

describe("the glob prefix index agrees with globsOverlap", () => {
  test("on 3,000 random queries, the index finds an overlap exactly when a pairwise scan does", () => {
    const rand = prng(7);
    for (let round = 0; round < 300; round++) {
      const stored = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => randomGlob(rand));
      const index = new GlobIndex<number>();
      stored.forEach((g, k) => index.add(g, k));
      for (let q = 0; q < 10; q++) {
        const query = randomGlob(rand);
        const brute = stored.some((g) => globsOverlap(g.toLowerCase(), query.toLowerCase()));
        const hit = index.first(query);
        expect({ query, stored, found: hit !== null }).toEqual({ query, stored, found: brute });
        if (hit) expect(globsOverlap(hit.glob.toLowerCase(), query.toLowerCase())).toBe(true);
      }
    }
  });

  test("skipped owners are never returned", () => {
    const index = new GlobIndex<string>();
    index.add("src/**", "own");
    index.add("src/a/**", "other");
    expect(index.first("src/a/x", (o) => o === "own")!.owner).toBe("other");
    expect(index.first("src/b/x", (o) => o === "own")).toBeNull();
  });

  test("the conflict index matches pairwise conflicts on random tasks", () => {
    const rand = prng(11);
    const res = ["db:a", "db:b", "port:1"];
    const randomTask = () =>
      task({
        writes: [randomGlob(rand)],
        reads: rand() < 0.5 ? [randomGlob(rand)] : [],
        resourceReads: rand() < 0.3 ? [res[Math.floor(rand() * 3)]!] : [],
        resourceWrites: rand() < 0.3 ? [res[Math.floor(rand() * 3)]!] : [],
      });
    for (let round = 0; round < 300; round++) {
      const group = Array.from({ length: 1 + Math.floor(rand() * 5) }, randomTask);
      const index = new ConflictIndex<number>();
      group.forEach((t, k) => index.add(k, t));
      const probe = randomTask();
      const w = index.find(probe);
      expect(w !== null).toBe(group.some((t) => conflicts(probe, t)));
      if (w) expect(conflicts(probe, group[w.with]!)).toBe(true);
    }
  });
});
