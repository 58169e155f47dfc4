// Issue 32: every completion event and the fields that change the answer, on each host's
// documented payload (test/fixtures/hosts): sub-agents and tasks judged by their leaf's gates,
// failed and interrupted turns never counted, "waiting on wave" for running background workers,
// one counter per prompt_id. Each case runs through the binary, the Node 16 fallback and in
// process, and the three must print the same bytes and exit with the same code.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { ledger, plannedWave, stopHook, stopHookIn, storeState, type HookRun } from "../helpers/hook.ts";

setDefaultTimeout(120_000);

const FIX = path.join(REPO, "test", "fixtures", "hosts");
type Route = "binary" | "node16" | "in-process";
const ROUTES: Route[] = ["binary", "node16", "in-process"];

/** A planned scope: leaf 1.1 unmet, leaf 1.2 met, both started in open wave w1 (handles h11, worker-7). */
function planned(): string {
  const root = tempDir("kbz-events-");
  writeTree(root, plannedWave("unmet"));
  return root;
}

function plain(state: "met" | "unmet"): string {
  const root = tempDir("kbz-events-");
  writeTree(root, { "GATES.md": ledger("g", [{ id: "G1", state }]) });
  return root;
}

function payload(rel: string, root: string, patch: Record<string, unknown> = {}): string {
  const p = JSON.parse(fs.readFileSync(path.join(FIX, rel), "utf8").split("__ROOT__").join(root));
  return JSON.stringify({ ...p, ...patch });
}

async function run(route: Route, host: string, body: string, root: string): Promise<HookRun> {
  const opts = { cwd: root, args: ["--agent", host] };
  return route === "in-process" ? stopHookIn(body, opts) : stopHook(body, { ...opts, via: route });
}

/** One event through all three routes, each in a fresh copy of the repository: the same bytes and code. */
async function same(
  host: string,
  rel: string,
  make: () => string,
  patch: Record<string, unknown> = {},
): Promise<HookRun> {
  const runs: HookRun[] = [];
  for (const route of ROUTES) {
    const root = make();
    const r = await run(route, host, payload(rel, root, patch), root);
    runs.push({ ...r, stdout: r.stdout.split(root).join("<root>"), stderr: r.stderr.split(root).join("<root>") });
  }
  for (const r of runs.slice(1))
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: runs[0]!.code,
      stdout: runs[0]!.stdout,
      stderr: runs[0]!.stderr,
    });
  return runs[0]!;
}

const json = (r: HookRun) => (r.stdout === "" ? null : JSON.parse(r.stdout));

describe("Claude Code TaskCompleted: a task is a leaf; its gates decide whether it may complete", () => {
  test("a task naming an unmet leaf is refused with exit 2 and the gate on stderr; the three routes agree", async () => {
    const r = await same("claude", "claude/task-completed.json", planned);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("leaf-1.1:G1");
    expect(r.stderr).not.toContain("dispatch:w1");
  });

  test("a task matched by the handle recorded with wave start (teammate or task id), and a met leaf completes", async () => {
    const root = planned();
    const byHandle = await run(
      "binary",
      "claude",
      payload("claude/task-completed.json", root, { task_subject: "parser", teammate_name: "h11", task_id: "t-9" }),
      root,
    );
    expect([byHandle.code, byHandle.stderr.includes("leaf-1.1:G1")]).toEqual([2, true]);
    const met = await same("claude", "claude/task-completed.json", planned, {
      task_subject: "leaf 1.2: docs",
      teammate_name: "x",
    });
    expect([met.code, met.stdout, met.stderr]).toEqual([0, "", ""]);
  });

  test("a task that names no leaf is the agent's own bookkeeping: allowed", async () => {
    const r = await same("claude", "claude/task-completed.json", planned, {
      task_subject: "write the changelog",
      teammate_name: "x",
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "", ""]);
  });

  test("six refusals of one task, then the seventh completion is released with a note", async () => {
    const root = planned();
    const codes: number[] = [];
    let last: HookRun | null = null;
    for (let i = 0; i < 7; i++) {
      last = await run("binary", "claude", payload("claude/task-completed.json", root), root);
      codes.push(last.code);
    }
    expect(codes).toEqual([2, 2, 2, 2, 2, 2, 0]);
    expect(json(last!).systemMessage).toContain("releasing after 6 blocks");
  });
});

describe("sub-agents: a worker is judged by its leaf", () => {
  test("Codex SubagentStop: the agent_id recorded as a leaf's handle decides by that leaf (met: allowed)", async () => {
    const r = await same("codex", "codex/subagent-stop.json", planned);
    expect([r.code, r.stdout]).toEqual([0, ""]);
  });

  test("Codex SubagentStop of the worker of an unmet leaf blocks naming that leaf's gate only", async () => {
    const r = await same("codex", "codex/subagent-stop.json", planned, { agent_id: "h11" });
    expect(json(r).reason).toContain("leaf-1.1:G1");
    expect(json(r).reason).not.toContain("dispatch:w1");
  });

  test("Copilot subagentStop and Cursor subagentStop match their leaf too (handle; leaf id in the task)", async () => {
    const copilot = await same("copilot", "copilot/subagent-stop.json", planned, { agentId: "h11" });
    expect(json(copilot).reason).toContain("leaf-1.1:G1");
    const cursor = await same("cursor", "cursor/subagent-stop.json", planned);
    expect(json(cursor).followup_message).toContain("leaf-1.1:G1");
  });

  test("a sub-agent that is no leaf's worker is held to the whole scope, like its parent", async () => {
    const r = await same("codex", "codex/subagent-stop.json", planned, { agent_id: "explorer-1" });
    expect(json(r).reason).toContain("dispatch:w1");
  });
});

describe("stops that never count toward the release", () => {
  test("Claude Code StopFailure: a note, no block, and nothing counted", async () => {
    const r = await same("claude", "claude/stop-failure.json", () => plain("unmet"));
    expect(json(r).systemMessage).toContain("not counted toward the release");
    const root = plain("unmet");
    await run("binary", "claude", payload("claude/stop-failure.json", root), root);
    expect(fs.existsSync(path.join(root, ".unlazy-hook-state.json"))).toBe(false);
  });

  test("Cursor status aborted and error: a note on stderr, stdout empty, nothing counted", async () => {
    for (const status of ["aborted", "error"]) {
      const r = await same("cursor", "cursor/stop.json", () => plain("unmet"), { status });
      expect([r.stdout, r.stderr.includes("not counted")]).toEqual(["", true]);
    }
  });

  test("a stop with no assistant message blocks but does not count: six counted blocks still follow", async () => {
    const root = plain("unmet");
    const empty = await run(
      "binary",
      "codex",
      payload("codex/stop.json", root, { last_assistant_message: null }),
      root,
    );
    expect(json(empty).reason).toContain("GATES:G1");
    expect(Object.values(storeState(root).sessions).map((s) => s.blocks)).toEqual([0]);
    const blocks: (string | null)[] = [];
    for (let i = 0; i < 7; i++)
      blocks.push(
        json(await run("binary", "codex", payload("codex/stop.json", root, { stop_hook_active: true }), root))
          ?.decision ?? null,
      );
    expect(blocks).toEqual(["block", "block", "block", "block", "block", "block", null]);
  });

  test("empty messages alone are released too (after 6 uncounted, they count), so a host without a cap cannot loop forever", async () => {
    const root = plain("unmet");
    const out: (string | null)[] = [];
    for (let i = 0; i < 14; i++)
      out.push(
        json(
          await run(
            "binary",
            "codex",
            payload("codex/stop.json", root, { last_assistant_message: "", stop_hook_active: i > 0 }),
            root,
          ),
        )?.decision ?? null,
      );
    expect(out.indexOf(null)).toBeGreaterThan(6);
    expect(out.indexOf(null)).toBe(6 + 6); // six uncounted, six counted, then the release
  });
});

describe("background workers and prompt ids", () => {
  test("a stop while a wave's worker runs in background_tasks says what it waits on", async () => {
    const r = await same("claude", "claude/stop-background.json", planned);
    expect(json(r).reason).toStartWith("kbz [scope api]: waiting on wave w1 (leaf 1.1)");
  });

  test("background tasks that are not kbz's workers change nothing", async () => {
    const r = await same("claude", "claude/stop-background.json", planned, {
      background_tasks: [{ id: "zz", type: "shell", status: "running", description: "dev server" }],
    });
    expect(json(r).reason).toContain("need work");
  });

  test("Qwen Code's background_tasks are read the same way", async () => {
    const r = await same("qwen", "qwen/stop.json", planned, {
      background_tasks: [{ id: "h11", status: "running", description: "worker" }],
    });
    expect(json(r).reason).toContain("waiting on wave w1 (leaf 1.1)");
  });

  test("prompt_id keys the counter: a new prompt after a release blocks again, even flagged as a continuation", async () => {
    const root = plain("unmet");
    const seven: (string | null)[] = [];
    for (let i = 0; i < 7; i++)
      seven.push(
        json(
          await run(
            "binary",
            "claude",
            payload("claude/stop.json", root, { prompt_id: "p1", stop_hook_active: i > 0 }),
            root,
          ),
        )?.decision ?? null,
      );
    expect(seven[6]).toBeNull();
    const next = json(
      await run(
        "binary",
        "claude",
        payload("claude/stop.json", root, { prompt_id: "p2", stop_hook_active: true }),
        root,
      ),
    );
    expect(next.decision).toBe("block");
  });
});
