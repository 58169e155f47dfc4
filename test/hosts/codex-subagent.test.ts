// End to end, issue 32: Codex 0.171.0 SubagentStop with the real CLI. With `[features].multi_agent`
// Codex offers sub-agents as the Responses namespace `multi_agent_v1`; the mock model here calls
// spawn_agent (a sub-agent with its own task), then wait_agent on the id Codex returned, then
// answers "Done.". The sub-agent's stop runs kbz's SubagentStop hook: a block continues the
// sub-agent. Each case replays the real SubagentStop payload through the binary and the Node 16
// fallback (same bytes, same exit).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { needs } from "../helpers/needs.ts";
import {
  allMet,
  capturePayloads,
  codexEnv,
  hostCommand,
  installFor,
  REASON,
  sameOnBothRoutes,
  setupRepo,
  turnOf,
  unmet,
  writeCodexConfig,
} from "./harness.ts";
import type { LoggedRequest, MockModel } from "./mock-model.ts";

setDefaultTimeout(300_000);

const available = needs("hosts");
const TASK = "Finish the task in this repository.";
const SUB = "Check the repository for leaf work.";

function sse(events: [string, unknown][]): Response {
  return new Response(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
}

let seq = 0;
function reply(body: Record<string, unknown>, item: Record<string, unknown>): Response {
  const id = `resp_sub_${++seq}`;
  const base = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: String(body.model ?? "mock"),
    status: "in_progress",
    output: [] as unknown[],
  };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 2,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 12,
  };
  return sse([
    ["response.created", { type: "response.created", response: base }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    [
      "response.completed",
      { type: "response.completed", response: { ...base, status: "completed", output: [item], usage } },
    ],
  ]);
}

/** Whether a request is the parent's (its conversation holds the user's task) rather than the sub-agent's. */
const isParent = (text: string) => text.includes(TASK);

/** A Responses mock for one parent that spawns one sub-agent and waits for it; everything else answers "Done.". */
function startSubagentMock(): MockModel {
  const requests: LoggedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "GET" ? "" : await req.text();
      requests.push({ method: req.method, path: url.pathname, body: text });
      if (!url.pathname.endsWith("/responses")) return Response.json({ data: [], models: [] });
      const body = JSON.parse(text) as { input?: { type?: string; output?: unknown }[] };
      const outputs = (body.input ?? []).filter((i) => i.type === "function_call_output");
      if (isParent(text) && outputs.length === 0) {
        return reply(body, {
          type: "function_call",
          id: "fc_spawn",
          call_id: "call_spawn",
          name: "spawn_agent",
          namespace: "multi_agent_v1",
          arguments: JSON.stringify({ message: SUB }),
          status: "completed",
        });
      }
      if (isParent(text) && outputs.length === 1) {
        const raw = String(outputs[0]!.output ?? "");
        let target = raw;
        try {
          const o = JSON.parse(raw);
          target = o.agent_id ?? o.id ?? raw;
        } catch {}
        return reply(body, {
          type: "function_call",
          id: "fc_wait",
          call_id: "call_wait",
          name: "wait_agent",
          namespace: "multi_agent_v1",
          arguments: JSON.stringify({ targets: [target], timeout_ms: 600000 }),
          status: "completed",
        });
      }
      return reply(body, {
        id: `msg_sub_${seq}`,
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Done.", annotations: [] }],
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

function prepare(home: string, root: string, mock: MockModel): Record<string, string> {
  writeCodexConfig(home, mock, root, ["[features]", "multi_agent = true"]);
  return codexEnv(home);
}

const argv = () => [
  ...hostCommand("codex-current"),
  "exec",
  "--skip-git-repo-check",
  "--dangerously-bypass-hook-trust",
  TASK,
];
const subagentTurns = (requests: LoggedRequest[]) =>
  requests.filter((r) => r.method === "POST" && r.path.endsWith("/responses") && !isParent(r.body));
const subagentStops = (captured: () => string[]) =>
  captured().filter((p) => JSON.parse(p).hook_event_name === "SubagentStop");

async function run(files: Record<string, string>) {
  const { root, home, mock: plain } = setupRepo("codex-sub", files);
  plain.stop(); // this test's model needs function calls: its own mock below
  const mock = startSubagentMock();
  const env = prepare(home, root, mock);
  installFor("codex", root, env);
  const captured = capturePayloads(home);
  try {
    const t = await turnOf(argv(), root, env, mock);
    return { root, t, stops: subagentStops(captured) };
  } finally {
    mock.stop();
  }
}

describe.skipIf(!available)("Codex 0.171.0 SubagentStop end to end (a sub-agent from spawn_agent)", () => {
  test("an unmet gate: the sub-agent is sent kbz's reason six times, then its seventh stop goes through", async () => {
    const { root, t, stops } = await run({ "GATES.md": unmet });
    const carrying = subagentTurns(t.requests).map((r) => r.body.includes(REASON) && r.body.includes("need work"));
    expect({ code: t.code, carrying }).toEqual({ code: 0, carrying: [false, true, true, true, true, true, true] });
    expect(stops.length).toBe(7);
    expect(JSON.parse(stops[0]!)).toMatchObject({ hook_event_name: "SubagentStop", cwd: root });
    expect(sameOnBothRoutes("codex", stops[0]!, root, { "GATES.md": unmet }).stdout).toContain(REASON);
  });

  test("all gates met: the sub-agent's first stop goes through", async () => {
    const { root, t, stops } = await run({ "GATES.md": allMet });
    expect({
      code: t.code,
      sub: subagentTurns(t.requests).length,
      reason: t.requests.some((r) => r.body.includes("item(s) need work")),
    }).toEqual({ code: 0, sub: 1, reason: false });
    expect(stops.length).toBe(1);
    expect(sameOnBothRoutes("codex", stops[0]!, root, { "GATES.md": allMet }).stdout).toBe("");
  });
});
