// Helpers for Stop hook tests: run the binary or the Node 16 fallback on a payload, and
// write ledgers whose gates are met, unmet, stale or abandoned.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { definitionDigest } from "../../src/core/ledger/digest.ts";
import { automaticEvidence } from "../../src/core/ledger/evidence.ts";
import { BIN, REPO } from "./kbz.ts";
import { guardDir } from "../../src/io/hook/guard.ts";

export const FALLBACK = path.join(REPO, "hooks", "stop-hook.mjs");
export const NODE16 = path.join(REPO, "node_modules", "node16", "bin", "node");

/** The Node 16 binary from the `node16` devDependency (npm:node@16); fails loudly when absent. */
export function node16(): string {
  const r = spawnSync(NODE16, ["--version"], { encoding: "utf8" });
  if (r.error || !r.stdout.startsWith("v16.")) {
    throw new Error(`Node 16 is missing at ${NODE16}: run npm ci (node@16 needs its allowed install script)`);
  }
  return NODE16;
}

export type Via = "binary" | "node16";

export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function command(via: Via, args: string[]): [string, string[]] {
  return via === "binary" ? [BIN, ["hook", "stop", ...args]] : [node16(), [FALLBACK, ...args]];
}

function hookEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, UNLAZY_SCOPE: undefined, ...env }))
    if (v !== undefined) out[k] = v;
  return out;
}

export interface HookOptions {
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  via?: Via;
}

/** One Stop event: `payload` is sent as JSON unless it is already a string or bytes. */
export function stopHook(payload: unknown, opts: HookOptions = {}): HookRun {
  const input = typeof payload === "string" || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
  const [cmd, args] = command(opts.via ?? "binary", opts.args ?? []);
  const started = performance.now();
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd ?? REPO,
    env: hookEnv(opts.env),
    input,
    encoding: "utf8",
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

/**
 * The same, without blocking the test process: for concurrent calls. With `payloadFile` the
 * payload is a regular file on stdin, complete before the hook starts, so no number of
 * concurrent starts on a loaded machine can outlast the hook's bound on a payload that has not
 * ended (which the stdin tests cover). A pipe the hook closed early is reported in `stdinError`,
 * never thrown as an unhandled EPIPE.
 */
export function stopHookAsync(
  payload: unknown,
  opts: HookOptions & { payloadFile?: string } = {},
): Promise<HookRun & { stdinError?: string }> {
  const [cmd, args] = command(opts.via ?? "binary", opts.args ?? []);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let fd: number | null = null;
    if (opts.payloadFile) {
      fs.writeFileSync(opts.payloadFile, JSON.stringify(payload));
      fd = fs.openSync(opts.payloadFile, "r");
    }
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO,
      env: hookEnv(opts.env),
      stdio: [fd ?? "pipe", "pipe", "pipe"],
    });
    if (fd !== null) fs.closeSync(fd);
    let stdout = "";
    let stderr = "";
    let stdinError: string | undefined;
    child.stdout!.on("data", (c) => (stdout += c));
    child.stderr!.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code: code ?? -1,
        stdout,
        stderr,
        ms: performance.now() - started,
        ...(stdinError ? { stdinError } : {}),
      }),
    );
    if (child.stdin) {
      child.stdin.on("error", (e) => (stdinError = e.message));
      child.stdin.end(JSON.stringify(payload));
    }
  });
}

/** The single JSON object the hook printed, or null for silence; anything else fails. */
export function decision(r: HookRun): Record<string, string> | null {
  if (r.code !== 0) throw new Error(`hook exited ${r.code}: ${r.stderr}`);
  if (r.stdout === "") return null;
  const lines = r.stdout.split("\n");
  if (lines.length !== 2 || lines[1] !== "")
    throw new Error(`hook printed more than one line: ${JSON.stringify(r.stdout)}`);
  return JSON.parse(lines[0]!);
}

export function reasonOf(r: HookRun): string {
  const d = decision(r);
  if (!d || d.decision !== "block") throw new Error(`expected a block, got ${r.stdout}`);
  return d.reason!;
}

export function messageOf(r: HookRun): string {
  const d = decision(r);
  if (!d || d.decision !== undefined || typeof d.systemMessage !== "string")
    throw new Error(`expected a systemMessage, got ${r.stdout}`);
  return d.systemMessage;
}

/** Current automatic evidence for a runnable gate definition, as a normal run would write it. */
export function currentEvidence(check: string, expect: string): string {
  return automaticEvidence({
    digest: definitionDigest(check, expect, null),
    outputSha256: "a".repeat(64),
    outputBytes: 10,
    shell: "/bin/sh",
    cwd: ".",
    pathFingerprint: "0123456789ab/5 entries",
  });
}

export interface GateSpec {
  id: string;
  state: "met" | "unmet" | "abandoned" | "manual-met";
  check?: string;
}

/** A small valid ledger: runnable gates write a marker file if their CHECK ever runs. */
export function ledger(title: string, gates: GateSpec[], extra = ""): string {
  const lines = [`# Gates: ${title}`, ""];
  const abandons: string[] = [];
  for (const g of gates) {
    const check = g.check ?? `node -e "require('fs').writeFileSync('EXECUTED-${g.id}','')"`;
    if (g.state === "manual-met") {
      lines.push(`- [x] ${g.id}: ${g.id} reviewed by hand`, "  EVIDENCE: reviewed the output by hand", "");
      continue;
    }
    const met = g.state === "met";
    lines.push(`- [${met ? "x" : " "}] ${g.id}: ${g.id} outcome holds`, `  CHECK: ${check}`, "  EXPECT: MARKER_OK");
    lines.push(`  EVIDENCE: ${met ? currentEvidence(check, "MARKER_OK") : "pending"}`, "");
    if (g.state === "abandoned") abandons.push(`ABANDON: ${g.id} secret-private-reason vendor API retired`);
  }
  return [...lines, ...abandons, extra].join("\n");
}

/** The progress guard's counts for the repository at `dir`, as kept in kbz's private store (io/hook/guard.ts). */
export function storeState(
  dir: string,
  store = process.env.UNLAZY_APPROVAL_DIR!,
): { schema: number; sessions: Record<string, { hash: string; blocks: number; updatedAt: string }> } {
  const file = path.join(guardDir(store, fs.realpathSync(dir)), "state.json");
  return fs.existsSync(file) ? readState(file) : { schema: 1, sessions: {} };
}

export function readState(file: string): {
  schema: number;
  sessions: Record<string, { hash: string; blocks: number; updatedAt: string }>;
} {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** No runnable CHECK ever executed in `dir` (they would leave EXECUTED-* files). */
export function executedMarkers(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (name.startsWith("EXECUTED-")) found.push(p);
    }
  };
  walk(dir);
  return found;
}

/** One Stop event answered in this process (so coverage sees src/hook); the same contract as the binary. */
export async function stopHookIn(payload: unknown, opts: HookOptions = {}): Promise<HookRun> {
  const { runCli } = await import("./cli.ts");
  const stdin =
    typeof payload === "string"
      ? payload
      : payload instanceof Uint8Array
        ? Buffer.from(payload).toString("latin1")
        : JSON.stringify(payload);
  const started = performance.now();
  const r = await runCli(["hook", "stop", ...(opts.args ?? [])], {
    cwd: opts.cwd ?? REPO,
    env: { UNLAZY_SCOPE: undefined, ...opts.env },
    stdin,
  });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

/**
 * A planned scope's files: leaf 1.1 (`state`) and leaf 1.2 (met), both started in open wave w1
 * (handles h11, worker-7). The hook's event tests and the host end-to-end tests share it.
 */
export function plannedWave(state: "met" | "unmet"): Record<string, string> {
  return {
    ".unlazy/api/gates/leaf-1.1.md": ledger("leaf 1.1", [{ id: "G1", state }]),
    ".unlazy/api/gates/leaf-1.2.md": ledger("leaf 1.2", [{ id: "G1", state: "met" }]),
    ".unlazy/api/dispatch.json": JSON.stringify({
      schema: 1,
      waves: {
        w1: {
          leaves: ["1.1", "1.2"],
          state: "open",
          openedAt: "2026-01-01T00:00:00.000Z",
          started: {
            "1.1": { handle: "h11", at: "2026-01-01T00:00:01.000Z" },
            "1.2": { handle: "worker-7", at: "2026-01-01T00:00:01.000Z" },
          },
          returned: {},
        },
      },
    }),
  };
}
