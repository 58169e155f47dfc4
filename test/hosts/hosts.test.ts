// End to end with the real agent hosts (issues 21, 32): Claude Code, Codex, Gemini CLI, GitHub Copilot CLI and Qwen Code from npm
// (test/hosts/package.json, installed by .ci/run with `npm install --prefix test/hosts`), each pointed at
// the mock model server in mock-model.ts on 127.0.0.1, in a fresh HOME. For each host, at its
// current version and the oldest version the README supports: `kbz hook install --agent NAME`,
// then one headless turn in a repository with an unmet gate. From the mock's request log: the
// host sent kbz's reason, naming the gate, back to the model after each of six blocks, and the
// seventh stop went through (the host ended the turn on its own); with every gate met the first
// stop goes through (one model request, no reason). The mock model only ever answers "Done.".
//
// Cursor is not here: its agent CLI (cursor-agent) is not published to npm, and it runs the model
// only through Cursor's own service after a login, so it cannot run headless offline against a
// mock. Cursor is covered by its documented payloads and output schema (test/hook/hosts.test.ts).
// Qwen Code runs on the Node 22 pinned in test/hosts; its real payloads are replayed through the
// binary and the Node 16 fallback. OpenCode (a server with a plugin, not a one-shot CLI), and the
// sub-agent, task and background-work events are in completion.test.ts.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";
import { startMockModel, type LoggedRequest, type MockModel } from "./mock-model.ts";
import {
  allMet,
  baseEnv,
  claudeEnv,
  codexEnv,
  copilotEnv,
  counters,
  HOST_PATH,
  hostCommand,
  hostSession,
  installFor,
  node22,
  REASON,
  sameOnBothRoutes,
  setupRepo,
  turnOf,
  unmet,
  writeCodexConfig,
  type Turn,
} from "./harness.ts";

setDefaultTimeout(300_000);

const temp = tempDir;

interface Host {
  name: "claude" | "codex" | "gemini" | "copilot" | "qwen";
  /** Keep what the host sent kbz and replay it through the binary and the Node 16 fallback (hosts added by issue 32). */
  capture?: boolean;
  versions: { label: string; alias: string }[];
  /** Requests of the agent's own turn (not titles, routing or token counts). */
  isTurn(r: LoggedRequest): boolean;
  prepare(home: string, mock: MockModel, root: string): void;
  argv(alias: string): string[];
  env(home: string, mock: MockModel): Record<string, string>;
}

const codexExec = (alias: string) => [...hostCommand(alias), "exec", "--skip-git-repo-check"];

const HOSTS: Host[] = [
  {
    name: "claude",
    versions: [
      { label: "2.1.332", alias: "claude-current" },
      { label: "2.1.100", alias: "claude-oldest" },
    ],
    isTurn: (r) => r.method === "POST" && r.path.endsWith("/v1/messages"),
    prepare: () => {},
    argv: (alias) => [...hostCommand(alias), "-p", "Finish the task in this repository."],
    env: claudeEnv,
  },
  {
    name: "codex",
    versions: [
      { label: "0.171.0", alias: "codex-current" },
      { label: "0.143.0", alias: "codex-oldest" },
    ],
    isTurn: (r) => r.method === "POST" && r.path.endsWith("/v1/responses"),
    // A user who opened the repository in Codex once and trusted it.
    prepare: (home, mock, root) => writeCodexConfig(home, mock, root),
    // Codex runs a hook only after the user trusted it in /hooks; `codex exec` has no review UI
    // and skips an untrusted hook silently, so a headless run passes the one-run bypass.
    argv: (alias) => [...codexExec(alias), "--dangerously-bypass-hook-trust", "Finish the task in this repository."],
    env: (home) => codexEnv(home),
  },
  {
    name: "gemini",
    versions: [
      { label: "0.61.0", alias: "gemini-current" },
      { label: "0.34.0", alias: "gemini-oldest" },
    ],
    isTurn: (r) => r.method === "POST" && r.path.includes(":streamGenerateContent"),
    prepare: (home) => {
      writeTree(home, {
        ".gemini/settings.json": JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          general: {
            disableAutoUpdate: true,
            disableUpdateNag: true,
            enableAutoUpdate: false,
            enableAutoUpdateNotification: false,
          },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
        }),
      });
    },
    // A named model: "auto" would first ask a classifier model for a route.
    argv: (alias) => [...hostCommand(alias), "-m", "gemini-2.5-flash", "-p", "Finish the task in this repository."],
    env: (home, mock) => ({
      ...baseEnv(home),
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: mock.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    }),
  },
  {
    name: "copilot",
    versions: [{ label: "1.0.102", alias: "copilot-current" }],
    isTurn: (r) => r.method === "POST" && r.path.endsWith("/v1/messages"),
    prepare: () => {},
    // --trust-folder: this one prompt-mode session trusts the repository, so its .github/hooks load.
    argv: (alias) => [...hostCommand(alias), "-p", "Finish the task in this repository.", "--trust-folder", "-s"],
    env: copilotEnv,
  },
  {
    name: "qwen",
    capture: true,
    versions: [{ label: "0.24.4", alias: "qwen-current" }],
    isTurn: (r) => r.method === "POST" && r.path.endsWith("/v1/chat/completions"),
    // Qwen Code's OpenAI-compatible auth, chosen in the user's settings (no login dialog in -p mode);
    // no managed memory, whose extraction sub-agent would ask the model after the turn.
    prepare: (home) => {
      writeTree(home, {
        ".qwen/settings.json": JSON.stringify({
          security: { auth: { selectedType: "openai" } },
          general: { disableAutoUpdate: true },
          privacy: { usageStatisticsEnabled: false },
          memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
        }),
      });
    },
    // Qwen Code 0.24.4 declares node >= 22: it runs on the Node 22 pinned in test/hosts.
    argv: (alias) => [...hostCommand(alias, node22()), "-p", "Finish the task in this repository."],
    env: (home, mock) => ({
      ...baseEnv(home),
      OPENAI_API_KEY: "dummy",
      OPENAI_BASE_URL: `${mock.url}/v1`,
      OPENAI_MODEL: "mock-model",
    }),
  },
];

/** One headless turn of `host` in `root`, bounded; the mock's log of what the host asked. */
function turn(
  host: Host,
  alias: string,
  root: string,
  home: string,
  mock: MockModel,
  argv = host.argv(alias),
): Promise<Turn> {
  return turnOf(argv, root, host.env(home, mock), mock);
}

function setup(host: Host, files: Record<string, string>) {
  const { root, home, mock } = setupRepo(host.name, files);
  host.prepare(home, mock, root);
  return { root, home, mock };
}

function install(host: Host, root: string, home: string, mock: MockModel): void {
  installFor(host.name, root, host.env(home, mock));
}

// Installed by .ci/run (npm install --prefix test/hosts --ignore-scripts); elsewhere one line says how.
const available = needs("hosts");

for (const host of HOSTS) {
  for (const v of host.versions) {
    describe.skipIf(!available)(`${host.name} ${v.label} end to end`, () => {
      const session = <T>(files: Record<string, string>, body: Parameters<typeof hostSession<T>>[1]) =>
        hostSession(
          { agent: host.name, name: host.name, files, env: host.env, prepare: host.prepare, capture: !!host.capture },
          body,
        );

      test("an unmet gate: the host sends kbz's reason back six times, then the seventh stop goes through", () =>
        session({ "GATES.md": unmet }, async ({ root, mock, env, captured }) => {
          const t = await turnOf(host.argv(v.alias), root, env, mock);
          const turns = t.requests.filter(host.isTurn);
          const carrying = turns.map((r) => r.body.includes(REASON) && r.body.includes("need work"));
          expect({ code: t.code, carrying }).toEqual({
            code: 0,
            carrying: [false, true, true, true, true, true, true],
          });
          expect(turns.some((r) => r.body.includes("GATES:G2"))).toBe(false);
          expect(counters(root)).toEqual([7]);
          if (host.capture) {
            // The host's own payload, replayed: the binary and the Node 16 fallback answer alike.
            const payloads = captured();
            expect(payloads.length).toBe(7);
            const r = sameOnBothRoutes(host.name, payloads[0]!, root, { "GATES.md": unmet });
            expect(r.stdout).toContain(REASON);
          }
        }));

      test("all gates met: the first stop goes through", () =>
        session({ "GATES.md": allMet }, async ({ root, mock, env, captured }) => {
          const t = await turnOf(host.argv(v.alias), root, env, mock);
          const turns = t.requests.filter(host.isTurn);
          expect({
            code: t.code,
            turns: turns.length,
            reason: turns.some((r) => r.body.includes("need work")),
          }).toEqual({ code: 0, turns: 1, reason: false });
          if (host.capture) {
            const payloads = captured();
            expect(payloads.length).toBe(1);
            expect(sameOnBothRoutes(host.name, payloads[0]!, root, { "GATES.md": allMet }).stdout).toBe("");
          }
        }));
    });
  }
}

describe.skipIf(!available)("why the command string: Claude Code 2.1.100 and the exec form", () => {
  test("a handler written as command + args (kbz before issue 21) never blocks on 2.1.100: it runs the bare program", async () => {
    const host = HOSTS[0]!;
    const { root, home, mock } = setup(host, { "GATES.md": unmet });
    try {
      writeTree(root, {
        ".claude/settings.local.json": JSON.stringify({
          hooks: {
            Stop: [
              { hooks: [{ type: "command", command: BIN, args: ["hook", "stop", "--unlazy-hook-v2"], timeout: 20 }] },
            ],
          },
        }),
      });
      const t = await turn(host, "claude-oldest", root, home, mock);
      const turns = t.requests.filter(host.isTurn);
      expect({ code: t.code, turns: turns.length, reason: turns.some((r) => r.body.includes("need work")) }).toEqual({
        code: 0,
        turns: 1,
        reason: false,
      });
    } finally {
      mock.stop();
    }
  });
});

interface CodexHook {
  key: string;
  command: string;
  currentHash: string;
  trustStatus: string;
}

/** Codex's own view of the hooks for `cwd`: `hooks/list` over its app-server's JSON-RPC on stdio. */
async function codexHooks(alias: string, env: Record<string, string>, cwd: string): Promise<CodexHook[]> {
  const [cmd, ...args] = hostCommand(alias);
  const child = spawn(cmd!, [...args, "app-server"], { env, stdio: ["pipe", "pipe", "ignore"], detached: true });
  const send = (o: unknown) => child.stdin.write(JSON.stringify(o) + "\n");
  try {
    return await new Promise<CodexHook[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("codex app-server did not answer hooks/list within 60 s")),
        60_000,
      );
      let buf = "";
      child.stdout.on("data", (c) => {
        buf += c;
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          const msg = JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          if (msg.id === 1) {
            send({ jsonrpc: "2.0", method: "initialized" });
            send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [cwd] } });
          } else if (msg.id === 2) {
            clearTimeout(timer);
            resolve(msg.result.data.flatMap((d: { hooks: CodexHook[] }) => d.hooks));
          }
        }
      });
      send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "kbz-test", version: "1" } } });
    });
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
}

function kbzStatus(root: string, env: Record<string, string>): { trust: string | null; state: string } {
  const r = spawnSync(BIN, ["hook", "status", "--agent", "codex", "--json"], { cwd: root, env, encoding: "utf8" });
  const place = JSON.parse(r.stdout).places.find((p: { location: string }) => p.location === "shared");
  return { trust: place.trust, state: place.state };
}

describe.skipIf(!available)("Codex 0.171.0: hook trust, with no bypass flag", () => {
  const host = HOSTS[1]!;
  const alias = "codex-current";
  // Built when a test runs: bun evaluates a skipped describe's body too, and without the host
  // packages installed hostCommand() throws.
  const plainExec = () => [...codexExec(alias), "Finish the task in this repository."];

  test("untrusted: codex exec skips kbz's hook silently, and kbz hook status says it needs review, as Codex does", async () => {
    const { root, home, mock } = setup(host, { "GATES.md": unmet });
    try {
      install(host, root, home, mock);
      const env = host.env(home, mock);
      const hooks = await codexHooks(alias, env, root);
      expect(hooks.map((h) => [h.key, h.trustStatus]).sort()).toEqual([
        [`${root}/.codex/hooks.json:stop:0:0`, "untrusted"],
        [`${root}/.codex/hooks.json:subagent_stop:0:0`, "untrusted"],
      ]);
      expect(kbzStatus(root, env)).toEqual({ trust: "needs-review", state: "installed" });
      const t = await turn(host, alias, root, home, mock, plainExec());
      const turns = t.requests.filter(host.isTurn);
      expect({ code: t.code, turns: turns.length, reason: turns.some((r) => r.body.includes("need work")) }).toEqual({
        code: 0,
        turns: 1,
        reason: false,
      });
    } finally {
      mock.stop();
    }
  });

  test("trusted the way /hooks records it: codex exec runs the guard (six blocks, then release) and kbz hook status says trusted", async () => {
    const { root, home, mock } = setup(host, { "GATES.md": unmet });
    try {
      install(host, root, home, mock);
      const env = host.env(home, mock);
      // Both of kbz's hooks (Stop and SubagentStop), as /hooks records a review of each.
      for (const hook of await codexHooks(alias, env, root)) {
        fs.appendFileSync(
          path.join(home, "codex", "config.toml"),
          `[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}\n`,
        );
      }
      expect((await codexHooks(alias, env, root)).map((h) => h.trustStatus)).toEqual(["trusted", "trusted"]);
      expect(kbzStatus(root, env)).toEqual({ trust: "trusted", state: "installed" });
      const t = await turn(host, alias, root, home, mock, plainExec());
      const carrying = t.requests
        .filter(host.isTurn)
        .map((r) => r.body.includes(REASON) && r.body.includes("need work"));
      expect({ code: t.code, carrying }).toEqual({ code: 0, carrying: [false, true, true, true, true, true, true] });
    } finally {
      mock.stop();
    }
  });
});

describe.skipIf(!available)("Claude Code 2.1.332: the deny rules kbz hook install writes (issue 32)", () => {
  const host = HOSTS[0]!;
  const approve = { name: "Bash", input: { command: "kbz check --approve", description: "approve the gates" } };
  // The model asks to run `kbz check --approve` once; Bash is allowed on the command line, so only a deny rule can stop it.
  const argv = () => [
    ...hostCommand("claude-current"),
    "-p",
    "Finish the task in this repository.",
    "--allowedTools",
    "Bash",
  ];
  const withKbz = (env: Record<string, string>) => ({
    ...env,
    PATH: `${path.dirname(BIN)}${path.delimiter}${env.PATH}`,
  });
  const toolResult = (t: Turn) =>
    t.requests
      .filter(host.isTurn)
      .map((r) => r.body)
      .find((b) => b.includes('"tool_result"')) ?? "";

  test("after kbz hook install the agent cannot run kbz check --approve; after a person's --uninstall it can", async () => {
    const root = temp("kbz-e2e-deny-");
    const home = temp("kbz-e2e-home-");
    writeTree(root, { "GATES.md": unmet });
    spawnSync("git", ["init", "-q"], { cwd: root });
    let mock = startMockModel({ toolUse: approve });
    try {
      install(host, root, home, mock);
      const h = { ...host, env: (hm: string, m: MockModel) => withKbz(host.env(hm, m)) };
      const denied = toolResult(await turn(h, "claude-current", root, home, mock, argv()));
      expect(denied).toContain("denied");
      expect(denied).not.toContain("GATES:G1");
      mock.stop();
      // The person removes the guard from a terminal (a pseudo-terminal, no agent host's markers).
      const person = spawnSync("script", ["-qec", `${BIN} hook install --uninstall`, "/dev/null"], {
        cwd: root,
        env: { PATH: HOST_PATH, HOME: home, TERM: "xterm" },
        encoding: "utf8",
      });
      expect(person.status).toBe(0);
      mock = startMockModel({ toolUse: approve });
      const ran = toolResult(await turn(h, "claude-current", root, home, mock, argv()));
      expect(ran).not.toContain("has been denied");
      expect(ran).toContain("GATES:G1");
    } finally {
      mock.stop();
    }
  });
});
