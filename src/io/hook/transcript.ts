// The transcript a stop's payload names (Claude Code, Codex, Gemini, Qwen `transcript_path`,
// Copilot `transcriptPath`): the host appends every turn to it, a block's feedback included, so
// its growth is what shows the progress guard a new turn (io/hook/guard.ts). Only its size is
// read (one stat, no open): a FIFO, a device or a link to one answers without blocking.
import * as fs from "node:fs";

export interface Transcript {
  /** What the count is kept apart by: `\0transcript:<real path>`, or "" when the stop names none. */
  key: string;
  /** Its size in bytes; null when the stop names none or it is not a regular file we can stat. */
  size: number | null;
}

export function transcriptOf(file: string | null): Transcript {
  if (!file) return { key: "", size: null };
  let real = file;
  try {
    real = fs.realpathSync(file);
    const st = fs.statSync(real);
    return { key: `\0transcript:${real}`, size: st.isFile() ? st.size : null };
  } catch {
    return { key: `\0transcript:${real}`, size: null };
  }
}
