// A small mock model server on 127.0.0.1 for the host end-to-end tests: it speaks just enough of
// the Anthropic Messages API (Claude Code), the OpenAI Responses API (Codex) and the Gemini API
// (Gemini CLI) for a headless turn in which the model answers "Done." and never calls a tool.
// Every request is logged (method, path, body), so a test can see what the host sent back to the
// model after kbz blocked its stop.
export interface LoggedRequest {
  method: string;
  path: string;
  body: string;
}

export interface MockModel {
  url: string;
  requests: LoggedRequest[];
  stop(): void;
}

const REPLY = "Done.";

function sse(events: [string | null, unknown][]): Response {
  const text = events.map(([event, data]) => (event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/** A tool call the mock makes once, on the agent's first request that offers the tool (then it answers "Done."). */
export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
}

function offers(body: Record<string, unknown>, name: string): boolean {
  return Array.isArray(body.tools) && body.tools.some((t) => t && typeof t === "object" && (t as { name?: unknown }).name === name);
}

function anthropicToolUse(body: Record<string, unknown>, tool: ToolUse): Response {
  const model = String(body.model ?? "claude-mock");
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: "msg_mock_tool", type: "message", role: "assistant", model, content: [] as unknown[], stop_reason: null, stop_sequence: null, usage };
  return sse([
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_mock_1", name: tool.name, input: {} } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.input) } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 2 } }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

function anthropic(body: Record<string, unknown>, text: string, tool: ToolUse | null): Response {
  if (tool && body.stream && offers(body, tool.name) && !text.includes('"tool_result"')) return anthropicToolUse(body, tool);
  const model = String(body.model ?? "claude-mock");
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: "msg_mock", type: "message", role: "assistant", model, content: [] as unknown[], stop_reason: null, stop_sequence: null, usage };
  if (!body.stream) {
    return Response.json({ ...message, content: [{ type: "text", text: REPLY }], stop_reason: "end_turn" });
  }
  return sse([
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: REPLY } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

let seq = 0;
function responses(body: Record<string, unknown>): Response {
  const id = `resp_mock_${++seq}`;
  const item = { id: `msg_mock_${seq}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: REPLY, annotations: [] }] };
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: String(body.model ?? "mock"), status: "in_progress", output: [] as unknown[] };
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };
  return sse([
    ["response.created", { type: "response.created", response: base }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } }],
    ["response.output_text.delta", { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: REPLY }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response: { ...base, status: "completed", output: [item], usage } }],
  ]);
}

function gemini(path: string): Response {
  const chunk = {
    candidates: [{ content: { role: "model", parts: [{ text: REPLY }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    modelVersion: "gemini-mock",
  };
  if (path.endsWith(":countTokens")) return Response.json({ totalTokens: 10 });
  if (path.includes(":streamGenerateContent")) return sse([[null, chunk]]);
  return Response.json(chunk);
}

export function startMockModel(opts: { toolUse?: ToolUse } = {}): MockModel {
  const requests: LoggedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      requests.push({ method: req.method, path: url.pathname, body: text });
      let body: Record<string, unknown> = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {}
      const p = url.pathname;
      if (p.endsWith("/messages/count_tokens")) return Response.json({ input_tokens: 10 });
      if (p.endsWith("/messages")) return anthropic(body, text, opts.toolUse ?? null);
      if (p.endsWith("/responses")) return responses(body);
      if (p.includes("/models/") && p.includes(":")) return gemini(p);
      if (p.endsWith("/models")) return Response.json({ data: [], models: [] });
      return Response.json({}, { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
