// The INPUTS segment matcher (issue 40 item 3): linear time, the same answers as the regular
// expression it replaced.
import { describe, expect, test } from "bun:test";
import { matchSegment } from "../../../src/core/workspace/glob.ts";
import { prng } from "../../helpers/prng.ts";

/** The regular expression INPUTS segments were matched with at 571b8e3 (the reference for answers, tried only on short names). */
function reference(seg: string, name: string): boolean {
  let re = "";
  for (const ch of seg) re += ch === "*" ? "[^/]*" : ch === "?" ? "[^/]" : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${re}$`).test(name);
}

describe("INPUTS glob segments", () => {
  test("a pattern of 20 stars against a 4,096-character name answers in under 50 ms (the matcher alone, in-process)", () => {
    const pattern = `${"*a".repeat(20)}*b`;
    const name = "a".repeat(4096);
    matchSegment(pattern, name); // warm: the figure is the matcher's, not the JIT's first compile
    const t0 = performance.now();
    const answer = matchSegment(pattern, name);
    const ms = performance.now() - t0;
    expect(answer).toBe(false);
    expect(matchSegment(pattern, `${name}b`)).toBe(true);
    expect(ms).toBeLessThan(50);
  });

  test("the issue's pattern against a 64-letter name", () => {
    expect(matchSegment("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(64))).toBe(false);
  });

  test("literal pieces, ?, stars at either end, empty pattern and name", () => {
    const cases: [string, string, boolean][] = [
      ["", "", true],
      ["", "a", false],
      ["*", "", true],
      ["*.ts", "a.ts", true],
      ["*.ts", "a.tsx", false],
      ["a?c", "abc", true],
      ["a?c", "ac", false],
      ["a*b*c", "abxbxc", true],
      ["a*b*c", "acb", false],
      ["**", "x", true],
      ["ab*ab", "ab", false],
      ["ab*ab", "abab", true],
      ["a.b", "axb", false],
    ];
    for (const [p, n, want] of cases) expect([p, n, matchSegment(p, n)]).toEqual([p, n, want]);
  });

  test("2,000 random short patterns and names answer as the regular expression did (seed 40)", () => {
    const rnd = prng(40);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)]!;
    for (let i = 0; i < 2000; i++) {
      const p = Array.from({ length: Math.floor(rnd() * 7) }, () => pick("ab*?.")).join("");
      const n = Array.from({ length: Math.floor(rnd() * 8) }, () => pick("ab.")).join("");
      expect([p, n, matchSegment(p, n)]).toEqual([p, n, reference(p, n)]);
    }
  });
});
