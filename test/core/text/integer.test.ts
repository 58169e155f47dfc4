import { describe, expect, test } from "bun:test";
import { parseInteger } from "../../../src/core/text/integer.ts";

describe("parseInteger: the one rule for an integer flag", () => {
  test("decimal digits within [min, max]", () => {
    expect(parseInteger("1", 1)).toBe(1);
    expect(parseInteger("64", 1, 64)).toBe(64);
    expect(parseInteger("0", 0)).toBe(0);
    expect(parseInteger(30, 2, 3600)).toBe(30);
  });
  test("out of range, signs, fractions, exponents, hex, spaces, leading zeros and non-text are refused", () => {
    for (const raw of [
      "0",
      "65",
      "-1",
      "+1",
      "1.5",
      "1e1",
      "0x4",
      " 4",
      "4 ",
      "04",
      "",
      "Infinity",
      "NaN",
      "9007199254740993",
    ]) {
      expect([raw, parseInteger(raw, 1, raw === "9007199254740993" ? Number.MAX_SAFE_INTEGER : 64)]).toEqual([
        raw,
        null,
      ]);
    }
    expect(parseInteger(["1", "2"], 1)).toBeNull();
    expect(parseInteger(undefined, 1)).toBeNull();
    expect(parseInteger(1.5, 1)).toBeNull();
  });
});
