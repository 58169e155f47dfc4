// A small mock model server on 127.0.0.1 for the host end-to-end tests: it speaks just enough of
// the Anthropic Messages API (Claude Code, Copilot CLI), the OpenAI Responses API (Codex), OpenAI
// Chat Completions (Qwen Code, OpenCode) and the Gemini API (Gemini CLI) for a headless turn in
// which the model answers "Done." (or makes one scripted tool call first).
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
  const text = events
    .map(([event, data]) => (event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(data)}\n\n`)
    .join("");
  return new Response(text, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/**
 * A tool call the mock makes: with a list, the n-th call goes out on the first request that holds
 * n - 1 tool results and offers that tool; after the last, the mock answers "Done.".
 */
export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
}

function offers(body: Record<string, unknown>, name: string): boolean {
  return (
    Array.isArray(body.tools) &&
    body.tools.some((t) => t && typeof t === "object" && (t as { name?: unknown }).name === name)
  );
}

/** How many tool results a request carries back (its whole conversation so far). */
function toolResults(text: string, marker: RegExp): number {
  return text.match(marker)?.length ?? 0;
}

/** The scripted tool call this request should get, if any. */
function nextTool(
  body: Record<string, unknown>,
  text: string,
  tools: ToolUse[],
  marker: RegExp,
  offered = offers,
): { tool: ToolUse; n: number } | null {
  const n = toolResults(text, marker);
  const tool = tools[n];
  return tool && body.stream && offered(body, tool.name) ? { tool, n } : null;
}

function anthropicToolUse(body: Record<string, unknown>, tool: ToolUse, n: number): Response {
  const model = String(body.model ?? "claude-mock");
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: "msg_mock_tool",
    type: "message",
    role: "assistant",
    model,
    content: [] as unknown[],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  return sse([
    ["message_start", { type: "message_start", message }],
    [
      "content_block_start",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: `toolu_mock_${n + 1}`, name: tool.name, input: {} },
      },
    ],
    [
      "content_block_delta",
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.input) },
      },
    ],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 2 } },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

function anthropic(body: Record<string, unknown>, text: string, tools: ToolUse[]): Response {
  const next = nextTool(body, text, tools, /"type":"tool_result"/g);
  if (next) return anthropicToolUse(body, next.tool, next.n);
  const model = String(body.model ?? "claude-mock");
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model,
    content: [] as unknown[],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  if (!body.stream) {
    return Response.json({ ...message, content: [{ type: "text", text: REPLY }], stop_reason: "end_turn" });
  }
  return sse([
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: REPLY } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

let seq = 0;
function responses(body: Record<string, unknown>): Response {
  const id = `resp_mock_${++seq}`;
  const item = {
    id: `msg_mock_${seq}`,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: REPLY, annotations: [] }],
  };
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
    [
      "response.output_item.added",
      { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } },
    ],
    [
      "response.output_text.delta",
      { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: REPLY },
    ],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    [
      "response.completed",
      { type: "response.completed", response: { ...base, status: "completed", output: [item], usage } },
    ],
  ]);
}

let chatSeq = 0;
function chat(body: Record<string, unknown>): Response {
  const id = `chatcmpl-mock-${++chatSeq}`;
  const model = String(body.model ?? "mock");
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
  const message = { role: "assistant", content: REPLY };
  if (!body.stream) {
    return Response.json({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: "stop" }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const text = [
    chunk({ role: "assistant", content: "" }, null),
    chunk({ content: REPLY }, null),
    chunk({}, "stop", { usage }),
  ]
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .join("");
  return new Response(text + "data: [DONE]\n\n", {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
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

export function startMockModel(opts: { toolUse?: ToolUse | ToolUse[] } = {}): MockModel {
  const requests: LoggedRequest[] = [];
  const tools = opts.toolUse === undefined ? [] : Array.isArray(opts.toolUse) ? opts.toolUse : [opts.toolUse];
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
      if (p.endsWith("/messages")) return anthropic(body, text, tools);
      if (p.endsWith("/responses")) return responses(body);
      if (p.endsWith("/chat/completions")) return chat(body);
      if (p.includes("/models/") && p.includes(":")) return gemini(p);
      if (p.endsWith("/models")) return Response.json({ data: [], models: [] });
      return Response.json({}, { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
