// One CHECK from spawn to verdict: capture, canonical output and fingerprint, EXPECT,
// and the first error that applies (docs/formats.md#check-run).
import { MAX_OUTPUT_BYTES, canonicalOutput, outputFingerprint } from "../../core/ledger/evidence.ts";
import { matchExpect, type ExpectSpec } from "./expect.ts";
import { runProcess } from "./spawn.ts";
import type { Env } from "./shell.ts";
import { holdNoGit, releaseNoGit, sandboxLaunch, type SandboxProfile } from "./sandbox.ts";

export interface RunOutcome {
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  matched: boolean;
  error: string | null;
  outputSha256: string;
  bytes: number;
  durationMs: number;
  /** Bounded failure summary for the console; null on success (success output is never shown). */
  summary: string | null;
  /** The end of the canonical output (at most OUTPUT_TAIL_CHARS), for the last-run cache only. */
  outputTail: string;
}

export const OUTPUT_TAIL_CHARS = 16 * 1024;

export interface ExecuteRequest {
  shell: string;
  check: string;
  expect: ExpectSpec;
  cwd: string;
  env: Env;
  timeoutMs: number;
  sandbox?: SandboxProfile | null;
  /** With a sandbox: an argv placed before bwrap (the probe's throwaway view, view.ts). */
  wrap?: string[];
  /** Without a sandbox: an argv placed before the shell that observes the run (io/oracle/observe.ts, strace). */
  tracePrefix?: string[];
  /** Output as it arrives, decoded (a display only: the verdict uses the whole output). */
  onOutput?: (text: string) => void;
}

const SUMMARY_CAP = 480;

/** Trimmed non-blank lines; ≤ 8 joined by " | ", else first 6, "...", last 2; capped. */
export function failureSummary(output: string): string {
  const lines = output
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) return "(no output)";
  const shown = lines.length <= 8 ? lines : [...lines.slice(0, 6), "...", ...lines.slice(-2)];
  const text = shown.join(" | ");
  return text.length > SUMMARY_CAP ? text.slice(0, SUMMARY_CAP) : text;
}

/** Chunks to text for a display; a character split across two chunks is decoded whole. */
function streamDecoder(onText: (text: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  return (chunk) => onText(decoder.decode(chunk, { stream: true }));
}

export async function executeCheck(req: ExecuteRequest): Promise<RunOutcome> {
  // Sandboxed: the wrappers and bwrap run with kbz's minimal environment; the CHECK's reaches
  // the CHECK through bwrap's options (sandbox.ts sandboxLaunch, issue 42 item 1).
  const launch = req.sandbox ? sandboxLaunch(req.sandbox, req.env) : null;
  if (req.sandbox) holdNoGit(req.sandbox);
  const p = await runProcess({
    shell: req.shell,
    command: req.check,
    cwd: req.cwd,
    env: launch?.env ?? req.env,
    timeoutMs: req.timeoutMs,
    // Issue 39: the approved-oracle view wraps an unsandboxed CHECK too (view.ts oracleView); the
    // tracer (io/oracle/observe.ts) prefixes a plain run (never a judged one).
    prefix: launch ? [...(req.wrap ?? []), ...launch.argv] : (req.wrap ?? req.tracePrefix),
    prefixOwnsPidNamespace: !!launch,
    onOutput: req.onOutput && streamDecoder(req.onOutput),
    ...(launch ? { fd3: launch.args } : {}),
  }).finally(() => {
    if (req.sandbox) releaseNoGit(req.sandbox);
  });
  const output = canonicalOutput(p.stdout, p.stderr);
  const fp = outputFingerprint(output);
  const normalizedOverflow = fp.bytes > MAX_OUTPUT_BYTES;
  const overflow = p.rawOverflow || normalizedOverflow;
  const match =
    p.timedOut || overflow || p.spawnError ? { matched: false, error: null } : await matchExpect(req.expect, output);
  const cleanup = p.cleanup ? `; cleanup: ${p.cleanup}` : "";
  const error = p.timedOut
    ? `timed out after ${req.timeoutMs / 1000}s${cleanup}`
    : overflow
      ? `output exceeded ${MAX_OUTPUT_BYTES} bytes${p.rawOverflow ? "" : " after stdout/stderr UTF-8 combination"}${cleanup}`
      : (p.spawnError ?? match.error);
  const ok = error === null && p.exitCode === 0 && match.matched;
  return {
    ok,
    exitCode: p.exitCode,
    signal: p.signal,
    matched: match.matched,
    error,
    outputSha256: fp.sha256,
    bytes: fp.bytes,
    durationMs: p.durationMs,
    summary: ok ? null : failureSummary(output),
    outputTail: output.length > OUTPUT_TAIL_CHARS ? output.slice(-OUTPUT_TAIL_CHARS) : output,
  };
}
