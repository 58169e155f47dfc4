// hooks/stop-hook.mjs: generated from the same TypeScript as `kbz hook stop`, runs on Node 16,
// and answers every fixture with the same bytes as the binary.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildFallbackHook } from "../../scripts/fallback-hook.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { FALLBACK, ledger, node16, stopHook, type Via } from "../helpers/hook.ts";

// Each case spawns the binary (and Node 16) several times; a loaded machine needs headroom.
setDefaultTimeout(60_000);

describe("the generated Node fallback", () => {
  test("regenerating hooks/stop-hook.mjs from src/ yields the committed bytes (it cannot drift)", async () => {
    expect(await buildFallbackHook()).toBe(fs.readFileSync(FALLBACK, "utf8"));
  });

  test("the committed hooks/stop-hook.mjs is the generated one (npm run build rewrites the working copy; git must hold it)", () => {
    const staged = Bun.spawnSync(["git", "show", ":hooks/stop-hook.mjs"], { cwd: path.dirname(FALLBACK) });
    if (staged.exitCode !== 0) return; // not a git checkout (e.g. an unpacked release): nothing committed to compare
    const committed = staged.stdout.toString();
    const current = fs.readFileSync(FALLBACK, "utf8");
    expect(
      committed === current
        ? "committed"
        : "hooks/stop-hook.mjs differs from the committed copy: commit the file npm run build generated",
    ).toBe("committed");
  });

  test("it imports nothing but node: built-ins and uses no Bun API", () => {
    // The watchdog's worker source (io/hook/watchdog.ts) is a string run in a thread of its own,
    // where require is what loads node:fs: it is not part of the bundle's module code.
    const text = fs.readFileSync(FALLBACK, "utf8").replace(/(WORKER_SOURCE|NODE_START) = `[^`]*`/g, "$1 = ``");
    const specifiers = [...text.matchAll(/^\s*import\s[^"']*["']([^"']+)["']/gm)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !s.startsWith("node:"))).toEqual([]);
    expect(/\bBun\.|from ["']bun|require\(|\bReact\b|["']ink["']/.exec(text)?.[0] ?? null).toBeNull();
  });

  test("the Node used is really 16", () => {
    const r = Bun.spawnSync([node16(), "--version"]);
    expect(r.stdout.toString()).toStartWith("v16.");
  });
});

interface Scenario {
  name: string;
  files: Record<string, string>;
  payload: (dir: string) => unknown;
  args?: string[];
  /** Stops sent before the compared one, to exercise the guard's counting. */
  warmup?: number;
  prepare?: (dir: string) => void;
}

const unmet = ledger("u", [
  { id: "G1", state: "unmet" },
  { id: "G2", state: "met" },
]);
const allMet = ledger("m", [
  { id: "G1", state: "met" },
  { id: "G2", state: "manual-met" },
]);
const abandoned = ledger("a", [
  { id: "G1", state: "met" },
  { id: "G9", state: "abandoned" },
]);
const mixed = ledger("x", [
  { id: "G1", state: "unmet" },
  { id: "G9", state: "abandoned" },
]);
const openWave = JSON.stringify({
  schema: 1,
  waves: {
    w1: {
      leaves: ["a", "b"],
      state: "open",
      openedAt: "2026-01-01T00:00:00.000Z",
      started: { a: { handle: "h1", at: "2026-01-01T00:00:01.000Z" } },
      returned: {},
    },
  },
});
const abandonedWave = JSON.stringify({
  schema: 1,
  waves: {
    w2: {
      leaves: ["a"],
      state: "abandoned",
      openedAt: "2026-01-01T00:00:00.000Z",
      abandonedAt: "2026-01-01T00:00:02.000Z",
      reason: "PRIVATE",
      started: {},
      returned: {},
    },
  },
});
const std = (dir: string) => ({ cwd: dir, session_id: "matrix", hook_event_name: "Stop" });

const SCENARIOS: Scenario[] = [
  { name: "no ledgers", files: {}, payload: std },
  { name: "legacy unmet", files: { "GATES.md": unmet }, payload: std },
  { name: "legacy all met", files: { "GATES.md": allMet }, payload: std },
  { name: "abandoned only", files: { "GATES.md": abandoned }, payload: std },
  { name: "unmet plus handoff", files: { "GATES.md": mixed }, payload: std },
  { name: "released on the 7th stop", files: { "GATES.md": unmet }, payload: std, warmup: 6 },
  { name: "still blocking on the 6th stop", files: { "GATES.md": mixed }, payload: std, warmup: 5 },
  {
    name: "single scope",
    files: { ".unlazy/api/gates/leaf-1.md": unmet, ".unlazy/api/gates/leaf-2.md": allMet },
    payload: std,
  },
  {
    name: "two scopes, unbound",
    files: { ".unlazy/api/GATES.md": unmet, ".unlazy/web/GATES.md": allMet },
    payload: std,
  },
  {
    name: "two scopes, pinned",
    files: { ".unlazy/api/GATES.md": unmet, ".unlazy/web/GATES.md": allMet },
    payload: std,
    args: ["--scope", "api"],
  },
  {
    name: "two scopes, session bound",
    files: { ".unlazy/api/GATES.md": unmet, ".unlazy/web/GATES.md": mixed, ".unlazy/web/session": "matrix\n" },
    payload: std,
  },
  {
    name: "open dispatch wave",
    files: { ".unlazy/api/GATES.md": allMet, ".unlazy/api/dispatch.json": openWave },
    payload: std,
  },
  {
    name: "abandoned dispatch wave",
    files: { ".unlazy/api/GATES.md": unmet, ".unlazy/api/dispatch.json": abandonedWave },
    payload: std,
  },
  {
    name: "invalid dispatch state",
    files: {
      ".unlazy/api/GATES.md": allMet,
      ".unlazy/api/dispatch.json": '{"schema":1,"waves":{"w":{"state":"nope\u202e"}}}',
    },
    payload: std,
  },
  { name: "pinned scope absent", files: { "GATES.md": unmet }, payload: std, args: ["--scope", "nope"] },
  { name: "invalid --scope", files: { "GATES.md": unmet }, payload: std, args: ["--scope", "../x"] },
  {
    name: "parse errors including an invalid regex",
    files: {
      "GATES.md":
        "# Gates\n\n- [ ] G1: t\n  CHECK: x\n  EXPECT: /(?<n>a)\\k<m>/u\n- [ ] G2: t\n  CHECK: x\n  EXPECT: /[z-a]/\n",
    },
    payload: std,
  },
  { name: "zero gates", files: { "gates/leaf.md": "# Gates: nothing yet\n" }, payload: std },
  {
    name: "invalid UTF-8",
    files: { "GATES.md": "- [ ] G1: t\n\u00ff" },
    payload: std,
    prepare: (d) => fs.writeFileSync(path.join(d, "GATES.md"), Buffer.from([0xc3, 0x28])),
  },
  {
    name: "symlinked scope",
    files: { ".unlazy/keep": "" },
    payload: std,
    args: ["--scope", "api"],
    prepare: (d) => fs.symlinkSync("/tmp", path.join(d, ".unlazy/api")),
  },
  {
    name: "stop from a subdirectory of a git work tree",
    files: { ".git/HEAD": "ref: x\n", "GATES.md": unmet, "src/a.ts": "" },
    payload: (d) => ({ ...std(d), cwd: path.join(d, "src") }),
  },
  { name: "empty stdin", files: { "GATES.md": unmet }, payload: () => "" },
  { name: "invalid JSON", files: { "GATES.md": unmet }, payload: () => "{nope" },
  { name: "JSON array", files: { "GATES.md": unmet }, payload: () => "[1,2]" },
  { name: "missing cwd directory", files: {}, payload: (d) => ({ cwd: path.join(d, "gone"), session_id: "m" }) },
  {
    name: "SubagentStop with stop_hook_active",
    files: { "GATES.md": unmet },
    payload: (d) => ({ ...std(d), hook_event_name: "SubagentStop", stop_hook_active: true }),
  },
  { name: "hostile ids", files: { "gates/a\u202eb.md": "# G\n\n- [ ] X\u0085Y: t\u2028u\n" }, payload: std },
];

function runScenario(s: Scenario, via: Via): { stdout: string; code: number } {
  const dir = tempDir(`kbz-matrix-${via}-`);
  writeTree(dir, s.files);
  s.prepare?.(dir);
  for (let i = 0; i < (s.warmup ?? 0); i++) stopHook(s.payload(dir), { args: s.args, via, cwd: dir });
  const r = stopHook(s.payload(dir), { args: s.args, via, cwd: dir });
  // Paths differ per temp dir; compare the answers with the directory factored out.
  return { stdout: r.stdout.split(dir).join("<dir>"), code: r.code };
}

describe("decision matrix: the compiled binary and the Node 16 fallback print identical bytes", () => {
  for (const s of SCENARIOS) {
    test(s.name, () => {
      const bin = runScenario(s, "binary");
      const node = runScenario(s, "node16");
      expect(bin.code).toBe(0);
      expect(node).toEqual(bin);
    });
  }

  test("the matrix covers every kind of answer: silence, a note, a block and a release", () => {
    const kinds = new Set(
      SCENARIOS.map((s) => {
        const out = runScenario(s, "binary").stdout;
        if (out === "") return "silent";
        const o = JSON.parse(out);
        return o.decision === "block" ? "block" : o.systemMessage.includes("releasing") ? "release" : "note";
      }),
    );
    expect([...kinds].sort()).toEqual(["block", "note", "release", "silent"]);
  });
});

describe("stdin fuzz: always exit 0 and at most one JSON object (binary and Node 16)", () => {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": unmet });
  const inputs: [string, string | Uint8Array][] = [
    ["binary junk", new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))],
    ["NUL bytes", new Uint8Array(1024)],
    [
      "10 MiB of JSON whitespace around a payload",
      " ".repeat(10 * 1024 * 1024) + JSON.stringify({ cwd: dir, session_id: "big" }),
    ],
    ["40 MiB beyond the stdin cap", "x".repeat(40 * 1024 * 1024)],
    [
      "a huge last_assistant_message",
      JSON.stringify({ cwd: dir, session_id: "msg", last_assistant_message: "y".repeat(3 * 1024 * 1024) }),
    ],
    ["truncated JSON", '{"cwd": "' + dir],
    ["deeply nested JSON", "[".repeat(100_000) + "]".repeat(100_000)],
    ["wrong field types", JSON.stringify({ cwd: 42, session_id: { a: 1 }, sessionId: [] })],
    ["null", "null"],
    ["a number", "7"],
    [
      "invalid UTF-8 inside a string",
      Buffer.concat([Buffer.from('{"cwd":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ],
  ];
  for (const via of ["binary", "node16"] as Via[]) {
    test(`${via}: odd arguments never change the exit code`, () => {
      for (const args of [["--bogus"], ["--scope"], ["--scope", "a", "--scope", "../b"], ["-h-"], ["--", "x"]]) {
        const r = stopHook({ cwd: dir, session_id: "args" }, { via, cwd: dir, args });
        expect([args.join(" "), r.code, r.stdout.split("\n").filter(Boolean).length]).toEqual([args.join(" "), 0, 1]);
      }
    });
    for (const [name, input] of inputs) {
      test(`${via}: ${name}`, () => {
        const r = stopHook(input, { via, cwd: dir });
        expect(r.code).toBe(0);
        expect(r.stderr).toBe("");
        const lines = r.stdout.split("\n").filter((l) => l !== "");
        expect(lines.length).toBeLessThanOrEqual(1);
        if (lines.length === 1) expect(typeof JSON.parse(lines[0]!)).toBe("object");
      }, 60_000);
    }
  }
});
