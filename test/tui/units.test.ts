import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { LedgerCache } from "../../src/tui/ledgerCache.ts";
import { moveSelection, scrollWindow } from "../../src/tui/scroll.ts";
import { isWatchedPath } from "../../src/tui/watch.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { fit } from "../../src/tui/text.ts";
import { layoutDetail } from "../../src/tui/Detail.tsx";
import { writeAtomic } from "../../src/io/fs.ts";
import { tempDir } from "../helpers/kbz.ts";

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

describe("watched paths", () => {
  const root = "/r";
  test("ledgers, gates/ and .unlazy/ are watched; temp files, lock mutexes and other folders are not", () => {
    for (const p of ["/r", "/r/GATES.md", "/r/gates", "/r/gates/a.md", "/r/.unlazy", "/r/.unlazy/s/PLAN.md", "/r/.unlazy/s/gates/leaf-1.md", "/r/.unlazy/locks/abc.lease"]) {
      expect(isWatchedPath(root, p)).toBe(true);
    }
    for (const p of ["/r/src", "/r/node_modules/x", "/r/.unlazy/s/gates/leaf-1.md.123.abc.tmp", "/r/.unlazy/locks/abc.filelock", "/elsewhere/GATES.md", "/r/gates/sub/deep.md"]) {
      expect(isWatchedPath(root, p)).toBe(false);
    }
  });
});

describe("ledger cache", () => {
  test("an unchanged file is not read again; a rename write and an in-place write of the same size are", () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    fs.writeFileSync(file, "- [ ] G1: one\n  EVIDENCE: pending\n");
    const cache = new LedgerCache();
    const a = cache.load(file, root, true);
    expect(cache.load(file, root, true)).toBe(a);
    writeAtomic(file, "- [x] G1: one\n  EVIDENCE: reviewed\n");
    const b = cache.load(file, root, true);
    expect(b).not.toBe(a);
    expect(b.ledger!.gates[0]!.checked).toBe(true);
    const st = fs.statSync(file);
    fs.writeFileSync(file, "- [x] G1: two\n  EVIDENCE: reviewed\n");
    fs.utimesSync(file, st.atime, st.mtime);
    const c = cache.load(file, root, true);
    expect(c.ledger!.gates[0]!.title).toBe("two");
  });
  test("an unreadable file is never cached", () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    fs.writeFileSync(file, Buffer.from([0x41, 0xff]));
    const cache = new LedgerCache();
    expect(cache.load(file, root, true).unreadable).toBe(true);
    fs.writeFileSync(file, "- [ ] G1: ok\n  EVIDENCE: pending\n");
    expect(cache.load(file, root, true).unreadable).toBe(false);
  });
});

describe("theme and text", () => {
  test("NO_COLOR drops every colour; without it tones have colours", () => {
    const plain = makeTheme({ NO_COLOR: "1" });
    expect(plain.color).toBe(false);
    for (const t of ["ok", "bad", "warn", "info", "active", "muted", "accent"] as const) expect(plain.tone(t)).toBeUndefined();
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
