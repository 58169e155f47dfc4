// What the host end-to-end tests share (hosts.test.ts, completion.test.ts, codex-subagent.test.ts,
// doctor.test.ts): where the host CLIs from npm live (test/hosts/node_modules, pinned in
// package.json here), the Node each needs, each host's environment against the mock model, one
// session's setup, one bounded headless turn, the fixtures' ledgers, and the capture of what a
// real host sent kbz's hook, replayed through the binary and the Node 16 fallback.
import { expect } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { ledger, stopHook, type HookRun } from "../helpers/hook.ts";
import type { LoggedRequest, MockModel } from "./mock-model.ts";
import { startMockModel, type ToolUse } from "./mock-model.ts";

export const MODULES = path.join(REPO, "test", "hosts", "node_modules");
export const HOST_TURN_MS = 240_000;
export const REASON = "GATES:G1";

/**
 * A Node for the host CLIs (Claude Code's JS builds need 18+, Gemini CLI 20+). `npm test` puts
 * node_modules/.bin first on PATH, where the `node16` devDependency (for the fallback hook's tests)
 * answers to `node`; the hosts get the first Node >= 20 on PATH outside any node_modules.
 */
export const HOST_PATH = (process.env.PATH ?? "/usr/bin:/bin")
  .split(path.delimiter)
  .filter((d) => d !== "" && !d.split(path.sep).includes("node_modules"))
  .join(path.delimiter);

function nodeVersion(candidate: string): number {
  const v = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
  return /^v(\d+)\./.test(v) ? Number(v.slice(1).split(".")[0]) : 0;
}

export const NODE = (() => {
  for (const dir of HOST_PATH.split(path.delimiter)) {
    const candidate = path.join(dir, "node");
    if (nodeVersion(candidate) >= 20) return candidate;
  }
  return null;
})();

/**
 * Node 22 for Qwen Code (it declares node >= 22): the platform package `node-<os>-<arch>` that
 * npm's `node` package would fetch in its install script (CI installs with --ignore-scripts), an
 * optional dependency in test/hosts/package.json.
 */
export function node22(): string {
  const candidate = path.join(MODULES, `node22-${process.platform}-${process.arch}`, "bin", "node");
  if (nodeVersion(candidate) !== 22)
    throw new Error(
      `no Node 22 at ${candidate}: run npm install --prefix test/hosts --ignore-scripts (node22-${process.platform}-${process.arch})`,
    );
  return candidate;
}

/** The command that starts one installed host package: [program, ...leading args]. */
export function hostCommand(alias: string, node: string | null = NODE): string[] {
  const pkgDir = path.join(MODULES, alias);
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin as Record<string, string>)[0]!;
  if (bin.endsWith(".exe")) {
    // Claude Code from 2.1.1xx on and OpenCode ship a native binary in a platform package; their
    // postinstall (not run here: --ignore-scripts) only copies it over this placeholder.
    const native =
      pkg.name === "opencode-ai"
        ? [`opencode-${process.platform}-${process.arch}`, "opencode"]
        : [`@anthropic-ai/claude-code-${process.platform}-${process.arch}`, "claude"];
    for (const dir of [path.join(pkgDir, "node_modules"), MODULES]) {
      const p = path.join(dir, native[0]!);
      if (
        fs.existsSync(path.join(p, "package.json")) &&
        JSON.parse(fs.readFileSync(path.join(p, "package.json"), "utf8")).version === pkg.version
      ) {
        return [path.join(p, pkg.name === "opencode-ai" ? "bin" : "", native[1]!)];
      }
    }
    throw new Error(`no native ${pkg.name} ${pkg.version} for ${process.platform}-${process.arch} under ${MODULES}`);
  }
  if (!node) throw new Error(`no Node >= 20 on PATH outside node_modules (${HOST_PATH}) to run ${alias}`);
  return [node, path.join(pkgDir, bin)];
}

export interface Turn {
  code: number | null;
  requests: LoggedRequest[];
  stderr: string;
}

/** A fresh HOME, and a TMPDIR inside it, so whatever the host leaves goes with the test's directory. */
export const baseEnv = (home: string): Record<string, string> => {
  fs.mkdirSync(path.join(home, "tmp"), { recursive: true });
  // The fixtures' met gates carry hand-made evidence: the hook judges them under the agent policy
  // (the preload's approval store, test/helpers/approvals.ts), as unlazy would.
  return {
    PATH: HOST_PATH,
    HOME: home,
    TMPDIR: path.join(home, "tmp"),
    LANG: "C.UTF-8",
    UNLAZY_APPROVAL_DIR: process.env.UNLAZY_APPROVAL_DIR!,
  };
};

/** One headless run of `argv` in `root`, bounded; the mock's log of what the host asked. */
export async function turnOf(
  argv: string[],
  root: string,
  env: Record<string, string>,
  mock: MockModel,
): Promise<Turn> {
  const [cmd, ...args] = argv;
  const child = spawn(cmd!, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stdout.resume();
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${HOST_TURN_MS} ms`;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, HOST_TURN_MS);
    child.on("close", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  try {
    process.kill(-child.pid!, "SIGKILL"); // anything the host left behind in its group
  } catch {}
  return { code, requests: [...mock.requests], stderr };
}

/** A repository with `files`, a git work tree, a fresh HOME and a mock model. */
export function setupRepo(name: string, files: Record<string, string>, toolUse?: ToolUse | ToolUse[]) {
  const root = tempDir(`kbz-e2e-${name}-`);
  const home = tempDir(`kbz-e2e-home-`);
  writeTree(root, files);
  spawnSync("git", ["init", "-q"], { cwd: root });
  const mock = startMockModel(toolUse ? { toolUse } : {});
  return { root, home, mock };
}

/**
 * One session of a host: `setupRepo`, then the host's environment (`env`), its own files
 * (`prepare`), kbz's hook installed for `agent` and, with `capture`, what the host sends the hook
 * kept. `body` runs the test; `after` (if any) and the mock's stop follow whatever happens.
 */
export async function hostSession<T>(
  o: {
    agent: string;
    name: string;
    files: Record<string, string>;
    toolUse?: ToolUse | ToolUse[];
    env: (home: string, mock: MockModel) => Record<string, string>;
    prepare?: (home: string, mock: MockModel, root: string) => void;
    capture?: boolean;
    after?: (root: string, home: string) => void | Promise<void>;
  },
  body: (s: {
    root: string;
    home: string;
    mock: MockModel;
    env: Record<string, string>;
    captured: () => string[];
  }) => Promise<T>,
): Promise<T> {
  const { root, home, mock } = setupRepo(o.name, o.files, o.toolUse);
  try {
    const env = o.env(home, mock);
    o.prepare?.(home, mock, root);
    installFor(o.agent, root, env);
    const captured = o.capture === false ? () => [] : capturePayloads(home);
    return await body({ root, home, mock, env, captured });
  } finally {
    await o.after?.(root, home);
    mock.stop();
  }
}

/** Claude Code against the mock, nothing fetched or updated. */
export const claudeEnv = (home: string, mock: MockModel): Record<string, string> => ({
  ...baseEnv(home),
  ANTHROPIC_BASE_URL: mock.url,
  ANTHROPIC_API_KEY: "sk-ant-test-dummy",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
});

/** Copilot CLI offline with a bring-your-own-key provider: no GitHub login, the Anthropic wire format to the mock. */
export const copilotEnv = (home: string, mock: MockModel): Record<string, string> => ({
  ...baseEnv(home),
  COPILOT_OFFLINE: "true",
  COPILOT_PROVIDER_BASE_URL: mock.url,
  COPILOT_PROVIDER_TYPE: "anthropic",
  COPILOT_PROVIDER_API_KEY: "dummy",
  COPILOT_MODEL: "claude-sonnet-4.5",
  COPILOT_AUTO_UPDATE: "false",
});

/**
 * Codex's config.toml in `home`: the mock as its model provider, `extra` lines (features), and
 * `root` trusted, as by a user who opened the repository in Codex once (project hooks load only
 * from a trusted project; codex exec has no dialog for it).
 */
export function writeCodexConfig(home: string, mock: MockModel, root: string, extra: string[] = []): void {
  writeTree(home, {
    "codex/config.toml": [
      'model = "mock-model"',
      'model_provider = "mock"',
      "[model_providers.mock]",
      'name = "mock"',
      `base_url = "${mock.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      ...extra,
      `[projects.${JSON.stringify(root)}]`,
      'trust_level = "trusted"',
      "",
    ].join("\n"),
  });
}

export const codexEnv = (home: string): Record<string, string> => ({
  ...baseEnv(home),
  CODEX_HOME: path.join(home, "codex"),
  MOCK_API_KEY: "dummy",
});

export function installFor(agent: string, root: string, env: Record<string, string>): void {
  const r = spawnSync(BIN, ["hook", "install", "--agent", agent], { cwd: root, env, encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
}

export const unmet = ledger("e2e", [
  { id: "G1", state: "unmet" },
  { id: "G2", state: "met" },
]);
export const allMet = ledger("e2e", [
  { id: "G1", state: "met" },
  { id: "G2", state: "met" },
]);

/** kbz's release counters in `root` (.unlazy-hook-state.json), one number per session key. */
export function counters(root: string): number[] {
  const state = JSON.parse(fs.readFileSync(path.join(root, ".unlazy-hook-state.json"), "utf8"));
  return Object.values(state.sessions).map((s: any) => s.blocks);
}

/**
 * Capture what the host sends kbz: the installed shim (~/.kbz/bin/kbz-hook, the command every
 * host's hook file names) is wrapped so each payload is kept in `<home>/captured/` before kbz
 * reads it. Returns a function listing the payloads in arrival order.
 */
export function capturePayloads(home: string): () => string[] {
  const shim = path.join(home, ".kbz", "bin", "kbz-hook");
  const dir = path.join(home, "captured");
  fs.mkdirSync(dir, { recursive: true });
  fs.renameSync(shim, `${shim}.real`);
  fs.writeFileSync(shim, `#!/bin/sh\nf="${dir}/$(date +%s%N).$$.json"\ncat > "$f"\nexec "${shim}.real" "$@" < "$f"\n`, {
    mode: 0o755,
  });
  return () =>
    fs
      .readdirSync(dir)
      .sort((a, b) => (BigInt(a.split(".")[0]!) < BigInt(b.split(".")[0]!) ? -1 : 1))
      .map((f) => fs.readFileSync(path.join(dir, f), "utf8"));
}

/**
 * A payload a real host sent, replayed in a fresh copy of the fixture (`files`) through the
 * binary and through the Node 16 fallback: both must print the same bytes and exit the same.
 */
export function sameOnBothRoutes(
  agent: string,
  payload: string,
  oldRoot: string,
  files: Record<string, string>,
): HookRun {
  const runs: HookRun[] = [];
  for (const via of ["binary", "node16"] as const) {
    const root = tempDir(`kbz-e2e-replay-`);
    writeTree(root, files);
    spawnSync("git", ["init", "-q"], { cwd: root });
    const body = payload.split(oldRoot).join(root);
    const r = stopHook(body, { cwd: root, args: ["--agent", agent, "--unlazy-hook-v2"], via });
    runs.push({ ...r, stdout: r.stdout.split(root).join("<root>"), stderr: r.stderr.split(root).join("<root>") });
  }
  expect({ code: runs[1]!.code, stdout: runs[1]!.stdout, stderr: runs[1]!.stderr }).toEqual({
    code: runs[0]!.code,
    stdout: runs[0]!.stdout,
    stderr: runs[0]!.stderr,
  });
  return runs[0]!;
}
