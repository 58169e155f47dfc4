// The named split's request (core/structure/split.ts): children <leaf>.N at the next free N, the
// leaf's tier and reads, no resource writes, and the refusals that name the leaf.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { namedSplit } from "../../../src/core/structure/split.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { errorOf, lease, makeScope, SCOPE } from "./scope.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});
const scope = (...a: Parameters<typeof makeScope>) => {
  const r = makeScope(...a);
  roots.push(r);
  return r;
};

describe("namedSplit", () => {
  test("one child per part at the next free id, with the leaf's tier and reads and no resource writes", () => {
    const root = scope([
      { id: "1", owns: ["lib/**"] },
      { id: "2", owns: ["src/b/**"], needs: ["1"], tier: "mechanical", reads: ["lib/**"], resourceReads: ["db:test"] },
      { id: "2.1", owns: ["src/c/**"] },
    ]);
    const s = namedSplit(loadStructure(root, SCOPE), "2", [["src/b/p/**"], ["src/b/r/**", "src/b/r2/**"]]);
    expect(s.status).toBe("request");
    if (s.status !== "request") return;
    expect(s.operation).toBe("split-2-r1");
    expect(s.children).toEqual([
      { id: "2.2", owns: ["src/b/p/**"] },
      { id: "2.3", owns: ["src/b/r/**", "src/b/r2/**"] },
    ]);
    const [a] = (s.request.refinements as any)["2"].children;
    expect(a).toMatchObject({
      id: "2.2",
      needs: [],
      tier: "mechanical",
      access: { complete: true, reads: ["lib/**"], resourceReads: ["db:test"], resourceWrites: [] },
    });
    expect(a.ledger).toStartWith("# Gates: leaf 2.2\nOWNS: src/b/p/**\n");
  });

  test("refusals name the leaf: VERIFIED, leased, resource writes, outside OWNS, overlapping parts", () => {
    const root = scope([
      { id: "1", state: "VERIFIED" },
      { id: "2", needs: ["1"], state: "READY" },
      { id: "3", resourceWrites: ["db:test"] },
    ]);
    const split = (id: string, parts: string[][]) => errorOf(() => namedSplit(loadStructure(root, SCOPE), id, parts));
    expect(split("1", [["src/1/a/**"], ["src/1/b/**"]])).toContain("never splits VERIFIED work: 1 is VERIFIED");
    expect(split("3", [["src/3/a/**"], ["src/3/b/**"]])).toContain("3 writes resources db:test");
    expect(split("2", [["src/2/a/**"], ["src/x/**"]])).toContain("src/x/** is not inside 2's OWNS (src/2/**)");
    expect(split("2", [["src/2/**"], ["src/2/b/**"]])).toContain("parts 1 and 2 overlap");
    lease(root, "2", ["src/2/**"]);
    expect(split("2", [["src/2/a/**"], ["src/2/b/**"]])).toContain("2 is active or leased");
  });
});
