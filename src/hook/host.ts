// What every agent host adapter provides: how to read that host's Stop payload and how to say
// kbz's decision in that host's output contract. The decision itself (core/hook/decide.ts) is
// host-neutral; adapters live at the edge, one file per host (src/hook/<host>.ts).
import type { HookOutput } from "../core/hook/decide.ts";
import type { HostName } from "../core/hook/targets.ts";

export { HOST_NAMES, isHostName, type HostName } from "../core/hook/targets.ts";

/** One stop, in host-neutral terms. */
export interface HostStop {
  /** The directory the agent works in (absolute or relative to the hook's cwd); null: the hook's cwd. */
  cwd: string | null;
  /** What the progress guard counts under: a session, or a session's turn where the host names turns. */
  session: string;
  /**
   * The host's own loop signal says this stop is not a continuation of a block (Claude, Codex and
   * Gemini `stop_hook_active: false`, Cursor `loop_count: 0`). A count that already released then
   * starts again, so each new user turn gets its own blocks; a misfiring signal mid-chain (Claude
   * Code #54360) never resets a count that has not released.
   */
  fresh: boolean;
  /** The host's own count of continuations so far (Cursor `loop_count`); a second check on kbz's counter. */
  continuations: number | null;
}

/** What the hook prints: stdout for the host, stderr for a person reading the host's hook log. */
export interface Rendered {
  stdout: string;
  stderr: string;
}

export interface HostAdapter {
  name: HostName;
  read(payload: Record<string, unknown>, env: Record<string, string | undefined>): HostStop;
  render(output: HookOutput): Rendered;
}

export function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

export function count(v: unknown): number | null {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null;
}
