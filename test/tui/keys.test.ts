// The one key table: the handler, the footer and the help all read it.
import { describe, expect, test } from "bun:test";
import type { Key } from "ink";
import { KEYS, PANELS, fitHints, footerHints, helpRows, keyName, lookup } from "../../src/tui/keys.ts";

const k = (over: Partial<Key> = {}): Key =>
  ({
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...over,
  }) as Key;

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
    expect(lookup("r", "list", "gates", "runnable")?.command).toBe("run");
    expect(lookup("r", "list", "graph")).toBeNull();
    expect(lookup("o", "list", "queue", "queued")?.command).toBe("show-graph");
    expect(lookup("o", "list", "graph", "leaf")?.command).toBe("leaf-gates");
    expect(lookup("enter", "detail", "gates")?.command).toBe("back");
    expect(lookup("r", "detail", "gates", "runnable-met")?.command).toBe("run");
    expect(lookup("a", "detail", "approvals", "check")?.command).toBe("approve");
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

  test("keys that fit the item: a manual gate is offered s sign, never r run or p probe; a runnable one the reverse", () => {
    expect(lookup("s", "list", "gates", "manual")?.command).toBe("sign");
    expect(lookup("r", "list", "gates", "manual")).toBeNull();
    expect(lookup("p", "list", "gates", "manual")).toBeNull();
    expect(lookup("s", "list", "gates", "runnable")).toBeNull();
    expect(lookup("p", "list", "gates", "runnable")).toBeNull(); // only a met gate is probed
    expect(lookup("p", "list", "gates", "runnable-met")?.command).toBe("probe");
    const labels = (kind: Parameters<typeof footerHints>[2]) =>
      footerHints("list", "gates", kind).map((h) => `${h.key} ${h.label}`);
    expect(labels("manual")).toContain("s sign");
    expect(labels("manual")).not.toContain("r run");
    expect(labels("runnable")).toContain("r run");
    expect(labels("runnable")).not.toContain("s sign");
    // m's full view keeps no gate actions in its footer.
    expect(footerHints("message", "gates", "runnable").map((h) => h.label)).not.toContain("run");
  });

  test("every panel has quit, help, filter and unmet-only; `? help · q quit` end the footer and stay when it is narrow", () => {
    for (const p of PANELS) {
      for (const c of ["quit", "help", "filter", "unmet", "next-panel", "down"] as const)
        expect(KEYS.some((d) => d.command === c && lookup(d.keys[0]!, "list", p)?.command === c)).toBe(true);
      const hints = footerHints("list", p);
      expect(hints.slice(-2).map((h) => `${h.key} ${h.label}`)).toEqual(["? help", "q quit"]);
      for (const w of [15, 20, 40])
        expect(
          fitHints(hints, w)
            .slice(-2)
            .map((h) => h.key),
        ).toEqual(["?", "q"]);
    }
    expect(footerHints("detail", "gates").map((h) => `${h.key} ${h.label}`)).toContain("esc back");
    expect(footerHints("list", "gates", null, false).map((h) => h.key)).not.toContain("esc");
  });

  test("the grouped help: this panel's keys first (runnable from the help when they fit), then everywhere", () => {
    const rows = helpRows("gates", "manual");
    expect(rows[0]!.group).toBe("Gates");
    expect(rows.find((r) => r.keys === "s")!.run).toBe("s");
    expect(rows.find((r) => r.keys === "r")!.run).toBeNull();
    expect(rows.findIndex((r) => r.group === "everywhere")).toBeGreaterThan(rows.findIndex((r) => r.keys === "s"));
    expect(rows.some((r) => r.help === "quit")).toBe(true);
    // No key is bound twice in one place for the same kind of item.
    for (const d of KEYS)
      for (const key of d.keys)
        for (const w of d.where) {
          const same = KEYS.filter(
            (o) =>
              o.where.includes(w) &&
              o.keys.includes(key) &&
              (!o.kinds || !d.kinds || o.kinds.some((x) => d.kinds!.includes(x))),
          );
          expect(same.length, `${key} in ${w}`).toBe(1);
        }
  });
});
