// What every agent host adapter provides: how to read that host's Stop payload and how to say
// kbz's decision in that host's output contract. The decision itself (core/hook/decide.ts) is
// host-neutral; adapters live at the edge, one file per host (src/hook/<host>.ts).
import type { HookOutput } from "../core/hook/decide.ts";
import type { BackgroundTask, HostStop, Uncounted } from "../core/hook/stop.ts";
import type { HostName } from "../core/hook/targets.ts";

export { HOST_NAMES, isHostName, type HostName } from "../core/hook/targets.ts";
export type { BackgroundTask, HostStop, StopKind, Uncounted } from "../core/hook/stop.ts";

/** What the hook prints: stdout for the host, stderr for a person reading the host's hook log; the exit code (0 unless the host reads one). */
export interface Rendered {
  stdout: string;
  stderr: string;
  code?: number;
}

export interface HostAdapter {
  name: HostName;
  read(payload: Record<string, unknown>, env: Record<string, string | undefined>): HostStop;
  /** `stop` is null when no payload could be read (the answer is then an allow or a note). */
  render(output: HookOutput, stop: HostStop | null): Rendered;
}

/** The defaults of a plain main-agent stop; adapters spread it and set what their host sends. */
export function plainStop(cwd: string | null, session: string, fresh: boolean): HostStop {
  return { cwd, session, fresh, continuations: null, kind: "stop", uncounted: null, worker: null, background: [] };
}

/** `no-message` when the host sent the field and it holds no text; null when absent (older hosts). */
export function noMessage(o: Record<string, unknown>, field: string): Uncounted | null {
  if (!(field in o)) return null;
  const v = o[field];
  return v === null || (typeof v === "string" && v.trim() === "") ? "no-message" : null;
}

/** Strings of `o` at `keys`, skipping absent and empty ones. */
export function strings(o: Record<string, unknown>, keys: string[]): string[] {
  return keys.map((k) => str(o[k])).filter((v): v is string => v !== null);
}

/** Claude Code (and Qwen Code) `background_tasks[]`: the entries still running. */
export function backgroundTasks(v: unknown): BackgroundTask[] {
  if (!Array.isArray(v)) return [];
  const out: BackgroundTask[] = [];
  for (const t of v.slice(0, 256)) {
    if (!t || typeof t !== "object" || Array.isArray(t)) continue;
    const o = t as Record<string, unknown>;
    const status = str(o.status);
    if (status !== null && !/^(running|pending|in[_ -]?progress|started|active)$/i.test(status)) continue;
    out.push({
      id: str(o.id) ?? str(o.task_id),
      words: strings(o, ["id", "task_id", "agent_id", "name", "description", "command", "prompt"]),
    });
  }
  return out;
}

export function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

export function count(v: unknown): number | null {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null;
}
