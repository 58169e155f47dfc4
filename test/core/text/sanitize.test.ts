import { describe, expect, test } from "bun:test";
import { escapeField, escapeUnsafe, sanitize, sanitizeCompact, terminalJson } from "../../../src/core/text/sanitize.ts";

const HOSTILE = "a\u001b[31m\u0007b\u0085c\u202ed\u2028e\u2066f\u061cg\u200eh\u007fi\u0000j\ufeffk";

describe("sanitizer", () => {
  test("replaces C0, DEL, C1 and line separators with spaces; shows bidi and other format characters escaped", () => {
    expect(sanitize(HOSTILE)).toBe("a [31m b c\\u202ed e\\u2066f\\u061cg\\u200eh i j\\ufeffk");
    expect(sanitize("plain ✓ 한국어")).toBe("plain ✓ 한국어");
  });

  test("invisible characters (Unicode Cf) are shown escaped: CHECK: ca<U+200B>t /etc/hostname never displays as cat", () => {
    expect(sanitize("ca\u200bt /etc/hostname")).toBe("ca\\u200bt /etc/hostname");
    const cf = [
      "\u200b",
      "\u200c",
      "\u200d",
      "\u200e",
      "\u200f",
      "\u2060",
      "\u2061",
      "\u2062",
      "\u2063",
      "\u2064",
      "\ufeff",
      "\u00ad",
    ];
    for (const ch of cf) expect(sanitize(`a${ch}b`)).toBe(`a\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}b`);
    expect(sanitize("tag\u{E0041}")).toBe("tag\\u{e0041}");
    expect(escapeUnsafe("a\u200db")).toBe("a\\u200db");
  });

  test("terminal JSON escapes every format character and keeps the data exact", () => {
    const value = { check: "ca\u200bt \u200d\u2060\ufeff\u{E0041}" };
    const text = terminalJson(value);
    expect(text).not.toMatch(/\p{Cf}/u);
    expect(text).toContain("ca\\u200bt");
    expect(JSON.parse(text)).toEqual(value);
  });

  test("escapes them as visible \\xHH / \\uHHHH text", () => {
    expect(escapeUnsafe("\u001b\u0085\u2028\u202e")).toBe("\\x1b\\x85\\u2028\\u202e");
  });

  test("compacts whitespace and caps length", () => {
    expect(sanitizeCompact("a\n\n b\t c", 500)).toBe("a b c");
    expect(sanitizeCompact("x".repeat(600), 500)).toHaveLength(500);
  });

  test("caps a field's UTF-8 size with a visible marker", () => {
    const f = escapeField("\u001b".repeat(1_000_000), 1024);
    expect(Buffer.byteLength(f)).toBeLessThanOrEqual(1024);
    expect(f).toEndWith("...[truncated]");
  });

  test("terminal JSON keeps the data exact but the bytes inert", () => {
    const text = terminalJson({ t: HOSTILE });
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069\u061c\u200e\ufeff]/);
    expect(JSON.parse(text).t).toBe(HOSTILE);
  });
});
