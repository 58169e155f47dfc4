// End to end, issue 32: the completion events and hosts beyond the main Stop of hosts.test.ts, each
// with the real CLI from npm (test/hosts/package.json) pointed at the mock model on 127.0.0.1 in a
// fresh HOME. Each blocks on an unmet gate naming it, releases after six blocks, and allows when
// the gates are met; what the host really sent kbz is replayed through the binary and the Node 16
// fallback, which must answer byte for byte alike.
//
// OpenCode has no command hooks: kbz installs a plugin that runs the guard on `session.idle` and
// prompts the session with the reason. `opencode run` (one-shot) exits at the first idle, before a
// plugin's prompt can start another step, so the guard lives in OpenCode's server: `opencode serve`
// (what its TUI and IDE clients talk to), driven here over its HTTP API as a client would.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeTree } from "../helpers/kbz.ts";
import { plannedWave } from "../helpers/hook.ts";
import { needs } from "../helpers/needs.ts";
import type { LoggedRequest, MockModel, ToolUse } from "./mock-model.ts";
import {
  allMet,
  baseEnv,
  claudeEnv,
  copilotEnv,
  counters,
  hostCommand,
  hostSession,
  REASON,
  sameOnBothRoutes,
  turnOf,
  unmet,
  type Turn,
} from "./harness.ts";

setDefaultTimeout(300_000);

// Installed by .ci/run (npm install --prefix test/hosts --ignore-scripts); elsewhere one line says how.
const available = needs("hosts");
const carrying = (turns: LoggedRequest[]) => turns.map((r) => r.body.includes(REASON) && r.body.includes("need work"));

// ---------------------------------------------------------------------------------------------
// OpenCode 1.18.33: `opencode serve`, a session prompted over HTTP, the plugin on session.idle.

const OPENCODE_QUIET_MS = 10_000;
// OpenCode installs @opencode-ai/plugin into each .opencode folder it loads plugins from (from the
// npm registry, as it does for any user) before it starts a session: minutes on a loaded machine.
const OPENCODE_MS = 480_000;

function opencodeEnv(home: string): Record<string, string> {
  return {
    ...baseEnv(home),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
  };
}

/** The project's opencode.json: one OpenAI-compatible provider at the mock (bundled in OpenCode; nothing is fetched). */
function opencodeConfig(root: string, mock: MockModel): void {
  writeTree(root, {
    "opencode.json": JSON.stringify({
      $schema: "https://opencode.ai/config.json",
      model: "mock/mock-model",
      small_model: "mock/mock-model",
      autoupdate: false,
      share: "disabled",
      provider: {
        mock: {
          npm: "@ai-sdk/openai-compatible",
          name: "Mock",
          options: { baseURL: `${mock.url}/v1`, apiKey: "dummy" },
          models: { "mock-model": { name: "Mock" } },
        },
      },
    }),
  });
}

/**
 * One prompt to a fresh session of `opencode serve` in `root`: the turn, and whatever the plugin's
 * prompts start after it, until the session is idle and the mock has had no request for 10 s.
 */
async function opencodeTurn(
  root: string,
  env: Record<string, string>,
  mock: MockModel,
): Promise<{ requests: LoggedRequest[]; roles: string[] }> {
  const child = spawn(hostCommand("opencode-current")[0]!, ["serve", "--hostname", "127.0.0.1", "--port", "0"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stderr.resume();
  const deadline = Date.now() + OPENCODE_MS;
  try {
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`opencode serve printed no address within 60 s: ${out}`)),
        60_000,
      );
      child.stdout.on("data", (c) => {
        out += c;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on("close", (code) => reject(new Error(`opencode serve exited ${code}: ${out}`)));
    });
    const json = async (p: string, body?: unknown): Promise<any> => {
      const r = await fetch(
        url + p,
        body === undefined
          ? {}
          : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
      if (!r.ok) throw new Error(`opencode ${p}: HTTP ${r.status} ${await r.text()}`);
      return r.json();
    };
    const session = await json("/session", {});
    await json(`/session/${session.id}/message`, {
      parts: [{ type: "text", text: "Finish the task in this repository." }],
    });
    let seen = -1;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      await Bun.sleep(500);
      const status = await json("/session/status");
      const busy = status[session.id] && status[session.id].type !== "idle";
      if (busy || mock.requests.length !== seen) {
        seen = mock.requests.length;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= OPENCODE_QUIET_MS) break;
    }
    const messages: { info: { role: string } }[] = await json(`/session/${session.id}/message`);
    return { requests: [...mock.requests], roles: messages.map((m) => m.info.role) };
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
}

/** OpenCode's own files (its npm cache, .opencode/node_modules, its database) go inside the test, not in the cleanup hook's few seconds. */
function removeOpencodeFiles(root: string, home: string): void {
  for (const dir of [home, root]) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

// The session's own steps: requests that carry the task (OpenCode's title request does not).
const opencodeSteps = (requests: LoggedRequest[]) =>
  requests.filter(
    (r) =>
      r.path.endsWith("/chat/completions") &&
      r.body.includes("Finish the task in this repository.") &&
      !r.body.includes("Generate a title"),
  );

describe.skipIf(!available)("OpenCode 1.18.33 end to end (opencode serve, kbz's plugin on session.idle)", () => {
  const prepare = (_home: string, mock: MockModel, root: string) => opencodeConfig(root, mock);
  const session = <T>(files: Record<string, string>, body: Parameters<typeof hostSession<T>>[1]) =>
    hostSession(
      { agent: "opencode", name: "opencode", files, env: opencodeEnv, prepare, after: removeOpencodeFiles },
      body,
    );

  test(
    "an unmet gate: the plugin prompts the session with kbz's reason six times, then the seventh idle rests",
    () =>
      session({ "GATES.md": unmet }, async ({ root, mock, env, captured }) => {
        const t = await opencodeTurn(root, env, mock);
        expect(carrying(opencodeSteps(t.requests))).toEqual([false, true, true, true, true, true, true]);
        expect(t.roles).toEqual(["user", "assistant", ...Array(6).fill(["user", "assistant"]).flat()]);
        expect(counters(root)).toEqual([7]);
        const payloads = captured();
        expect(payloads.length).toBe(7);
        expect(JSON.parse(payloads[0]!)).toMatchObject({
          hook_event_name: "session.idle",
          cwd: root,
          stop_hook_active: false,
        });
        expect(sameOnBothRoutes("opencode", payloads[0]!, root, { "GATES.md": unmet }).stdout).toContain(REASON);
      }),
    OPENCODE_MS + 60_000,
  );

  test(
    "all gates met: the first idle rests",
    () =>
      session({ "GATES.md": allMet }, async ({ root, mock, env, captured }) => {
        const t = await opencodeTurn(root, env, mock);
        expect({
          steps: opencodeSteps(t.requests).length,
          roles: t.roles,
          reason: t.requests.some((r) => r.body.includes("need work")),
        }).toEqual({ steps: 1, roles: ["user", "assistant"], reason: false });
        const payloads = captured();
        expect(payloads.length).toBe(1);
        expect(sameOnBothRoutes("opencode", payloads[0]!, root, { "GATES.md": allMet }).stdout).toBe("");
      }),
    OPENCODE_MS + 60_000,
  );
});

// ---------------------------------------------------------------------------------------------
// Claude Code 2.1.332: TaskCompleted (a task is a leaf) and a Stop while background work runs.

/** A planned scope: leaf 1.1 (`state`) and leaf 1.2 (met), both started in open wave w1 (handles h11, worker-7). */
const planned = plannedWave;

// The task tools (TaskCreate, TaskUpdate) are offered in -p mode with todo tools on and tool search
// off (else they are deferred behind ToolSearch).
const claudeTaskEnv = (home: string, mock: MockModel): Record<string, string> => ({
  ...claudeEnv(home, mock),
  CLAUDE_CODE_ENABLE_TODO_TOOLS: "true",
  ENABLE_TOOL_SEARCH: "false",
});
const claudeSession = <T>(
  name: string,
  files: Record<string, string>,
  toolUse: ToolUse[],
  body: Parameters<typeof hostSession<T>>[1],
  after?: (root: string) => Promise<void>,
) => hostSession({ agent: "claude", name, files, toolUse, env: claudeTaskEnv, after }, body);
const claudeArgv = () => [
  ...hostCommand("claude-current"),
  "-p",
  "Finish the task in this repository.",
  "--allowedTools",
  "Bash",
];
const claudeTurns = (requests: LoggedRequest[]) =>
  requests.filter((r) => r.method === "POST" && r.path.endsWith("/v1/messages"));

/** What the host sent back for each of the mock's tool calls (by tool_use id), from the last request that carries them. */
function toolResults(requests: LoggedRequest[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of claudeTurns(requests)) {
    let body: { messages?: { content?: unknown }[] };
    try {
      body = JSON.parse(r.body);
    } catch {
      continue;
    }
    for (const m of body.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const c of m.content as { type?: string; tool_use_id?: string; content?: unknown }[]) {
        if (c.type === "tool_result" && c.tool_use_id)
          out[c.tool_use_id] = typeof c.content === "string" ? c.content : JSON.stringify(c.content);
      }
    }
  }
  return out;
}

const createTask = {
  name: "TaskCreate",
  input: {
    subject: "leaf 1.1: implement the parser",
    description: "Make leaf 1.1's gates pass",
    activeForm: "Implementing the parser",
  },
};
const completeTask = { name: "TaskUpdate", input: { taskId: "1", status: "completed" } };

describe.skipIf(!available)("Claude Code 2.1.332 TaskCompleted end to end: a task naming leaf 1.1 is that leaf", () => {
  test("leaf 1.1 unmet: completing its task is refused six times naming the leaf's gate, the seventh goes through", () => {
    const files = planned("unmet");
    return claudeSession(
      "claude-task",
      files,
      [createTask, ...Array(7).fill(completeTask)],
      async ({ root, mock, env, captured }) => {
        const t = await turnOf(claudeArgv(), root, env, mock);
        const results = toolResults(t.requests);
        const refused = [2, 3, 4, 5, 6, 7, 8].map((n) => /leaf-1\.1:G1/.test(results[`toolu_mock_${n}`] ?? ""));
        expect({ code: t.code, refused }).toEqual({ code: 0, refused: [true, true, true, true, true, true, false] });
        const tasks = captured().filter((p) => JSON.parse(p).hook_event_name === "TaskCompleted");
        expect(tasks.length).toBe(7);
        expect(JSON.parse(tasks[0]!)).toMatchObject({ task_subject: "leaf 1.1: implement the parser" });
        const r = sameOnBothRoutes("claude", tasks[0]!, root, files);
        expect({ code: r.code, names: r.stderr.includes("leaf-1.1:G1") }).toEqual({ code: 2, names: true });
      },
    );
  });

  test("leaf 1.1 met: its task completes at the first try", () => {
    const files = planned("met");
    return claudeSession("claude-task", files, [createTask, completeTask], async ({ root, mock, env, captured }) => {
      const t = await turnOf(claudeArgv(), root, env, mock);
      const results = toolResults(t.requests);
      expect({ code: t.code, refused: /G1|kbz/.test(results.toolu_mock_2 ?? "kbz: no result") }).toEqual({
        code: 0,
        refused: false,
      });
      const tasks = captured().filter((p) => JSON.parse(p).hook_event_name === "TaskCompleted");
      expect(tasks.length).toBe(1);
      const r = sameOnBothRoutes("claude", tasks[0]!, root, files);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    });
  });
});

/** Runs `act` once `ready()` holds, polling while the host's turn goes on; stops polling when `done` resolves. */
async function whenReady(ready: () => boolean, act: () => void, done: Promise<unknown>): Promise<void> {
  let over = false;
  void done.finally(() => (over = true));
  while (!over) {
    if (ready()) return act();
    await Bun.sleep(250);
  }
}

describe.skipIf(!available)(
  "Claude Code 2.1.332 Stop with background_tasks end to end: a wave's worker still running",
  () => {
    // The agent starts leaf 1.1's worker as a background shell, then says it is done. The worker
    // runs until the test lets it finish (a file), at most five minutes; Claude Code's -p run waits
    // for its background shells before it exits.
    const worker = {
      name: "Bash",
      input: {
        command: "for i in $(seq 300); do [ -e .worker-done ] && break; sleep 1; done",
        description: "worker for leaf 1.1",
        run_in_background: true,
      },
    };
    // Stop payloads kbz has received so far (one still being written is not counted yet).
    const stopsOf = (captured: () => string[]) =>
      captured().filter((p) => {
        try {
          return JSON.parse(p).hook_event_name === "Stop";
        } catch {
          return false;
        }
      });
    const finishWorker = (root: string) => fs.existsSync(root) && fs.writeFileSync(path.join(root, ".worker-done"), "");
    // Whatever happened: the worker is let finish and the turn awaited before the mock stops.
    const stopWorker = (running: () => Promise<Turn | null>) => async (root: string) => {
      finishWorker(root);
      await running().catch(() => null);
    };

    test("leaf 1.1 unmet and its worker running: six blocks say what it waits on, naming the gate; the seventh stop goes through", () => {
      const files = planned("unmet");
      let running: Promise<Turn | null> = Promise.resolve(null);
      return claudeSession(
        "claude-bg",
        files,
        [worker],
        async ({ root, mock, env, captured }) => {
          running = turnOf(claudeArgv(), root, env, mock);
          // The worker finishes a few seconds after the seventh stop reached kbz (which lets it through).
          await whenReady(
            () => stopsOf(captured).length >= 7,
            () => setTimeout(() => finishWorker(root), 5000),
            running,
          );
          const t = (await running)!;
          const turns = claudeTurns(t.requests);
          const waiting = turns.map(
            (r) => r.body.includes("waiting on wave w1 (leaf 1.1)") && r.body.includes("leaf-1.1:G1"),
          );
          expect({ code: t.code, waiting: waiting.slice(0, 8) }).toEqual({
            code: 0,
            waiting: [false, false, true, true, true, true, true, true],
          });
          const stops = stopsOf(captured);
          expect(JSON.parse(stops[0]!).background_tasks).toContainEqual(
            expect.objectContaining({ description: "worker for leaf 1.1", status: "running" }),
          );
          expect(sameOnBothRoutes("claude", stops[0]!, root, files).stdout).toContain("waiting on wave w1 (leaf 1.1)");
        },
        stopWorker(() => running),
      );
    });

    test("every gate met (no open wave), a shell still running in the background: the first stop goes through", () => {
      const files = { "GATES.md": allMet };
      let running: Promise<Turn | null> = Promise.resolve(null);
      return claudeSession(
        "claude-bg",
        files,
        [worker],
        async ({ root, mock, env, captured }) => {
          running = turnOf(claudeArgv(), root, env, mock);
          await whenReady(
            () => stopsOf(captured).length > 0,
            () => setTimeout(() => finishWorker(root), 3000),
            running,
          );
          const t = (await running)!;
          expect({
            code: t.code,
            reason: t.requests.some((r) => r.body.includes("item(s) need work") || r.body.includes("waiting on wave")),
          }).toEqual({ code: 0, reason: false });
          const stops = stopsOf(captured);
          expect(JSON.parse(stops[0]!).background_tasks).toContainEqual(
            expect.objectContaining({ description: "worker for leaf 1.1", status: "running" }),
          );
          expect(sameOnBothRoutes("claude", stops[0]!, root, files).stdout).toBe("");
        },
        stopWorker(() => running),
      );
    });
  },
);

// ---------------------------------------------------------------------------------------------
// GitHub Copilot CLI 1.0.102 subagentStop: the agent launches a sub-agent (its `task` tool); the
// sub-agent's stop is judged by kbz, and a block continues the sub-agent.

const SUB_PROMPT = "Check the repository for leaf work.";
const launch = {
  name: "task",
  input: { agent_type: "explore", description: "check the repository", prompt: SUB_PROMPT, name: "checker" },
};
const copilotArgv = () => [
  ...hostCommand("copilot-current"),
  "-p",
  "Finish the task in this repository.",
  "--trust-folder",
  "-s",
];
/** The sub-agent's own requests: its conversation starts with the prompt the agent gave it. */
const subagentTurns = (requests: LoggedRequest[]) =>
  requests.filter((r) => {
    if (!(r.method === "POST" && r.path.endsWith("/v1/messages"))) return false;
    try {
      const first = JSON.parse(r.body).messages?.[0];
      return JSON.stringify(first?.content ?? "").includes(SUB_PROMPT);
    } catch {
      return false;
    }
  });
/**
 * The subagentStop payloads among what Copilot sent kbz: the parent's session, the sub-agent's id.
 * (Copilot 1.0.102 also runs the agentStop hooks for the sub-agent's own session, sessionId ==
 * agentId, at the same moment: each sub-agent stop reaches kbz twice, under two session keys
 * that count in step.)
 */
const subagentStops = (captured: () => string[]) =>
  captured().filter((p) => {
    const o = JSON.parse(p);
    return typeof o.agentId === "string" && o.sessionId !== o.agentId;
  });

describe.skipIf(!available)("Copilot CLI 1.0.102 subagentStop end to end", () => {
  const session = <T>(files: Record<string, string>, body: Parameters<typeof hostSession<T>>[1]) =>
    hostSession({ agent: "copilot", name: "copilot-sub", files, toolUse: [launch], env: copilotEnv }, body);

  test("an unmet gate: the sub-agent is sent kbz's reason six times, then its seventh stop goes through", () =>
    session({ "GATES.md": unmet }, async ({ root, mock, env, captured }) => {
      const t = await turnOf(copilotArgv(), root, env, mock);
      expect({ code: t.code, carrying: carrying(subagentTurns(t.requests)) }).toEqual({
        code: 0,
        carrying: [false, true, true, true, true, true, true],
      });
      const stops = subagentStops(captured);
      expect(stops.length).toBe(7);
      expect(sameOnBothRoutes("copilot", stops[0]!, root, { "GATES.md": unmet }).stdout).toContain(REASON);
    }));

  test("all gates met: the sub-agent's first stop goes through", () =>
    session({ "GATES.md": allMet }, async ({ root, mock, env, captured }) => {
      const t = await turnOf(copilotArgv(), root, env, mock);
      expect({
        code: t.code,
        sub: subagentTurns(t.requests).length,
        reason: t.requests.some((r) => r.body.includes("item(s) need work")),
      }).toEqual({ code: 0, sub: 1, reason: false });
      const stops = subagentStops(captured);
      expect(stops.length).toBe(1);
      expect(sameOnBothRoutes("copilot", stops[0]!, root, { "GATES.md": allMet }).stdout).toBe("");
    }));
});
