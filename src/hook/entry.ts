// The Stop hook edge: one host's stdin payload in, at most one answer in that host's contract
// out, exit 0 (exit 2 only where an event reads nothing else: Claude Code TaskCompleted). It reads
// stdin (stdin.ts, bounded), picks the host adapter (`--agent NAME`, src/hook/<host>.ts; claude
// when absent, as installed before --agent existed), lets the adapter read the payload into one
// host-neutral stop, calls the hook op (ops/hookStop.ts) and prints what the adapter renders.
// This file and everything it imports are bundled for Node 16 into hooks/stop-hook.mjs, so the
// path uses only `node:` built-ins: no Bun APIs, no React, no Ink, no yargs.
import { internalFailure, type HookOutput } from "../core/hook/decide.ts";
import { HOST_NAMES } from "../core/hook/targets.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { writeFdSync } from "../cli/fdwrite.ts";
import { hookStop } from "../ops/hookStop.ts";
import type { HostStop } from "./host.ts";
import { agentArgument, HOSTS } from "./hosts.ts";
import { readStdin, STDIN_DEADLINE_MS, type StdinResult } from "./stdin.ts";

/** `undefined` scope: no --scope given; `null`: given but missing or invalid. */
export function scopeArgument(args: string[]): string | null | undefined {
  let found: string | null | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--scope") {
      const v = args[i + 1];
      found = v !== undefined && isValidId(v) ? v : null;
      i++;
    } else if (a.startsWith("--scope=")) {
      const v = a.slice("--scope=".length);
      found = isValidId(v) ? v : null;
    }
  }
  return found;
}

/**
 * The payload as a JSON object, `null` when it is not JSON (allow silently). Every leading
 * U+FEFF is dropped first: Cursor on Windows starts stdin with one byte-order mark, sometimes two.
 */
export function parsePayload(input: Buffer | null): Record<string, unknown> | null {
  if (input === null) return null;
  const text = input.toString("utf8").replace(/^\uFEFF+/, "");
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
  }
  return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** stdout and stderr for one stop: the answer in the host's contract, plus notes for people. */
export async function runStopHook(
  args: string[],
  input: StdinResult,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ stdout: string; stderr: string; code?: number }> {
  const host = agentArgument(args);
  if (!host) return HOSTS.claude.render(invalidAgentArgument(), null);
  if (input.timedOut) {
    const r = host.render(null, null);
    return {
      stdout: r.stdout,
      stderr:
        r.stderr +
        `kbz: the Stop payload did not end within ${STDIN_DEADLINE_MS / 1000} s; treated as missing, not blocking.\n`,
    };
  }
  const payload = parsePayload(input.bytes);
  let stop: HostStop | null = null;
  try {
    stop = payload ? host.read(payload, env) : null;
  } catch (e) {
    return host.render(internalFailure((e as Error)?.message ?? String(e)), null);
  }
  return host.render(await hookStop({ scope: scopeArgument(args), stop, env, cwd }), stop);
}

function invalidAgentArgument(): HookOutput {
  return {
    systemMessage: `kbz: installed hook has an unknown --agent value (use ${HOST_NAMES.join(", ")}); not blocking.`,
  };
}

/** Process entry for `kbz hook stop` and the Node fallback: print, flush, exit (0 but for a refused task). */
export async function stopHookMain(args: string[]): Promise<never> {
  let r: { stdout: string; stderr: string; code?: number };
  try {
    r = await runStopHook(args, await readStdin(), process.env, process.cwd());
  } catch (e) {
    r = HOSTS.claude.render(internalFailure((e as Error)?.message ?? String(e)), null);
  }
  if (r.stdout !== "") writeFdSync(1, r.stdout);
  if (r.stderr !== "") writeFdSync(2, r.stderr);
  process.exit(r.code ?? 0);
}
