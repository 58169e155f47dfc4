import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import {
  aggregateDispatch,
  applyDispatch,
  DispatchActionError,
  DispatchStateError,
  emptyDispatch,
  parseDispatch,
  serializeDispatch,
  validateDispatch,
  type DispatchAction,
  type DispatchState,
} from "../../../src/core/dispatch/waves.ts";
import { dispatchStatus } from "../../../src/ops/snapshot.ts";
import { loadDispatch } from "../../../src/io/read.ts";
import { hashTree, REPO, tempDir, writeTree } from "../../helpers/kbz.ts";

const T0 = new Date("2026-12-02T08:40:46.546Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

function run(actions: DispatchAction[], state: DispatchState = emptyDispatch()): DispatchState {
  let s = state;
  actions.forEach((a, i) => (s = applyDispatch(s, a, at(i * 100)).state));
  return s;
}

const lifecycle: DispatchAction[] = [
  { kind: "open", wave: "w1", leaves: ["leaf-1", "leaf-2"] },
  { kind: "start", wave: "w1", leaf: "leaf-1", handle: "agent-a" },
  { kind: "start", wave: "w1", leaf: "leaf-2", handle: "agent-b" },
  { kind: "seal", wave: "w1" },
  { kind: "return", wave: "w1", leaf: "leaf-1" },
  { kind: "return", wave: "w1", leaf: "leaf-2" },
];

// The golden dispatch.json unlazy 2.1 wrote, byte for byte in field order (docs/formats.md#dispatch).
const GOLDEN = {
  schema: 1,
  waves: {
    w1: {
      leaves: ["leaf-1", "leaf-2"],
      state: "complete",
      openedAt: "2026-12-02T08:40:46.546Z",
      started: {
        "leaf-1": { handle: "agent-a", at: "2026-12-02T08:40:46.760Z" },
        "leaf-2": { handle: "agent-b", at: "2026-12-02T08:40:46.898Z" },
      },
      returned: { "leaf-1": { at: "2026-12-02T08:40:47.187Z" }, "leaf-2": { at: "2026-12-02T08:40:47.262Z" } },
      sealedAt: "2026-12-02T08:40:47.051Z",
      completedAt: "2026-12-02T08:40:47.262Z",
    },
    w2: {
      leaves: ["leaf-1"],
      state: "abandoned",
      openedAt: "2026-12-02T08:40:47.399Z",
      started: {},
      returned: {},
      reason: "host refused launch",
      abandonedAt: "2026-12-02T08:40:47.471Z",
    },
  },
};

function refusal(s: DispatchState, a: DispatchAction): string {
  try {
    applyDispatch(s, a, at(10_000));
  } catch (e) {
    expect(e).toBeInstanceOf(DispatchActionError);
    return (e as Error).message;
  }
  throw new Error("transition was accepted");
}

function invalid(raw: unknown): string {
  try {
    validateDispatch(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(DispatchStateError);
    return (e as Error).message;
  }
  throw new Error("state was accepted");
}

const clone = <T>(v: T): any => JSON.parse(JSON.stringify(v));

describe("dispatch.json format", () => {
  test("the golden unlazy dispatch.json loads and re-serialises to the same JSON", () => {
    const text = JSON.stringify(GOLDEN, null, 2) + "\n";
    expect(serializeDispatch(parseDispatch(text))).toBe(text);
  });

  test("unknown keys survive a rewrite but do not change the aggregate", () => {
    const raw = clone(GOLDEN);
    raw.waves.w1.note = "metadata only";
    raw.owner = "driver";
    const s = parseDispatch(JSON.stringify(raw));
    expect(JSON.parse(serializeDispatch(s))).toEqual(raw);
    expect(aggregateDispatch(s)).toEqual(aggregateDispatch(validateDispatch(GOLDEN)));
  });

  test("a full lifecycle produces the golden shape and states", () => {
    const s = run([
      ...lifecycle,
      { kind: "open", wave: "w2", leaves: ["leaf-1"] },
      { kind: "abandon", wave: "w2", reason: "host refused launch" },
    ]);
    const out = JSON.parse(serializeDispatch(s));
    expect(Object.keys(out.waves.w1)).toEqual(Object.keys(GOLDEN.waves.w1));
    expect(Object.keys(out.waves.w2)).toEqual(Object.keys(GOLDEN.waves.w2));
    expect(out.waves.w1.state).toBe("complete");
    expect(out.waves.w1.completedAt).toBe(out.waves.w1.returned["leaf-2"].at);
    expect(out.waves.w2.reason).toBe("host refused launch");
  });
});

describe("transitions", () => {
  test("the barrier: transcript lines for open, start, seal, return and complete", () => {
    const lines: string[] = [];
    let s = emptyDispatch();
    lifecycle.forEach((a, i) => {
      const t = applyDispatch(s, a, at(i));
      s = t.state;
      lines.push(t.line);
    });
    expect(lines).toEqual([
      "OPEN w1 (0/2 started, 0/2 returned)",
      "STARTED w1 leaf-1 (1/2 started)",
      "STARTED w1 leaf-2 (2/2 started)",
      "SEALED w1 (2/2 started)",
      "RETURNED w1 leaf-1 (1/2 returned)",
      "COMPLETE w1 (2/2 returned)",
    ]);
  });

  test("status log events use unlazy's wording", () => {
    const events: string[] = [];
    let s = emptyDispatch();
    for (const a of [
      ...lifecycle.slice(0, 5),
      { kind: "open", wave: "w2", leaves: ["x"] } as DispatchAction,
      { kind: "abandon", wave: "w2", reason: "no host" } as DispatchAction,
    ]) {
      const t = applyDispatch(s, a, T0);
      s = t.state;
      events.push(t.event);
    }
    expect(events).toEqual([
      "dispatch w1 opened: leaf-1, leaf-2",
      "dispatch w1 started leaf-1 as agent-a",
      "dispatch w1 started leaf-2 as agent-b",
      "dispatch w1 sealed",
      "dispatch w1 returned leaf-1",
      "dispatch w2 opened: x",
      "dispatch w2 abandoned: no host",
    ]);
  });

  test("return before seal and seal before all starts are refused", () => {
    const opened = run(lifecycle.slice(0, 1));
    expect(refusal(opened, { kind: "return", wave: "w1", leaf: "leaf-1" })).toBe(
      "return requires a sealed wave; w1 is open",
    );
    expect(refusal(opened, { kind: "seal", wave: "w1" })).toBe("cannot seal w1: missing starts for leaf-1, leaf-2");
  });

  test("duplicate leaves, re-open, unknown leaf, reused handle and double start are refused", () => {
    expect(refusal(emptyDispatch(), { kind: "open", wave: "w1", leaves: ["leaf-a", "leaf-a"] })).toBe(
      "duplicate leaf leaf-a",
    );
    const s = run([
      { kind: "open", wave: "w1", leaves: ["leaf-a", "leaf-b"] },
      { kind: "start", wave: "w1", leaf: "leaf-a", handle: "h1" },
    ]);
    expect(refusal(s, { kind: "open", wave: "w1", leaves: ["x"] })).toBe("wave w1 already exists");
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-c", handle: "h2" })).toBe(
      "unknown leaf leaf-c in wave w1",
    );
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-b", handle: "h1" })).toBe(
      "handle is already assigned to leaf-a",
    );
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-a", handle: "h3" })).toBe("leaf leaf-a already started");
  });

  test("handles and reasons must be printable, trimmed and bounded", () => {
    const s = run(lifecycle.slice(0, 1));
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-1", handle: "a\nb" })).toBe("handle must be printable");
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-1", handle: "x".repeat(257) })).toBe(
      "handle must be 1..256 characters",
    );
    expect(refusal(s, { kind: "abandon", wave: "w1", reason: "gone\u2028away" })).toBe("reason must be printable");
    expect(refusal(s, { kind: "abandon", wave: "w1", reason: "   " })).toBe("reason must be 1..500 characters");
  });

  test("abandon is terminal: a later start needs an open wave", () => {
    const s = run([...lifecycle.slice(0, 2), { kind: "abandon", wave: "w1", reason: "host refused launch" }]);
    expect(s.waves.get("w1")!.state).toBe("abandoned");
    expect(refusal(s, { kind: "start", wave: "w1", leaf: "leaf-2", handle: "agent-b" })).toBe(
      "start requires an open wave; w1 is abandoned",
    );
    expect(refusal(s, { kind: "abandon", wave: "w1", reason: "again" })).toBe(
      "w1 is abandoned; abandon requires an open or sealed wave",
    );
  });

  test("ids toString and constructor are ordinary wave and leaf ids", () => {
    const s = run([
      { kind: "open", wave: "toString", leaves: ["constructor", "toString"] },
      { kind: "start", wave: "toString", leaf: "constructor", handle: "h1" },
      { kind: "start", wave: "toString", leaf: "toString", handle: "h2" },
      { kind: "seal", wave: "toString" },
    ]);
    expect(aggregateDispatch(parseDispatch(serializeDispatch(s))).blocking).toEqual([
      "dispatch:toString sealed (0/2 returned)",
    ]);
    expect(refusal(emptyDispatch(), { kind: "start", wave: "constructor", leaf: "a", handle: "h" })).toBe(
      "unknown wave constructor",
    );
  });

  test("invalid wave and leaf ids are refused before anything is read", () => {
    expect(refusal(emptyDispatch(), { kind: "open", wave: "../w", leaves: ["a"] })).toContain("wave must match");
    expect(refusal(emptyDispatch(), { kind: "open", wave: "w", leaves: ["a/b"] })).toContain("leaf must match");
  });

  test("a clock stepping backwards never writes an out-of-order history", () => {
    let s = applyDispatch(emptyDispatch(), lifecycle[0]!, at(5000)).state;
    s = applyDispatch(s, lifecycle[1]!, at(0)).state;
    expect(s.waves.get("w1")!.started.get("leaf-1")!.at).toBe(at(5000).toISOString());
  });
});

describe("validation of persisted histories", () => {
  const base = () => clone(GOLDEN);

  test("wrong schema, non-object and truncated JSON are invalid", () => {
    expect(invalid({ ...base(), schema: 2 })).toBe("schema must be 1");
    expect(invalid([])).toBe("top level must be an object");
    expect(() => parseDispatch(JSON.stringify(GOLDEN).slice(0, 40))).toThrow(/not valid JSON/);
  });

  test("an object reason is rejected as 'reason must be a string'", () => {
    const raw = base();
    raw.waves.w2.reason = { text: "x" };
    expect(invalid(raw)).toContain("reason must be a string");
  });

  test("returns without a seal are rejected", () => {
    const raw = base();
    raw.waves.w1.state = "open";
    delete raw.waves.w1.sealedAt;
    delete raw.waves.w1.completedAt;
    expect(invalid(raw)).toContain("contains returns without being sealed");
  });

  test("complete without sealedAt or completedAt is rejected", () => {
    const a = base();
    delete a.waves.w1.sealedAt;
    expect(invalid(a)).toContain("sealedAt must be an ISO timestamp");
    const b = base();
    delete b.waves.w1.completedAt;
    expect(invalid(b)).toContain("completedAt must be an ISO timestamp");
  });

  test("unknown leaves, duplicate handles and duplicate declared leaves are rejected", () => {
    const a = base();
    a.waves.w1.started["leaf-9"] = { handle: "z", at: "2026-12-02T08:40:46.900Z" };
    expect(invalid(a)).toContain("started leaf leaf-9 is not declared");
    const b = base();
    b.waves.w1.started["leaf-2"].handle = "agent-a";
    expect(invalid(b)).toContain("handle agent-a is assigned to both leaf-1 and leaf-2");
    const c = base();
    c.waves.w1.leaves = ["leaf-1", "leaf-1"];
    expect(invalid(c)).toContain("duplicate leaf leaf-1");
    const d = base();
    d.waves.w1.returned["leaf-3"] = { at: "2026-12-02T08:40:47.262Z" };
    expect(invalid(d)).toContain("returned leaf leaf-3 is not declared");
  });

  test("out-of-order timestamps are rejected", () => {
    const a = base();
    a.waves.w1.started["leaf-1"].at = "2026-12-02T08:40:40.000Z";
    expect(invalid(a)).toContain("earlier than openedAt");
    const b = base();
    b.waves.w1.sealedAt = "2026-12-02T08:40:46.800Z";
    expect(invalid(b)).toContain("sealedAt is earlier than a start");
    const c = base();
    c.waves.w1.returned["leaf-1"].at = "2026-12-02T08:40:47.000Z";
    expect(invalid(c)).toContain("earlier than sealedAt");
    const d = base();
    d.waves.w1.completedAt = "2026-12-02T08:40:47.200Z";
    expect(invalid(d)).toContain("completedAt is earlier");
    const e = base();
    e.waves.w2.abandonedAt = "2026-12-02T08:40:47.000Z";
    expect(invalid(e)).toContain("abandonedAt is earlier");
    const f = base();
    f.waves.w1.openedAt = "yesterday";
    expect(invalid(f)).toContain("openedAt must be an ISO timestamp");
  });

  test("state-specific metadata is forbidden elsewhere", () => {
    const a = base();
    a.waves.w2.state = "open";
    expect(invalid(a)).toContain("must not carry abandonment metadata");
    const b = base();
    b.waves.w2.sealedAt = "2026-12-02T08:40:47.400Z";
    expect(invalid(b)).toContain("missing starts for leaf-1");
  });

  test("hostile leaf keys are escaped in the message", () => {
    const raw = base();
    raw.waves.w1.started["x\n\u0085\u202e"] = { handle: "h", at: "2026-12-02T08:40:46.900Z" };
    const msg = invalid(raw);
    expect(msg).toContain("\\x0a\\x85\\u202e");
    expect(msg).not.toMatch(/[\n\u0085\u202e]/);
  });
});

describe("aggregate", () => {
  test("open, sealed, complete and abandoned waves fold into resolved, blocking and abandoned", () => {
    const s = run([
      ...lifecycle,
      { kind: "open", wave: "w2", leaves: ["a", "b"] },
      { kind: "start", wave: "w2", leaf: "a", handle: "h" },
      { kind: "open", wave: "w3", leaves: ["a"] },
      { kind: "start", wave: "w3", leaf: "a", handle: "h" },
      { kind: "seal", wave: "w3" },
      { kind: "open", wave: "w0", leaves: ["a"] },
      { kind: "abandon", wave: "w0", reason: "private reason" },
    ]);
    expect(aggregateDispatch(s)).toEqual({
      resolved: [
        "dispatch:w0=abandoned;started=0/1;returned=0/1",
        "dispatch:w1=complete;started=2/2;returned=2/2",
        "dispatch:w2=open;started=1/2;returned=0/2",
        "dispatch:w3=sealed;started=1/1;returned=0/1",
      ],
      blocking: ["dispatch:w2 open (1/2 started)", "dispatch:w3 sealed (0/1 returned)"],
      abandoned: ["dispatch:w0"],
      error: null,
      // Started and not returned, in open and sealed waves: the workers a Stop may be waiting on.
      running: [
        { wave: "w2", leaf: "a", handle: "h" },
        { wave: "w3", leaf: "a", handle: "h" },
      ],
    });
  });

  test("no scope gives an empty aggregate", () => {
    expect(dispatchStatus("/nonexistent", null)).toEqual({ resolved: [], blocking: [], abandoned: [], error: null });
  });

  test("an absent dispatch.json is the empty state", () => {
    const root = tempDir();
    expect(dispatchStatus(root, "api")).toEqual({
      resolved: [],
      blocking: [],
      abandoned: [],
      error: null,
      running: [],
    });
  });

  test("an invalid state is a blocking PARSE item with a sanitised error", () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/api/dispatch.json": '{"schema":1,"waves":{"w1":{"leaves":["a\\u202e\\n"]' });
    const agg = dispatchStatus(root, "api");
    expect(agg.blocking).toEqual(["dispatch:PARSE invalid dispatch state"]);
    expect(agg.resolved).toEqual(["dispatch:PARSE=invalid"]);
    expect(agg.error).toContain("invalid dispatch state: not valid JSON");
    expect(agg.error!.length).toBeLessThanOrEqual(500);
  });
});

describe("loading dispatch.json safely", () => {
  const setup = () => {
    const root = tempDir();
    const outside = tempDir();
    writeTree(root, { ".unlazy/api/GATES.md": "- [ ] G1: x\n" });
    writeTree(outside, { "victim.json": JSON.stringify(GOLDEN) });
    return {
      root,
      outside,
      file: path.join(root, ".unlazy/api/dispatch.json"),
      victim: path.join(outside, "victim.json"),
    };
  };
  const loadError = (root: string): string => {
    try {
      loadDispatch(root, "api");
    } catch (e) {
      expect(e).toBeInstanceOf(DispatchStateError);
      return (e as Error).message;
    }
    throw new Error("loaded");
  };

  test("a symlinked dispatch.json is invalid, not followed", () => {
    const { root, file, victim } = setup();
    fs.symlinkSync(victim, file);
    expect(loadError(root)).toContain("regular single-link");
  });

  test("a dangling symlink is invalid, not treated as missing", () => {
    const { root, file } = setup();
    fs.symlinkSync(path.join(root, "nowhere.json"), file);
    expect(loadError(root)).toContain("regular single-link");
  });

  test("a hard-linked dispatch.json is invalid", () => {
    const { root, file, victim } = setup();
    fs.linkSync(victim, file);
    expect(loadError(root)).toContain("regular single-link");
  });

  test("a state over 8 MiB is rejected before parsing", () => {
    const { root, file } = setup();
    fs.writeFileSync(file, "{" + " ".repeat(8 * 1024 * 1024) + "}");
    expect(loadError(root)).toContain("exceeds 8388608 bytes");
  });

  test("a FIFO dispatch.json fails fast instead of blocking", () => {
    const { root, file } = setup();
    spawnSync("mkfifo", [file]);
    const t = Date.now();
    expect(loadError(root)).toContain("regular single-link");
    expect(Date.now() - t).toBeLessThan(10_000);
  });

  test("a validation error is located on the wave's line", () => {
    const { root, file } = setup();
    const raw = clone(GOLDEN);
    raw.waves.w2.reason = 7;
    fs.writeFileSync(file, JSON.stringify(raw, null, 2));
    try {
      loadDispatch(root, "api");
      throw new Error("loaded");
    } catch (e) {
      expect((e as DispatchStateError).line).toBe(
        JSON.stringify(raw, null, 2)
          .split("\n")
          .findIndex((l) => l.includes('"w2":')) + 1,
      );
    }
  });

  test("loading never changes a file", () => {
    const { root, file } = setup();
    fs.writeFileSync(file, "{garbage");
    const before = hashTree(root);
    dispatchStatus(root, "api");
    expect(hashTree(root)).toBe(before);
  });

  test("fixes unlazy bug: a reader racing committed transitions of another process sees old or new state, never a spurious invalid one", async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".unlazy/api"), { recursive: true });
    const writer = spawn(path.join(REPO, "node_modules/.bin/bun"), [
      "-e",
      `import { commitDispatch } from ${JSON.stringify(path.join(REPO, "src/io/dispatch/transition.ts"))};
       for (let i = 0; i < 60; i++) await commitDispatch(${JSON.stringify(root)}, "api", { kind: "open", wave: "w" + i, leaves: ["a"] });`,
    ]);
    let exited = false;
    const done = new Promise<void>((r) => writer.on("exit", () => ((exited = true), r())));
    let reads = 0;
    let last = 0;
    while (!exited) {
      const n = loadDispatch(root, "api").state.waves.size;
      expect(n).toBeGreaterThanOrEqual(last);
      last = n;
      reads++;
      await new Promise((r) => setTimeout(r, 1));
    }
    await done;
    expect(loadDispatch(root, "api").state.waves.size).toBe(60);
    expect(reads).toBeGreaterThan(0);
  }, 30_000);
});
