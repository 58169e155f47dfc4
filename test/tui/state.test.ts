// The dashboard's screen state: the pure reducer, action by action.
import { describe, expect, test } from "bun:test";
import { initialState, modeOf, reduce, selectedIndex, type Action, type DashState } from "../../src/tui/state.ts";

// The views modeOf reads the kind of (ready is the default: no view read yet).
const VIEW_READY = null;
const VIEW_PICK = { kind: "pick" as const, root: "/r", scopes: ["a", "b"] };
const VIEW_EMPTY = { kind: "empty" as const, root: "/r" };

const run = (actions: Action[], s: DashState = initialState()) => actions.reduce(reduce, s);

describe("dashboard reducer", () => {
  test("selection follows the item's id when a row is inserted above it", () => {
    const s = run([{ type: "move", list: "gates", delta: 2, ids: ["a", "b", "c", "d"] }]);
    expect(selectedIndex(s, "gates", ["a", "b", "c", "d"])).toBe(2);
    // "x" appears above: the same gate "c" stays selected, now on row 3.
    expect(selectedIndex(s, "gates", ["x", "a", "b", "c", "d"])).toBe(3);
    const moved = reduce(s, { type: "move", list: "gates", delta: 1, ids: ["x", "a", "b", "c", "d"] });
    expect(moved.sel.gates).toEqual({ id: "d", index: 4 });
  });

  test("when the selected item goes away the selection stays near its row", () => {
    const s = run([{ type: "move", list: "gates", delta: 3, ids: ["a", "b", "c", "d"] }]);
    expect(selectedIndex(s, "gates", ["a", "b", "c"])).toBe(2);
    expect(selectedIndex(s, "gates", [])).toBe(0);
  });

  test("moves clamp to the list; ±Infinity goes to an end; the Log starts at its newest line", () => {
    const ids = ["a", "b", "c"];
    expect(run([{ type: "move", list: "queue", delta: -5, ids }]).sel.queue).toEqual({ id: "a", index: 0 });
    expect(run([{ type: "move", list: "queue", delta: Infinity, ids }]).sel.queue).toEqual({ id: "c", index: 2 });
    expect(
      run([
        { type: "move", list: "queue", delta: Infinity, ids },
        { type: "move", list: "queue", delta: -Infinity, ids },
      ]).sel.queue!.id,
    ).toBe("a");
    expect(selectedIndex(initialState(), "log", ids)).toBe(2);
    expect(selectedIndex(initialState(), "gates", ids)).toBe(0);
    expect(run([{ type: "move", list: "gates", delta: 1, ids: [] }])).toEqual(initialState());
  });

  test("panels cycle both ways and close a full view", () => {
    let s = run([
      { type: "overlay", overlay: "detail" },
      { type: "cycle", delta: 1 },
    ]);
    expect(s.panel).toBe("approvals");
    expect(s.overlay).toBeNull();
    s = run(
      [
        { type: "cycle", delta: -1 },
        { type: "cycle", delta: -1 },
        { type: "cycle", delta: -1 },
      ],
      s,
    );
    expect(s.panel).toBe("graph");
    s = run([{ type: "cycle", delta: -1 }], s);
    expect(s.panel).toBe("log");
  });

  test("a full view opens at its top", () => {
    const s = run([
      { type: "overlay", overlay: "detail" },
      { type: "move", list: "detail", delta: 5, ids: ["0", "1", "2", "3", "4", "5", "6"] },
      { type: "overlay", overlay: null },
      { type: "overlay", overlay: "detail" },
    ]);
    expect(s.sel.detail).toEqual({ id: null, index: 0 });
  });

  test("a filter is typed, erased, kept or cleared, per list", () => {
    let s = run([
      { type: "filter-start", list: "gates" },
      { type: "filter-type", text: "le" },
      { type: "filter-type", text: "af" },
      { type: "filter-erase" },
    ]);
    expect(s.filter.gates).toBe("lea");
    expect(modeOf({ ...s, view: VIEW_READY })).toBe("filter");
    s = reduce(s, { type: "filter-end", keep: true });
    expect(s.filter.gates).toBe("lea");
    expect(s.editing).toBeNull();
    expect(s.filter.graph).toBeUndefined();
    s = run(
      [
        { type: "filter-start", list: "gates" },
        { type: "filter-end", keep: false },
      ],
      s,
    );
    expect(s.filter.gates).toBe("");
    // Typing outside a filter changes nothing.
    expect(reduce(initialState(), { type: "filter-type", text: "x" })).toEqual(initialState());
  });

  test("evidence is typed for one gate and ends with the prompt", () => {
    let s = run([
      { type: "evidence-start", qid: "GATES:G3" },
      { type: "evidence-type", text: "read it 日本" },
      { type: "evidence-erase" },
    ]);
    expect(s.editing).toEqual({ kind: "evidence", qid: "GATES:G3", text: "read it 日" });
    expect(modeOf({ ...s, view: VIEW_READY })).toBe("prompt");
    s = reduce(s, { type: "evidence-end" });
    expect(s.editing).toBeNull();
  });

  test("a flash clears on the next key, or when its own timer fires (not an older one's)", () => {
    let s = run([{ type: "flash", text: "GATES:G1 failed: exit 1", tone: "bad" }]);
    expect(s.flash?.text).toBe("GATES:G1 failed: exit 1");
    expect(reduce(s, { type: "key" }).flash).toBeNull();
    const first = s.flash!.seq;
    s = reduce(s, { type: "flash", text: "second" });
    expect(reduce(s, { type: "flash-expire", seq: first }).flash?.text).toBe("second");
    s = reduce(s, { type: "flash-expire", seq: s.flash!.seq });
    expect(s.flash).toBeNull();
    // The message stays readable in full after the flash is gone.
    expect(s.lastMessage).toBe("second");
  });

  test("unmet-only toggles for every list; declines are remembered and undone", () => {
    expect(run([{ type: "unmet" }]).unmetOnly).toBe(true);
    expect(run([{ type: "unmet" }, { type: "unmet" }]).unmetOnly).toBe(false);
    const s = run([
      { type: "decline", key: "k1" },
      { type: "decline", key: "k1" },
      { type: "decline", key: "k2" },
    ]);
    expect(s.declined).toEqual(["k1", "k2"]);
    expect(reduce(s, { type: "undecline", key: "k1" }).declined).toEqual(["k2"]);
  });

  test("running checks are tracked until each finishes; busy off clears them", () => {
    let s = run([
      { type: "busy", busy: true },
      { type: "run-started", qid: "A", at: 1 },
      { type: "run-started", qid: "B", at: 2 },
      { type: "run-finished", qid: "A" },
    ]);
    expect(s.running).toEqual([{ qid: "B", startedAt: 2, output: "" }]);
    s = reduce(s, { type: "busy", busy: false });
    expect(s.running).toEqual([]);
    expect(s.busy).toBe(false);
  });

  test("the mode: text entry wins, then help, the picker, an empty folder, a full view, the list", () => {
    expect(modeOf({ ...initialState(), view: VIEW_READY })).toBe("list");
    expect(modeOf({ ...initialState(), view: VIEW_PICK })).toBe("pick");
    expect(modeOf({ ...initialState(), view: VIEW_EMPTY })).toBe("empty");
    expect(modeOf({ ...run([{ type: "overlay", overlay: "detail" }]), view: VIEW_READY })).toBe("detail");
    expect(modeOf({ ...run([{ type: "overlay", overlay: "help" }]), view: VIEW_PICK })).toBe("help");
    expect(
      modeOf({
        ...run([
          { type: "overlay", overlay: "pick" },
          { type: "filter-start", list: "pick" },
        ]),
        view: VIEW_READY,
      }),
    ).toBe("filter");
    // Choosing a scope starts its lists fresh.
    const s = run([
      { type: "overlay", overlay: "pick" },
      { type: "move", list: "gates", delta: 1, ids: ["a", "b"] },
      { type: "scope-chosen" },
    ]);
    expect(s.overlay).toBeNull();
    expect(s.sel).toEqual({});
  });

  test("esc goes back along a navigation stack: o and enter push, back pops to where they came from", () => {
    let s = run([{ type: "panel", panel: "graph" }]);
    s = reduce(s, { type: "push", panel: "gates", overlay: null, select: { list: "gates", id: "G1" } });
    expect(s.panel).toBe("gates");
    expect(s.sel.gates?.id).toBe("G1");
    s = reduce(s, { type: "push", panel: "gates", overlay: "detail" });
    expect(s.overlay).toBe("detail");
    s = reduce(s, { type: "back" });
    expect([s.panel, s.overlay]).toEqual(["gates", null]);
    s = reduce(s, { type: "back" });
    expect([s.panel, s.overlay]).toEqual(["graph", null]);
  });

  test("a new scope never moves an open view: one line names it", () => {
    const ready = (scopes: string[]) =>
      ({ kind: "ready", root: "/r", data: { scopes } }) as unknown as NonNullable<DashState["view"]>;
    let s = reduce(initialState("gates"), { type: "loaded", view: ready(["web"]) });
    s = reduce(s, { type: "loaded", view: ready(["api", "web"]) });
    expect(s.view?.kind).toBe("ready");
    expect(s.flash?.text).toBe("new scope api: S opens the scope picker (this view stays)");
    expect(s.panel).toBe("gates");
  });
});
