// `kbz hook stop --agent NAME` on each host's documented Stop payload (test/fixtures/hosts):
// the answer validates against that host's output schema, says the same decision in that host's
// words, and the binary and the Node 16 fallback print identical bytes on every fixture.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { ledger, stopHook, stopHookIn, type HookRun, type Via } from "../helpers/hook.ts";
import { validate } from "../helpers/schema.ts";

setDefaultTimeout(120_000);

const FIX = path.join(REPO, "test", "fixtures", "hosts");
const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(FIX, rel), "utf8"));

interface Host {
  name: "claude" | "codex" | "cursor" | "gemini" | "copilot" | "qwen" | "opencode";
  payload: string; // fixture file
  schema: string;
  /** The session field this host keys on, to make a second session. */
  sessionField: string;
  /** The text the agent is given when kbz blocks, or null when the answer lets it stop. */
  blockText(o: Record<string, unknown> | null): string | null;
  /** How this host's allow-silently looks on stdout. */
  silent: string;
}

const claudeBlock = (o: Record<string, unknown> | null) => (o?.decision === "block" ? String(o.reason) : null);
const HOSTS: Host[] = [
  {
    name: "claude",
    payload: "claude/stop.json",
    schema: "claude/stop.output.schema.json",
    sessionField: "session_id",
    blockText: claudeBlock,
    silent: "",
  },
  {
    name: "codex",
    payload: "codex/stop.json",
    schema: "codex/stop.command.output.schema.json",
    sessionField: "session_id",
    blockText: claudeBlock,
    silent: "",
  },
  {
    name: "cursor",
    payload: "cursor/stop.json",
    schema: "cursor/stop.output.schema.json",
    sessionField: "conversation_id",
    blockText: (o) => (o && typeof o.followup_message === "string" ? o.followup_message : null),
    silent: "",
  },
  {
    name: "gemini",
    payload: "gemini/after-agent.json",
    schema: "gemini/after-agent.output.schema.json",
    sessionField: "session_id",
    blockText: (o) => (o?.decision === "deny" ? String(o.reason) : null),
    silent: "{}\n",
  },
  {
    name: "copilot",
    payload: "copilot/agent-stop.json",
    schema: "copilot/agent-stop.output.schema.json",
    sessionField: "sessionId",
    blockText: claudeBlock,
    silent: "",
  },
  {
    name: "qwen",
    payload: "qwen/stop.json",
    schema: "qwen/stop.output.schema.json",
    sessionField: "session_id",
    blockText: claudeBlock,
    silent: "",
  },
  {
    name: "opencode",
    payload: "opencode/session-idle.json",
    schema: "opencode/session-idle.output.schema.json",
    sessionField: "session_id",
    blockText: claudeBlock,
    silent: "",
  },
];

const unmet = ledger("u", [
  { id: "G1", state: "unmet" },
  { id: "G2", state: "met" },
]);
const allMet = ledger("m", [{ id: "G1", state: "met" }]);
const broken = "# Gates\n\n- [ ] G1: t\n  CHECK: x\n  EXPECT: /[z-a]/\n";
const openWave = JSON.stringify({
  schema: 1,
  waves: {
    w1: {
      leaves: ["a"],
      state: "open",
      openedAt: "2026-01-01T00:00:00.000Z",
      started: { a: { handle: "h1", at: "2026-01-01T00:00:01.000Z" } },
      returned: {},
    },
  },
});

function payloadFor(h: Host, root: string, patch: Record<string, unknown> = {}): Record<string, unknown> {
  const p = JSON.parse(JSON.stringify(read(h.payload)).split("__ROOT__").join(root));
  return { ...p, ...patch };
}

/** The one JSON object on stdout (or null for silence), after checking exit 0 and the host's schema. */
function answer(h: Host, r: HookRun): Record<string, unknown> | null {
  expect(r.code).toBe(0);
  if (r.stdout === "") return null;
  expect(r.stdout.endsWith("\n") && r.stdout.indexOf("\n") === r.stdout.length - 1).toBe(true);
  const o = JSON.parse(r.stdout);
  expect(validate(o, read(h.schema))).toEqual([]);
  return o;
}

function repo(files: Record<string, string>): string {
  const dir = tempDir("kbz-hosts-");
  writeTree(dir, files);
  return dir;
}

/** `in-process` answers in this process (coverage of src/hook); the others spawn the binary or Node 16. */
type Route = Via | "in-process";
const hook = async (
  payload: string,
  route: Route,
  opts: { cwd: string; args: string[]; env?: Record<string, string> },
) => (route === "in-process" ? stopHookIn(payload, opts) : stopHook(payload, { ...opts, via: route }));

const stop = (h: Host, root: string, via: Route, patch: Record<string, unknown> = {}, bom = "") =>
  hook(bom + JSON.stringify(payloadFor(h, root, patch)), via, { cwd: root, args: ["--agent", h.name] });

/** Continuation patch for the n-th stop after the first, in the host's own loop signal. */
function again(h: Host, n: number): Record<string, unknown> {
  if (h.name === "cursor") return { loop_count: n };
  return h.name === "copilot" ? { stopHookActive: n > 0 } : { stop_hook_active: n > 0 };
}

/** Seven stops of one session on an unmet ledger: the answers, in order. */
async function sevenStops(
  h: Host,
  root: string,
  via: Route,
  patch: Record<string, unknown> = {},
): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < 7; i++) out.push(h.blockText(answer(h, await stop(h, root, via, { ...again(h, i), ...patch }))));
  return out;
}

// The decisions per host run in-process (the same code the binary bundles); that the binary and the
// Node 16 fallback print the same bytes as in-process is the matrix at the end of this file.
for (const h of HOSTS) {
  describe(`${h.name}: kbz hook stop --agent ${h.name}`, () => {
    for (const via of ["in-process"] as Route[]) {
      test(`${via}: all met lets the first stop through, in the host's silent form`, async () => {
        const root = repo({ "GATES.md": allMet });
        const r = await stop(h, root, via);
        expect(answer(h, r)).toEqual(h.silent === "" ? null : {});
        expect(r.stdout).toBe(h.silent);
      });

      test(`${via}: an unmet gate blocks with a reason naming it by qualified id, with or without byte-order marks`, async () => {
        const root = repo({ "GATES.md": unmet });
        for (const bom of ["", "\uFEFF", "\uFEFF\uFEFF"]) {
          const text = h.blockText(answer(h, await stop(h, root, via, { [h.sessionField]: `bom-${bom.length}` }, bom)));
          expect(text).toContain("GATES:G1");
          expect(text).not.toContain("GATES:G2");
        }
      });

      test(`${via}: a ledger parse error blocks, naming the ledger`, async () => {
        const root = repo({ "GATES.md": broken });
        expect(h.blockText(answer(h, await stop(h, root, via)))).toContain("GATES:PARSE");
      });

      test(`${via}: an open dispatch wave blocks even with every gate met`, async () => {
        const root = repo({ ".unlazy/api/GATES.md": allMet, ".unlazy/api/dispatch.json": openWave });
        expect(h.blockText(answer(h, await stop(h, root, via)))).toContain("w1");
      });

      test(`${via}: six blocks without progress, then the seventh stop is released`, async () => {
        const root = repo({ "GATES.md": unmet });
        const texts = await sevenStops(h, root, via);
        expect(texts.slice(0, 6).every((t) => t !== null && t.includes("GATES:G1"))).toBe(true);
        expect(texts[6]).toBeNull();
      });

      test(`${via}: a second session has its own counter`, async () => {
        const root = repo({ "GATES.md": unmet });
        await sevenStops(h, root, via);
        const other = h.blockText(answer(h, await stop(h, root, via, { [h.sessionField]: "second-session" })));
        expect(other).toContain("GATES:G1");
      });

      test(`${via}: a payload that is not JSON lets the agent stop`, async () => {
        const root = repo({ "GATES.md": unmet });
        const r = await hook("{nope", via, { cwd: root, args: ["--agent", h.name] });
        expect(h.blockText(answer(h, r))).toBeNull();
      });
    }

    test("a fresh turn after a release (the host's loop signal at its start value) blocks again", async () => {
      const root = repo({ "GATES.md": unmet });
      await sevenStops(h, root, "in-process");
      expect(h.blockText(answer(h, await stop(h, root, "in-process", again(h, 1))))).toBeNull();
      expect(h.blockText(answer(h, await stop(h, root, "in-process", again(h, 0))))).toContain("GATES:G1");
    });

    test("a mid-chain continuation signal never resets the count (Claude Code #54360)", async () => {
      const root = repo({ "GATES.md": unmet });
      // The signal claims a fresh stop every time, as in the misfire: still released on the 7th.
      const texts: (string | null)[] = [];
      for (let i = 0; i < 7; i++) texts.push(h.blockText(answer(h, await stop(h, root, "in-process", again(h, 0)))));
      expect(texts.map((t) => t !== null)).toEqual([true, true, true, true, true, true, false]);
    });
  });
}

describe("host-specific signals", () => {
  test("codex counts per turn: a new turn_id starts its own six blocks", async () => {
    const h = HOSTS[1]!;
    const root = repo({ "GATES.md": unmet });
    await sevenStops(h, root, "in-process");
    const t2 = h.blockText(answer(h, await stop(h, root, "in-process", { turn_id: "turn-2", stop_hook_active: true })));
    expect(t2).toContain("GATES:G1");
  });

  test("cursor's loop_count is a second check: at six continuations kbz releases even with no state of its own", async () => {
    const h = HOSTS[2]!;
    const root = repo({ "GATES.md": unmet });
    expect(h.blockText(answer(h, await stop(h, root, "in-process", { loop_count: 5 })))).toContain("GATES:G1");
    expect(
      h.blockText(answer(h, await stop(h, root, "in-process", { loop_count: 6, conversation_id: "fresh" }))),
    ).toBeNull();
  });

  test("cursor without workspace_roots falls back to CURSOR_PROJECT_DIR", async () => {
    const h = HOSTS[2]!;
    const root = repo({ "GATES.md": unmet });
    const p = { ...payloadFor(h, root), workspace_roots: [] };
    const r = stopHook(JSON.stringify(p), {
      cwd: REPO,
      args: ["--agent", "cursor"],
      env: { CURSOR_PROJECT_DIR: root },
    });
    expect(h.blockText(answer(h, r))).toContain("GATES:G1");
  });

  test("cursor's release note goes to stderr, its stdout stays empty", async () => {
    const h = HOSTS[2]!;
    const root = repo({ "GATES.md": unmet });
    await sevenStops(h, root, "in-process", { conversation_id: "note" });
    const r = await stop(h, root, "in-process", { loop_count: 7, conversation_id: "note" });
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("releasing after 6 blocks");
  });

  test("issue 40: an unknown --agent value blocks and says what to use", async () => {
    const root = repo({ "GATES.md": unmet });
    for (const via of ["binary", "node16", "in-process"] as Route[]) {
      const r = await hook(JSON.stringify({ cwd: root }), via, { cwd: root, args: ["--agent", "vim"] });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).reason).toContain("use claude, codex, cursor, gemini, copilot, qwen, opencode");
    }
  });
});

describe("binary, Node 16 fallback and in-process: identical bytes on every host fixture", () => {
  const cases: [string, Record<string, string>][] = [
    ["all met", { "GATES.md": allMet }],
    ["unmet", { "GATES.md": unmet }],
    ["parse error", { "GATES.md": broken }],
    ["open wave", { ".unlazy/api/GATES.md": allMet, ".unlazy/api/dispatch.json": openWave }],
  ];
  // Payload bytes each route reads itself: byte-order marks, and a payload that is not JSON.
  const payloads: [string, (h: Host, root: string) => string][] = [
    ["unmet, two byte-order marks", (h, root) => "\uFEFF\uFEFF" + JSON.stringify(payloadFor(h, root))],
    ["a payload that is not JSON", () => "{nope"],
  ];
  for (const h of HOSTS) {
    for (const [name, files] of cases) {
      test(`${h.name}: ${name}`, async () => {
        const runs = [];
        for (const via of ["binary", "node16", "in-process"] as Route[]) {
          const root = repo(files);
          const r = await stop(h, root, via);
          runs.push({
            stdout: r.stdout.split(root).join("<root>"),
            stderr: r.stderr.split(root).join("<root>"),
            code: r.code,
          });
        }
        expect(runs[1]).toEqual(runs[0]!);
        expect(runs[2]).toEqual(runs[0]!);
      });
    }
    for (const [name, payload] of payloads) {
      test(`${h.name}: ${name}`, async () => {
        const runs = [];
        for (const via of ["binary", "node16", "in-process"] as Route[]) {
          const root = repo({ "GATES.md": unmet });
          const r = await hook(payload(h, root), via, { cwd: root, args: ["--agent", h.name] });
          runs.push({
            stdout: r.stdout.split(root).join("<root>"),
            stderr: r.stderr.split(root).join("<root>"),
            code: r.code,
          });
        }
        expect(runs[1]).toEqual(runs[0]!);
        expect(runs[2]).toEqual(runs[0]!);
      });
    }
    // The counter's whole life on Node 16 against the same decisions in-process (which the
    // matrix above ties to the binary).
    test(`${h.name}: release after six and a second session`, async () => {
      const runs = [];
      for (const via of ["in-process", "node16"] as Route[]) {
        const root = repo({ "GATES.md": unmet });
        const seven = await sevenStops(h, root, via);
        const second = (await stop(h, root, via, { [h.sessionField]: "second" })).stdout;
        runs.push({ seven, second });
      }
      expect(runs[1]).toEqual(runs[0]!);
    });
  }
});
