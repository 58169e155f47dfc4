// One stop in host-neutral terms: what a host adapter (src/hook/<host>.ts) reads out of its
// host's payload and the hook op (ops/hookStop.ts) decides on.

/** What is finishing: the agent's turn, a sub-agent (a worker), or a task (a leaf). */
export type StopKind = "stop" | "subagent" | "task";

/**
 * Why a stop is not the agent's own choice to end its turn, so it never counts toward the release:
 * `failed` (Claude Code StopFailure, an API error; Cursor status "error"), `aborted` (the person
 * interrupted: Cursor status "aborted", Copilot's non end_turn stop reasons), `no-message` (the
 * turn ended with an empty assistant message).
 */
export type Uncounted = "failed" | "aborted" | "no-message";

/** One running background task as the host lists it (Claude Code `background_tasks[]`): its identifying words. */
export interface BackgroundTask {
  id: string | null;
  words: string[];
}

/** One stop, in host-neutral terms. */
export interface HostStop {
  /** The directory the agent works in (absolute or relative to the hook's cwd); null: the hook's cwd. */
  cwd: string | null;
  /** What the progress guard counts under: a session, a session's turn or prompt where the host names them. */
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
  kind: StopKind;
  uncounted: Uncounted | null;
  /**
   * For a sub-agent or a task: the words that may name its leaf (the handle recorded with `kbz wave
   * start`, a task subject holding "leaf 1.1"): agent or task id first, then names and text.
   */
  worker: { ids: string[]; text: string[] } | null;
  /** Running background tasks the host listed (empty when the host sends none). */
  background: BackgroundTask[];
  /** The transcript file the payload names (`transcript_path`, `transcriptPath`); its growth shows a new turn. */
  transcript?: string | null;
}
