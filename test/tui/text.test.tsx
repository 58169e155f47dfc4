// Display width: CJK and emoji take two columns, combining marks none; rows line up.
import { afterEach, describe, expect, test } from "bun:test";
import { cleanup } from "ink-testing-library";
import stringWidth from "string-width";
import { cols, fit, pad, wrap } from "../../src/tui/text.ts";
import { layoutDetail } from "../../src/tui/Detail.tsx";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { frame, renderAt } from "../helpers/ink.ts";

afterEach(() => cleanup());

describe("display width", () => {
  test("cols counts terminal columns, not UTF-16 units", () => {
    expect(cols("abc")).toBe(3);
    expect(cols("日本語")).toBe(6);
    expect(cols("🚀ok")).toBe(4);
    expect(cols("e\u0301")).toBe(1);
  });

  test("fit and pad cut and fill by columns, never splitting a character", () => {
    expect(fit("日本語のタイトル", 7)).toBe("日本語…");
    expect(cols(fit("日本語のタイトル", 7))).toBeLessThanOrEqual(7);
    expect(fit("🚀🚀🚀", 4)).toBe("🚀…");
    expect(pad("日本", 6)).toBe("日本  ");
    expect(cols(pad("日本語のタイトル", 9))).toBe(9);
    expect(cols(pad("👨‍👩‍👧 family and friends", 10))).toBe(10);
    // U+200D (zero-width joiner) is a format character: shown escaped, never raw (issue 15).
    expect(pad("👨‍👩‍👧 family and friends", 10).startsWith("👨\\u200d")).toBe(true);
  });

  test("wrap keeps every character in rows no wider than the width", () => {
    const text = "検証: 日本語の長い説明文がここに続きます。and some English words too";
    const rows = wrap(text, 12);
    expect(rows.join("")).toBe(text);
    for (const r of rows) expect(cols(r)).toBeLessThanOrEqual(12);
    expect(wrap("a\nb", 5, true)).toEqual(["a", "b"]);
    const detail = layoutDetail([{ label: "CHECK", value: "ｘ".repeat(15), wrap: true }], 10);
    expect(detail.map((d) => d.value).join("")).toBe("ｘ".repeat(15));
    expect(detail.every((d) => cols(d.value) <= 10)).toBe(true);
  });

  test("CJK and emoji gate titles line up on the Gates panel", async () => {
    const root = tempDir();
    writeTree(root, {
      "GATES.md":
        "# Gates\n\n- [ ] G1: 日本語のタイトルがとても長い場合でも揃う日本語のタイトルがとても長い\n  EVIDENCE: pending\n\n- [ ] G2: 🚀 launch rockets 🚀 and more rockets, and more rockets still\n  EVIDENCE: pending\n\n- [ ] G3: plain ascii title that is quite long indeed, yes, longer than that\n  EVIDENCE: pending\n",
    });
    const r = await renderAt(
      <App root={root} scope={null} theme={makeTheme({ NO_COLOR: "1" })} watch={false} />,
      89,
      20,
    );
    const lines = frame(r).split("\n");
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(89);
    const rows = lines.filter((l) => /GATES:G\d/.test(l) && /UNMET/.test(l));
    expect(rows.length).toBe(3);
    // Each title starts in the same column, and each cut row ends at the same column.
    const titleCol = (l: string) => stringWidth(l.slice(0, l.indexOf("GATES:G") + 8));
    expect(new Set(rows.map(titleCol)).size).toBe(1);
    expect(new Set(rows.map((l) => stringWidth(l.trimEnd()))).size).toBe(1);
  });
});
