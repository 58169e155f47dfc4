import { describe, expect, test } from "bun:test";
import { escapeField, escapeUnsafe, sanitize, sanitizeCompact, terminalJson } from "../../../src/core/text/sanitize.ts";

const HOSTILE = "a\u001b[31m\u0007b\u0085c\u202ed\u2028e\u2066f\u061cg\u200eh\u007fi\u0000j\ufeffk";

describe("sanitizer", () => {
  test("replaces C0, DEL, C1, bidi and line separators with spaces", () => {
    expect(sanitize(HOSTILE)).toBe("a [31m b c d e f g h i j k");
    expect(sanitize("plain ✓ 한국어")).toBe("plain ✓ 한국어");
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
