import { describe, expect, test } from "bun:test";
import { moveSelection, scrollWindow } from "../../src/tui/scroll.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { fit } from "../../src/tui/text.ts";
import { layoutDetail } from "../../src/tui/Detail.tsx";

describe("scrolling", () => {
  test("the window moves only when the selection leaves it", () => {
    expect(scrollWindow(0, 5, 100, 10)).toBe(0);
    expect(scrollWindow(0, 10, 100, 10)).toBe(1);
    expect(scrollWindow(20, 15, 100, 10)).toBe(15);
    expect(scrollWindow(95, 99, 100, 10)).toBe(90);
    expect(scrollWindow(7, 3, 5, 10)).toBe(0);
  });
  test("the selection is clamped to the list", () => {
    expect(moveSelection(0, -1, 10)).toBe(0);
    expect(moveSelection(8, 5, 10)).toBe(9);
    expect(moveSelection(3, 1, 0)).toBe(0);
  });
});

describe("theme and text", () => {
  test("NO_COLOR drops every colour; without it tones have colours", () => {
    const plain = makeTheme({ NO_COLOR: "1" });
    expect(plain.color).toBe(false);
    for (const t of ["ok", "bad", "warn", "info", "active", "muted", "accent"] as const)
      expect(plain.tone(t)).toBeUndefined();
    expect(makeTheme({}).tone("ok")).toBe("green");
    expect(makeTheme({ NO_COLOR: "" }).color).toBe(true);
  });
  test("fit sanitizes and cuts with an ellipsis; wrapped detail keeps every character", () => {
    expect(fit("a\u001b[2Jb\u202ec", 20)).toBe("a [2Jb\\u202ec");
    expect(fit("abcdef", 4)).toBe("abc…");
    const rows = layoutDetail([{ label: "PATH", value: "x".repeat(25), wrap: true }], 10);
    expect(rows.map((r) => r.value).join("")).toBe("x".repeat(25));
    expect(rows.map((r) => r.label)).toEqual(["PATH", "", ""]);
  });
});
