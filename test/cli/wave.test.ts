import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { dispatchPath } from "../../src/core/dispatch/waves.ts";
import { lockPath } from "../../src/io/lock.ts";
import { BIN, fixtureCopy, hashTree, kbz, REPO, tempDir, writeTree, type RunResult } from "../helpers/kbz.ts";

function pipe(): { dir: string; w: (...args: string[]) => RunResult; file: string } {
  const dir = fixtureCopy("pipe");
  return { dir, w: (...args: string[]) => kbz(["wave", ...args], { cwd: dir }), file: dispatchPath(dir, "api") };
}

const ok = (stdout: string): RunResult => ({ code: 0, stdout, stderr: "" });

function expectRefused(dir: string, args: string[], message: string): RunResult {
  const before = hashTree(dir);
  const r = kbz(args, { cwd: dir, timeoutMs: 10_000 });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain(message);
  expect(hashTree(dir)).toBe(before);
  return r;
}

const S = ["--scope", "api"];

describe("golden transcript C2: dispatch waves", () => {
  test("the barrier, the scoped status while open, completion, abandon and the handoff verdict", () => {
    const { dir, w, file } = pipe();
    expect(w("open", ...S, "--wave", "w1", "--leaf", "leaf-1", "--leaf", "leaf-2")).toEqual(
      ok("OPEN w1 (0/2 started, 0/2 returned)\n"),
    );
    expect(w("return", ...S, "--wave", "w1", "--leaf", "leaf-1")).toEqual({
      code: 2,
      stdout: "",
      stderr: "kbz: return requires a sealed wave; w1 is open\n  hint: kbz wave list shows each wave's state\n",
    });
    expect(w("seal", ...S, "--wave", "w1")).toEqual({
      code: 2,
      stdout: "",
      stderr: "kbz: cannot seal w1: missing starts for leaf-1, leaf-2\n  hint: kbz wave list shows each wave's state\n",
    });
    expect(w("start", ...S, "--wave", "w1", "--leaf", "leaf-1", "--handle", "agent-a")).toEqual(
      ok("STARTED w1 leaf-1 (1/2 started)\n"),
    );
    expect(w("start", ...S, "--wave", "w1", "--leaf", "leaf-2", "--handle", "agent-a")).toEqual({
      code: 2,
      stdout: "",
      stderr: "kbz: handle is already assigned to leaf-1\n  hint: kbz wave list shows each wave's state\n",
    });
    expect(w("start", ...S, "--wave", "w1", "--leaf", "leaf-2", "--handle", "agent-b")).toEqual(
      ok("STARTED w1 leaf-2 (2/2 started)\n"),
    );
    const open = kbz(["status", "--scope", "api"], { cwd: dir });
    expect(open.code).toBe(1);
    expect(open.stdout).toContain("  UNMET       dispatch:w1 open (2/2 started)\n");
    expect(open.stdout).toEndWith("UNMET: 3 (met: 0) [scope api]\n");
    expect(JSON.parse(kbz(["status", "--scope", "api", "--json"], { cwd: dir }).stdout).unmet).toEqual([
      "leaf-1:G1",
      "leaf-2:G1",
      "dispatch:w1 open (2/2 started)",
    ]);
    expect(w("seal", ...S, "--wave", "w1")).toEqual(ok("SEALED w1 (2/2 started)\n"));
    expect(w("status", ...S, "--wave", "w1")).toEqual({
      code: 1,
      stdout: "SEALED w1 (2/2 started, 0/2 returned)\n",
      stderr: "",
    });
    expect(w("return", ...S, "--wave", "w1", "--leaf", "leaf-1")).toEqual(ok("RETURNED w1 leaf-1 (1/2 returned)\n"));
    expect(w("return", ...S, "--wave", "w1", "--leaf", "leaf-2")).toEqual(ok("COMPLETE w1 (2/2 returned)\n"));
    expect(w("status", ...S, "--wave", "w1")).toEqual(ok("COMPLETE w1 (2/2 returned)\n"));
    expect(w("open", ...S, "--wave", "w2", "--leaf", "leaf-1")).toEqual(ok("OPEN w2 (0/1 started, 0/1 returned)\n"));
    expect(w("abandon", ...S, "--wave", "w2", "--reason", "host refused launch")).toEqual(
      ok("ABANDONED w2 (0/1 started, 0/1 returned): host refused launch\n"),
    );
    expect(w("status", ...S, "--wave", "w2")).toEqual({
      code: 1,
      stdout: "ABANDONED w2 (0/1 started, 0/1 returned): host refused launch\n",
      stderr: "",
    });
    const handoff = kbz(["status", "--scope", "api"], { cwd: dir });
    expect(handoff.code).toBe(1);
    expect(handoff.stdout).toEndWith(
      "HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 2) [scope api]\nUNMET: 2 (met: 0, abandoned: 1) [scope api]\n",
    );
    expect(JSON.parse(kbz(["status", "--scope", "api", "--json"], { cwd: dir }).stdout).abandoned).toEqual([
      "dispatch:w2",
    ]);

    const state = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(Object.keys(state)).toEqual(["schema", "waves"]);
    expect(Object.keys(state.waves.w1)).toEqual([
      "leaves",
      "state",
      "openedAt",
      "started",
      "returned",
      "sealedAt",
      "completedAt",
    ]);
    expect(Object.keys(state.waves.w2)).toEqual([
      "leaves",
      "state",
      "openedAt",
      "started",
      "returned",
      "reason",
      "abandonedAt",
    ]);
    expect(state.waves.w1.started).toMatchObject({ "leaf-1": { handle: "agent-a" }, "leaf-2": { handle: "agent-b" } });
    const log = fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8").trimEnd().split("\n");
    expect(log.map((l) => l.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, ""))).toEqual([
      "dispatch w1 opened: leaf-1, leaf-2",
      "dispatch w1 started leaf-1 as agent-a",
      "dispatch w1 started leaf-2 as agent-b",
      "dispatch w1 sealed",
      "dispatch w1 returned leaf-1",
      "dispatch w1 returned leaf-2",
      "dispatch w2 opened: leaf-1",
      "dispatch w2 abandoned: host refused launch",
    ]);
    expect(w("list", ...S)).toEqual(
      ok("COMPLETE w1 (2/2 returned)\nABANDONED w2 (0/1 started, 0/1 returned): host refused launch\n"),
    );
  });

  test("an existing unlazy dispatch.json is read and extended unchanged", () => {
    const { dir, w, file } = pipe();
    const golden = {
      schema: 1,
      waves: {
        w3: {
          leaves: ["leaf-2.2", "leaf-2.3"],
          state: "sealed",
          openedAt: "2026-09-23T10:00:00.000Z",
          started: {
            "leaf-2.2": { handle: "agent-7f3", at: "2026-09-23T10:00:01.000Z" },
            "leaf-2.3": { handle: "agent-7f4", at: "2026-09-23T10:00:02.000Z" },
          },
          returned: { "leaf-2.3": { at: "2026-09-23T10:07:00.000Z" } },
          sealedAt: "2026-09-23T10:00:03.000Z",
        },
      },
    };
    writeTree(dir, { ".unlazy/api/dispatch.json": JSON.stringify(golden, null, 2) + "\n" });
    expect(w("status", ...S, "--wave", "w3")).toEqual({
      code: 1,
      stdout: "SEALED w3 (2/2 started, 1/2 returned)\n",
      stderr: "",
    });
    expect(kbz(["status", "--scope", "api"], { cwd: dir }).stdout).toContain("dispatch:w3 sealed (1/2 returned)");
    expect(w("return", ...S, "--wave", "w3", "--leaf", "leaf-2.2")).toEqual(ok("COMPLETE w3 (2/2 returned)\n"));
    const after = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(after.waves.w3.returned["leaf-2.3"]).toEqual(golden.waves.w3.returned["leaf-2.3"]);
    expect(after.waves.w3.state).toBe("complete");
  });

  test("every action prints one JSON object with schema 1 under --json", () => {
    const { w } = pipe();
    const opened = JSON.parse(w("open", ...S, "--wave", "w1", "--leaf", "a", "--json").stdout);
    expect(opened).toMatchObject({
      schema: 1,
      action: "open",
      exit: 0,
      scope: "api",
      line: "OPEN w1 (0/1 started, 0/1 returned)",
      wave: { id: "w1", state: "open", leaves: ["a"] },
    });
    const status = w("status", ...S, "--wave", "w1", "--json");
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({
      schema: 1,
      action: "status",
      exit: 1,
      wave: { counts: { leaves: 1, started: 0, returned: 0 } },
    });
    expect(JSON.parse(w("list", ...S, "--json").stdout)).toMatchObject({
      schema: 1,
      action: "list",
      waves: [{ id: "w1" }],
    });
    const refused = w("seal", ...S, "--wave", "w1", "--json");
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      schema: 1,
      exit: 2,
      errors: [{ message: "cannot seal w1: missing starts for a" }],
    });
  });
});

describe("dispatch-tests inventory (unlazy §8.3)", () => {
  test("a hostile action or option name is shown escaped, bounded, and help exits 0", () => {
    const r = kbz(["wave", "\u001b\u0085\u2028\u2029\u202e", "--scope", "api"], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("\\x1b\\x85\\u2028\\u2029\\u202e");
    expect(r.stderr + r.stdout).not.toMatch(/[\u001b\u0085\u2028\u2029\u202e]/);
    expect(Buffer.byteLength(r.stderr + r.stdout)).toBeLessThan(2048);
    const opt = kbz(["wave", "status", "--\u001b\u202ebad", "x"], { cwd: tempDir() });
    expect(opt.code).toBe(2);
    expect(opt.stderr).not.toMatch(/[\u001b\u202e]/);
    const help = kbz(["wave", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.split("\n").length).toBeGreaterThan(6);
    // Each action's own page carries its whole usage line (issue 43).
    expect(kbz(["wave", "start", "--help"]).stdout).toContain("kbz wave start --scope S --wave W --leaf L --handle H");
  });

  test("an abandon reason with U+2028 is refused and the wave stays open", () => {
    const { dir, w } = pipe();
    w("open", ...S, "--wave", "w1", "--leaf", "a");
    const r = expectRefused(
      dir,
      ["wave", "abandon", ...S, "--wave", "w1", "--reason", "gone\u2028away"],
      "reason must be printable",
    );
    expect(r.stderr).not.toContain("\u2028");
    expect(w("status", ...S, "--wave", "w1").stdout).toBe("OPEN w1 (0/1 started, 0/1 returned)\n");
  });

  test("duplicate leaves in open and re-opening a wave are refused", () => {
    const { dir, w } = pipe();
    expectRefused(
      dir,
      ["wave", "open", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-a"],
      "duplicate leaf leaf-a",
    );
    w("open", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-b");
    expectRefused(dir, ["wave", "open", ...S, "--wave", "ready-1", "--leaf", "leaf-x"], "wave ready-1 already exists");
  });

  test("unknown leaf, reused handle and a second start are refused", () => {
    const { dir, w } = pipe();
    w("open", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-b");
    w("start", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--handle", "h1");
    expectRefused(
      dir,
      ["wave", "start", ...S, "--wave", "ready-1", "--leaf", "leaf-c", "--handle", "h2"],
      "unknown leaf leaf-c",
    );
    expectRefused(
      dir,
      ["wave", "start", ...S, "--wave", "ready-1", "--leaf", "leaf-b", "--handle", "h1"],
      "handle is already assigned to leaf-a",
    );
    expectRefused(
      dir,
      ["wave", "start", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--handle", "h3"],
      "leaf leaf-a already started",
    );
  });

  test("four concurrent starts all persist and the seal succeeds", async () => {
    const { dir, w } = pipe();
    const leaves = ["l1", "l2", "l3", "l4"];
    w("open", ...S, "--wave", "w1", ...leaves.flatMap((l) => ["--leaf", l]));
    const codes = await Promise.all(
      leaves.map(
        (l) =>
          new Promise<number>((resolve) => {
            const p = spawn(BIN, ["wave", "start", ...S, "--wave", "w1", "--leaf", l, "--handle", `agent-${l}`], {
              cwd: dir,
              stdio: "ignore",
            });
            p.on("exit", (c) => resolve(c ?? -1));
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(w("seal", ...S, "--wave", "w1")).toEqual(ok("SEALED w1 (4/4 started)\n"));
  });

  test("two racing opens of the same wave: exactly one wins, 10 tries out of 10", async () => {
    const { dir, w } = pipe();
    const open = (wave: string, leaf: string) =>
      new Promise<number>((resolve) => {
        const p = spawn(BIN, ["wave", "open", ...S, "--wave", wave, "--leaf", leaf], { cwd: dir, stdio: "ignore" });
        p.on("exit", (c) => resolve(c ?? -1));
      });
    for (let i = 0; i < 10; i++) {
      const codes = await Promise.all([open(`race-${i}`, "a"), open(`race-${i}`, "b")]);
      expect(codes.sort()).toEqual([0, 2]);
    }
    expect(
      w("list", ...S)
        .stdout.trimEnd()
        .split("\n"),
    ).toHaveLength(10);
  }, 60_000);

  test("an invalid scope, an unprintable handle and garbage JSON are refused", () => {
    const { dir, w } = pipe();
    expectRefused(dir, ["wave", "open", "--scope", "../api", "--wave", "w1", "--leaf", "a"], "scope must match");
    w("open", ...S, "--wave", "w1", "--leaf", "a");
    expectRefused(
      dir,
      ["wave", "start", ...S, "--wave", "w1", "--leaf", "a", "--handle", "h\nx"],
      "handle must be printable",
    );
    fs.writeFileSync(dispatchPath(dir, "api"), "garbage{");
    expectRefused(dir, ["wave", "status", ...S, "--wave", "w1"], "invalid dispatch state");
  });

  const unsafe: [string, (file: string, victim: string) => void][] = [
    ["a symlinked", (file, victim) => fs.symlinkSync(victim, file)],
    ["a dangling symlinked", (file) => fs.symlinkSync(file + ".missing", file)],
    ["a hard-linked", (file, victim) => fs.linkSync(victim, file)],
    ["a FIFO", (file) => spawnSync("mkfifo", [file])],
  ];
  for (const [what, make] of unsafe) {
    test(`${what} dispatch.json is invalid state for status, transitions and kbz status, promptly, victim untouched`, () => {
      const { dir, file } = pipe();
      const outside = tempDir();
      const victim = path.join(outside, "victim.json");
      fs.writeFileSync(victim, JSON.stringify({ schema: 1, waves: {} }));
      make(file, victim);
      const victimHash = hashTree(outside);
      const t = Date.now();
      expectRefused(dir, ["wave", "status", ...S, "--wave", "w1"], "invalid dispatch state");
      expectRefused(dir, ["wave", "open", ...S, "--wave", "w1", "--leaf", "a"], "invalid dispatch state");
      expectRefused(dir, ["status", "--scope", "api"], "invalid dispatch state for scope api");
      expect(Date.now() - t).toBeLessThan(10_000);
      expect(hashTree(outside)).toBe(victimHash);
    });
  }

  test("a state over 8 MiB is rejected before parsing", () => {
    const { dir, file } = pipe();
    fs.writeFileSync(file, "{" + " ".repeat(8 * 1024 * 1024 + 1) + "}");
    expectRefused(dir, ["wave", "list", ...S], "exceeds 8388608 bytes");
  });

  const histories: [string, (w: any) => void, string][] = [
    ["an object reason", (d) => (d.waves.w2.reason = { text: "x" }), "reason must be a string"],
    [
      "returns without a seal",
      (d) => (Object.assign(d.waves.w1, { state: "open" }), delete d.waves.w1.sealedAt, delete d.waves.w1.completedAt),
      "contains returns without being sealed",
    ],
    ["complete without sealedAt", (d) => delete d.waves.w1.sealedAt, "sealedAt must be an ISO timestamp"],
    ["complete without completedAt", (d) => delete d.waves.w1.completedAt, "completedAt must be an ISO timestamp"],
    [
      "an unknown leaf",
      (d) => (d.waves.w1.returned["leaf-9"] = { at: "2026-12-02T08:40:47.262Z" }),
      "returned leaf leaf-9 is not declared",
    ],
    [
      "duplicate handles",
      (d) => (d.waves.w1.started["leaf-2"].handle = "agent-a"),
      "handle agent-a is assigned to both leaf-1 and leaf-2",
    ],
    [
      "out-of-order timestamps",
      (d) => (d.waves.w1.sealedAt = "2026-12-02T08:40:46.000Z"),
      "sealedAt is earlier than a start",
    ],
    ["the wrong schema", (d) => (d.schema = 2), "schema must be 1"],
  ];
  for (const [what, edit, message] of histories) {
    test(`an impossible persisted history (${what}) is rejected by every command and changes nothing`, () => {
      const { dir, w, file } = pipe();
      w("open", ...S, "--wave", "w1", "--leaf", "leaf-1", "--leaf", "leaf-2");
      w("start", ...S, "--wave", "w1", "--leaf", "leaf-1", "--handle", "agent-a");
      w("start", ...S, "--wave", "w1", "--leaf", "leaf-2", "--handle", "agent-b");
      w("seal", ...S, "--wave", "w1");
      w("return", ...S, "--wave", "w1", "--leaf", "leaf-1");
      w("return", ...S, "--wave", "w1", "--leaf", "leaf-2");
      w("open", ...S, "--wave", "w2", "--leaf", "leaf-1");
      w("abandon", ...S, "--wave", "w2", "--reason", "r");
      const d = JSON.parse(fs.readFileSync(file, "utf8"));
      edit(d);
      fs.writeFileSync(file, JSON.stringify(d, null, 2));
      expectRefused(dir, ["wave", "status", ...S, "--wave", "w1"], message);
      expectRefused(dir, ["wave", "open", ...S, "--wave", "w9", "--leaf", "x"], message);
      expectRefused(dir, ["status", "--scope", "api"], message);
    });
  }

  test("truncated JSON is reported with the file and exits 2 for status", () => {
    const { dir, file } = pipe();
    fs.writeFileSync(file, '{"schema": 1, "waves": {"w1": {"leaves": ["a"]');
    const r = expectRefused(
      dir,
      ["status", "--scope", "api"],
      ".unlazy/api/dispatch.json:1: invalid dispatch state for scope api: not valid JSON",
    );
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("an invalid wave is located on its line in dispatch.json by kbz status", () => {
    const { dir, w, file } = pipe();
    w("open", ...S, "--wave", "w1", "--leaf", "a");
    w("open", ...S, "--wave", "w2", "--leaf", "b");
    const d = JSON.parse(fs.readFileSync(file, "utf8"));
    d.waves.w2.state = "sealed";
    const text = JSON.stringify(d, null, 2);
    fs.writeFileSync(file, text);
    const line = text.split("\n").findIndex((l) => l.includes('"w2":')) + 1;
    expect(line).toBeGreaterThan(1);
    expectRefused(
      dir,
      ["status", "--scope", "api"],
      `.unlazy/api/dispatch.json:${line}: invalid dispatch state for scope api: wave w2: sealedAt must be an ISO timestamp`,
    );
  });

  test("ids toString and constructor work for open, start and seal", () => {
    const { w } = pipe();
    expect(w("open", ...S, "--wave", "toString", "--leaf", "constructor").code).toBe(0);
    expect(w("start", ...S, "--wave", "toString", "--leaf", "constructor", "--handle", "h").code).toBe(0);
    expect(w("seal", ...S, "--wave", "toString")).toEqual(ok("SEALED toString (1/1 started)\n"));
    expect(w("status", ...S, "--wave", "constructor").stderr).toContain("unknown wave constructor");
  });

  test("abandon after a partial launch is terminal and reported as a handoff", () => {
    const { dir, w, file } = pipe();
    w("open", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-b");
    w("start", ...S, "--wave", "ready-1", "--leaf", "leaf-a", "--handle", "h1");
    expect(w("abandon", ...S, "--wave", "ready-1", "--reason", "host crashed")).toEqual(
      ok("ABANDONED ready-1 (1/2 started, 0/2 returned): host crashed\n"),
    );
    expect(JSON.parse(fs.readFileSync(file, "utf8")).waves["ready-1"]).toMatchObject({
      state: "abandoned",
      reason: "host crashed",
    });
    expect(w("status", ...S, "--wave", "ready-1").code).toBe(1);
    expectRefused(
      dir,
      ["wave", "start", ...S, "--wave", "ready-1", "--leaf", "leaf-b", "--handle", "h2"],
      "start requires an open wave",
    );
    const st = kbz(["status", "--scope", "api"], { cwd: dir });
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("HANDOFF REQUIRED");
    expect(st.stdout).toContain("dispatch:ready-1");
    expect(st.stdout).not.toContain("ALL MET");
    expect(st.stdout).not.toContain("host crashed");
    w("open", ...S, "--wave", "ready-2", "--leaf", "leaf-a");
    const both = kbz(["status", "--scope", "api"], { cwd: dir });
    expect(both.stdout).toContain("dispatch:ready-2 open");
    expect(both.stdout).toContain("UNMET:");
  });

  test("an open wave blocks an otherwise complete scope until its lifecycle ends", () => {
    const { dir, w } = pipe();
    const web = ["--scope", "web"];
    expect(kbz(["status", "--scope", "web"], { cwd: dir }).code).toBe(0);
    w("open", ...web, "--wave", "ready-1", "--leaf", "leaf-1");
    const blocked = kbz(["status", "--scope", "web"], { cwd: dir });
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toContain("UNMET: 1 (met: 1) [scope web]");
    w("start", ...web, "--wave", "ready-1", "--leaf", "leaf-1", "--handle", "h");
    w("seal", ...web, "--wave", "ready-1");
    expect(kbz(["status", "--scope", "web"], { cwd: dir }).stdout).toContain("dispatch:ready-1 sealed (0/1 returned)");
    w("return", ...web, "--wave", "ready-1", "--leaf", "leaf-1");
    expect(kbz(["status", "--scope", "web"], { cwd: dir })).toEqual(ok("ALL MET (1 met) [scope web]\n"));
    expect(kbz(["status", "--scope", "web", "--all"], { cwd: dir })).toEqual(
      ok(".unlazy/web/gates/leaf-1.md: 1 gate\n  MET         leaf-1:G1: web outcome\nALL MET (1 met) [scope web]\n"),
    );
  });

  for (const [kind, make] of [
    ["symlinked", (log: string, victim: string) => fs.symlinkSync(victim, log)],
    ["hard-linked", (log: string, victim: string) => fs.linkSync(victim, log)],
  ] as const) {
    test(`a ${kind} status.log: every transition commits with a bounded warning, the victim is untouched`, () => {
      const { dir, w, file } = pipe();
      const outside = tempDir();
      writeTree(outside, { victim: "victim\n" });
      make(path.join(dir, ".unlazy/api/status.log"), path.join(outside, "victim"));
      const steps: string[][] = [
        ["open", "--wave", "ready-1", "--leaf", "a", "--leaf", "b"],
        ["start", "--wave", "ready-1", "--leaf", "a", "--handle", "h1"],
        ["start", "--wave", "ready-1", "--leaf", "b", "--handle", "h2"],
        ["seal", "--wave", "ready-1"],
        ["return", "--wave", "ready-1", "--leaf", "a"],
        ["return", "--wave", "ready-1", "--leaf", "b"],
        ["open", "--wave", "ready-2", "--leaf", "a"],
        ["abandon", "--wave", "ready-2", "--reason", "gone"],
      ];
      for (const [action, ...rest] of steps) {
        const r = w(action!, ...S, ...rest);
        expect(r.code).toBe(0);
        expect(r.stderr).toContain("kbz: warning: state transition committed; audit status append was skipped:");
        expect(r.stderr.length).toBeLessThanOrEqual(650);
        expect(r.stderr).not.toMatch(/retry/i);
        expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
      }
      const state = JSON.parse(fs.readFileSync(file, "utf8"));
      expect(state.waves["ready-1"].state).toBe("complete");
      expect(state.waves["ready-2"]).toMatchObject({ state: "abandoned", reason: "gone" });
      const bad = expectRefused(
        dir,
        ["wave", "start", ...S, "--wave", "ready-2", "--leaf", "a", "--handle", "h3"],
        "start requires an open wave",
      );
      expect(bad.stderr).not.toContain("committed");
      expect(fs.readFileSync(path.join(outside, "victim"), "utf8")).toBe("victim\n");
    });
  }

  test("a hostile, very long root plus a hard-linked status.log: the warning is sanitised and bounded, the state committed", () => {
    const base = tempDir();
    const root = path.join(base, "\u001b[31mred\nline\u202e" + "x".repeat(150), "y".repeat(200));
    fs.mkdirSync(path.join(root, ".unlazy/api"), { recursive: true });
    const outside = tempDir();
    writeTree(outside, { victim: "victim\n" });
    fs.linkSync(path.join(outside, "victim"), path.join(root, ".unlazy/api/status.log"));
    const r = kbz(["wave", "open", ...S, "--wave", "w1", "--leaf", "a"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("OPEN w1 (0/1 started, 0/1 returned)\n");
    expect(r.stderr).toContain("state transition committed; audit status append was skipped:");
    expect(r.stderr.length).toBeLessThanOrEqual(650);
    expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(fs.readFileSync(path.join(root, ".unlazy/api/dispatch.json"), "utf8")).waves.w1.state).toBe(
      "open",
    );
    expect(fs.readFileSync(path.join(outside, "victim"), "utf8")).toBe("victim\n");
  });

  test("two real workers launched and started before the seal run at the same time, then complete the wave", async () => {
    const { dir, w } = pipe();
    w("open", ...S, "--wave", "ready-1", "--leaf", "leaf-1", "--leaf", "leaf-2");
    // Each worker runs until the driver lets it go, so both being alive after the seal is the overlap.
    const go = path.join(dir, "go");
    const workers = [0, 1].map(() => spawn("sh", ["-c", 'while [ ! -e "$1" ]; do sleep 0.05; done', "sh", go]));
    const exited = workers.map((p) => new Promise<void>((r) => p.on("exit", () => r())));
    for (const [i, p] of workers.entries())
      expect(w("start", ...S, "--wave", "ready-1", "--leaf", `leaf-${i + 1}`, "--handle", `pid-${p.pid}`).code).toBe(0);
    expect(w("seal", ...S, "--wave", "ready-1").code).toBe(0);
    expect(workers.map((p) => p.exitCode)).toEqual([null, null]);
    fs.writeFileSync(go, "");
    await Promise.all(exited);
    w("return", ...S, "--wave", "ready-1", "--leaf", "leaf-2");
    expect(w("return", ...S, "--wave", "ready-1", "--leaf", "leaf-1")).toEqual(ok("COMPLETE ready-1 (2/2 returned)\n"));
    expect(w("status", ...S, "--wave", "ready-1")).toEqual(ok("COMPLETE ready-1 (2/2 returned)\n"));
  });
});

describe("argument rules", () => {
  const cases: [string, string[], string][] = [
    ["open without a leaf", ["open", ...S, "--wave", "w"], "wave open needs at least one --leaf"],
    ["start without a handle", ["start", ...S, "--wave", "w", "--leaf", "a"], "--handle is required"],
    [
      "start with two leaves",
      ["start", ...S, "--wave", "w", "--leaf", "a", "--leaf", "b", "--handle", "h"],
      "wave start needs exactly one --leaf",
    ],
    ["seal with a leaf", ["seal", ...S, "--wave", "w", "--leaf", "a"], "--leaf does not apply to wave seal"],
    ["abandon without a reason", ["abandon", ...S, "--wave", "w"], "--reason needs non-blank text"],
    [
      "return with a reason",
      ["return", ...S, "--wave", "w", "--leaf", "a", "--reason", "r"],
      "--reason does not apply to wave return",
    ],
    ["status without a wave", ["status", ...S], "--wave is required"],
    ["any action without a scope among two", ["list"], "wave list needs --scope: 2 scopes exist (api, web)"],
    ["a wave id with a slash", ["open", ...S, "--wave", "a/b", "--leaf", "x"], "wave must match"],
    ["a leaf id of 65 characters", ["open", ...S, "--wave", "w", "--leaf", "x".repeat(65)], "leaf must match"],
  ];
  for (const [what, args, message] of cases) {
    test(`${what} is a usage error that changes nothing`, () => {
      expectRefused(fixtureCopy("pipe"), ["wave", ...args], message);
    });
  }

  test("the first open creates the scope directory and dispatch.json without needing a ledger", () => {
    const dir = tempDir();
    expect(kbz(["wave", "open", "--scope", "new", "--wave", "w1", "--leaf", "a"], { cwd: dir }).code).toBe(0);
    expect(fs.existsSync(dispatchPath(dir, "new"))).toBe(true);
  });

  test("a scope directory that is a symlink out of the repository is never written through", () => {
    const dir = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(dir, ".unlazy"));
    fs.symlinkSync(outside, path.join(dir, ".unlazy/api"));
    expectRefused(
      dir,
      ["wave", "open", ...S, "--wave", "w1", "--leaf", "a"],
      "scope directory must be a real directory inside the repository",
    );
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test("a dispatch lock left by a SIGKILLed process is recovered by the next transition and logged", async () => {
    const { dir, w, file } = pipe();
    const holder = spawn(
      path.join(REPO, "node_modules/.bin/bun"),
      [
        "-e",
        `import { withFileLock } from ${JSON.stringify(path.join(REPO, "src/io/lock.ts"))};
         await withFileLock(${JSON.stringify(dir)}, ${JSON.stringify(file)}, async () => {
           console.log("held"); await new Promise(() => setInterval(() => {}, 1000));
         });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout!.on("data", () => resolve()));
    holder.kill("SIGKILL");
    await new Promise((r) => holder.on("exit", r));
    expect(fs.existsSync(lockPath(dir, file))).toBe(true);
    const r = w("open", ...S, "--wave", "w1", "--leaf", "a");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`kbz: note: lock recovered from dead pid ${holder.pid}`);
    const log = fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8");
    expect(log).toMatch(new RegExp(`Z lock recovered from dead pid ${holder.pid} .*\\n.*Z dispatch w1 opened: a\\n$`));
  });
});
