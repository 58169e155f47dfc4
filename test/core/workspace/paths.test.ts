import { describe, expect, test } from "bun:test";
import { normalizeOwnsPath, normalizeOwnsPathInFull } from "../../../src/core/workspace/paths.ts";
import { prng } from "../../helpers/prng.ts";

describe("OWNS path normalisation", () => {
  test("paths already in normal form come back unchanged; others are normalised or refused", () => {
    expect(normalizeOwnsPath("src/a/**")).toEqual({ ok: true, glob: "src/a/**" });
    expect(normalizeOwnsPath("./src//a/./b/")).toEqual({ ok: true, glob: "src/a/b" });
    expect(normalizeOwnsPath(" src\\a ")).toEqual({ ok: true, glob: "src/a" });
    expect(normalizeOwnsPath("\u00a0src/a\u2028")).toEqual({ ok: true, glob: "src/a" });
    expect(normalizeOwnsPath("src/../etc").ok).toBe(false);
    expect(normalizeOwnsPath("/etc").ok).toBe(false);
    expect(normalizeOwnsPath("C:/x").ok).toBe(false);
    expect(normalizeOwnsPath("./.").ok).toBe(false);
    expect(normalizeOwnsPath("a\0b").ok).toBe(false);
    expect(normalizeOwnsPath("..").ok).toBe(false);
    expect(normalizeOwnsPath(".hidden/..x/...")).toEqual({ ok: true, glob: ".hidden/..x/..." });
  });

  test("the fast path agrees with the general normalisation on 20,000 random paths", () => {
    const rand = prng(77);
    const alphabet = [
      "a",
      "b",
      ".",
      "..",
      "/",
      "//",
      "\\",
      " ",
      "\t",
      "\u00a0",
      "\ufeff",
      "*",
      "C:",
      ":",
      "\0",
      "é",
      "-",
      "x/",
    ];
    for (let i = 0; i < 20_000; i++) {
      let raw = "";
      const parts = 1 + Math.floor(rand() * 7);
      for (let k = 0; k < parts; k++) raw += alphabet[Math.floor(rand() * alphabet.length)]!;
      expect([raw, normalizeOwnsPath(raw)]).toEqual([raw, normalizeOwnsPathInFull(raw)]);
    }
  });
});
