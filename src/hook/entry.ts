// The Stop hook edge: one host's stdin payload in, at most one answer in that host's contract
// out, exit 0 (exit 2 only where an event reads nothing else: Claude Code TaskCompleted). It reads
// stdin (stdin.ts, bounded), picks the host adapter (`--agent NAME`, src/hook/<host>.ts; claude
// when absent, as installed before --agent existed), lets the adapter read the payload into one
// host-neutral stop, calls the hook op (ops/hookStop.ts) and prints what the adapter renders.
// This file and everything it imports are bundled for Node 16 into hooks/stop-hook.mjs, so the
// path uses only `node:` built-ins: no Bun APIs, no React, no Ink, no yargs.
import { cannotJudge, type HookOutput } from "../core/hook/decide.ts";
import { HOST_NAMES } from "../core/hook/targets.ts";
import { isValidId } from "../core/workspace/ids.ts";
import { writeFdSync } from "../cli/fdwrite.ts";
import { armWatchdog, hookStop, prepareHardBound, WATCHDOG_MS, type Watchdog } from "../ops/hookStop.ts";
import type { HostStop, Rendered } from "./host.ts";
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
  arm?: (block: Rendered) => Promise<void>,
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
    stop = payload ? { ...host.read(payload, env), transcript: transcriptPath(payload) } : null;
  } catch (e) {
    return host.render(failed(e), null);
  }
  // The one deadline for the whole process: past it the watchdog prints this block and ends the process.
  if (stop && arm)
    await arm(
      host.render(
        cannotJudge(
          `it did not finish judging within ${WATCHDOG_MS / 1000} s (the watchdog answered)`,
          WATCHDOG_UNCOUNTED,
        ),
        stop,
      ),
    );
  return host.render(await hookStop({ scope: scopeArgument(args), stop, env, cwd }), stop);
}

/** The transcript the payload names, whatever the host calls it. */
function transcriptPath(payload: Record<string, unknown>): string | null {
  for (const k of ["transcript_path", "transcriptPath"]) {
    const v = payload[k];
    if (typeof v === "string" && v !== "" && !v.includes("\0")) return v;
  }
  return null;
}

const WATCHDOG_UNCOUNTED = { ok: false, message: "the watchdog answered before the count" } as const;

/** A failure of the hook itself: a block naming it, never an allow (not counted: nothing could be). */
function failed(e: unknown): HookOutput {
  return cannotJudge(`the Stop hook failed (${(e as Error)?.message ?? String(e)})`, {
    ok: false,
    message: "the hook failed before counting",
  });
}

function invalidAgentArgument(): HookOutput {
  return cannotJudge(
    `the installed hook has an unknown --agent value (use ${HOST_NAMES.join(", ")}): reinstall it (a person's act)`,
    { ok: false, message: "no host to count for" },
  );
}

/** Process entry for `kbz hook stop` and the Node fallback: print, flush, exit (0 but for a refused task). */
export async function stopHookMain(args: string[]): Promise<never> {
  let r: { stdout: string; stderr: string; code?: number };
  let watchdog: Watchdog | null = null;
  const arm = async (block: Rendered) => {
    await prepareHardBound();
    watchdog = await armWatchdog(WATCHDOG_MS, block.stdout, block.stderr);
  };
  try {
    r = await runStopHook(args, await readStdin(), process.env, process.cwd(), arm);
  } catch (e) {
    r = HOSTS.claude.render(failed(e), null);
  }
  // The watchdog printed already: its exit is on its way.
  if (watchdog !== null && !(watchdog as Watchdog).claim()) await new Promise(() => setInterval(() => {}, 1000));
  if (r.stdout !== "") writeFdSync(1, r.stdout);
  if (r.stderr !== "") writeFdSync(2, r.stderr);
  process.exit(r.code ?? 0);
}
