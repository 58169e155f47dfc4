// The one key table: the handler, the footer and the help all read it.
import { describe, expect, test } from "bun:test";
import type { Key } from "ink";
import { KEYS, PANELS, footerHints, helpRows, keyName, lookup } from "../../src/tui/keys.ts";

const k = (over: Partial<Key> = {}): Key => ({
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false,
  ...over,
} as Key);

describe("key table", () => {
  test("Ink's keys have one name each", () => {
    expect(keyName("c", k({ ctrl: true }))).toBe("ctrl-c");
    expect(keyName("", k({ return: true }))).toBe("enter");
    expect(keyName("", k({ tab: true, shift: true }))).toBe("shift-tab");
    expect(keyName("", k({ pageDown: true }))).toBe("pgdn");
    expect(keyName("", k({ backspace: true }))).toBe("backspace");
    expect(keyName("j", k())).toBe("j");
  });

  test("the same key means what the panel or mode says; the most specific entry wins", () => {
    expect(lookup("enter", "list", "gates")?.command).toBe("open");
    expect(lookup("r", "list", "gates")?.command).toBe("run");
    expect(lookup("r", "list", "graph")).toBeNull();
    expect(lookup("o", "list", "queue")?.command).toBe("show-graph");
    expect(lookup("o", "list", "graph")?.command).toBe("leaf-gates");
    expect(lookup("enter", "detail", "gates")?.command).toBe("back");
    expect(lookup("r", "detail", "gates")?.command).toBe("run");
    expect(lookup("a", "detail", "approvals")?.command).toBe("approve");
    expect(lookup("enter", "pick", "gates")?.command).toBe("pick");
    expect(lookup("enter", "empty", "gates")?.command).toBe("demo");
  });

  test("while typing, letters are text: q, j and a do nothing but ctrl-c still quits", () => {
    for (const ch of ["q", "j", "a", "r", "/", "?"]) {
      expect(lookup(ch, "filter", "gates")).toBeNull();
      expect(lookup(ch, "prompt", "gates")).toBeNull();
    }
    expect(lookup("ctrl-c", "filter", "gates")?.command).toBe("quit");
    expect(lookup("enter", "filter", "gates")?.command).toBe("submit");
    expect(lookup("esc", "prompt", "gates")?.command).toBe("cancel");
  });

  test("every panel has quit, help, filter and unmet-only, and its footer names only keys that work there", () => {
    for (const p of PANELS) {
      for (const c of ["quit", "help", "filter", "unmet", "next-panel", "down"] as const) expect(KEYS.some((d) => d.command === c && lookup(d.keys[0]!, "list", p)?.command === c)).toBe(true);
      for (const hint of footerHints("list", p)) {
        const key = hint.split(" ")[0]!;
        expect(lookup(key === "S-tab" ? "shift-tab" : key, "list", p)).not.toBeNull();
      }
    }
    expect(footerHints("list", "gates").slice(0, 5)).toEqual(["enter detail", "r run", "p probe", "s sign", "/ filter"]);
    expect(footerHints("detail", "gates")).toContain("esc back");
  });

  test("the help lists every entry of the table, general keys first", () => {
    const rows = helpRows();
    for (const d of KEYS.filter((d) => !d.where.includes("filter") && !d.where.includes("prompt"))) expect(rows.some(([, what]) => what === d.help)).toBe(true);
    expect(rows.findIndex(([, w]) => w === "quit")).toBeLessThan(rows.findIndex(([, w]) => w.startsWith("Gates:")));
    // No key is bound twice in one place.
    for (const d of KEYS) for (const key of d.keys) for (const w of d.where) expect(KEYS.filter((o) => o.where.includes(w) && o.keys.includes(key)).length).toBe(1);
  });
});
