// Live progress on a terminal: one line per running gate (spinner, elapsed), redrawn in
// place and erased before the transcript continues. Without a TTY nothing is drawn.
import { sanitize } from "../core/text/sanitize.ts";
import { writeFdSync } from "./fdwrite.ts";
import { flushOut } from "./output.ts";

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const REDRAW_MS = 100;

/** Where progress is drawn: a terminal's width and a way to write to it. */
export interface ProgressTerminal {
  readonly columns: number | undefined;
  write(text: string): void;
}

export class Progress {
  private running = new Map<string, number>();
  private drawn = 0;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly stream: ProgressTerminal) {}

  private write(text: string): void {
    this.stream.write(text);
  }

  static forStdout(enabled: boolean): Progress | null {
    if (!enabled || !process.stdout.isTTY) return null;
    // Drawn on fd 1 like every other line of ours, after what is collected, so nothing reorders.
    const tty = process.stdout;
    return new Progress({
      get columns() {
        return tty.columns;
      },
      write(text: string) {
        flushOut();
        writeFdSync(1, text);
      },
    });
  }

  start(qid: string): void {
    this.running.set(qid, performance.now());
    if (!this.timer) {
      this.timer = setInterval(() => this.draw(), REDRAW_MS);
      this.timer.unref();
    }
    this.draw();
  }

  finish(qid: string): void {
    this.running.delete(qid);
    this.draw();
  }

  /** Erase the progress lines and stop redrawing. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.erase();
  }

  private erase(): void {
    if (this.drawn > 0) this.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  private draw(): void {
    this.erase();
    const spin = FRAMES[this.frame++ % FRAMES.length];
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    const now = performance.now();
    let text = "";
    for (const [qid, at] of this.running) {
      const line = `  ${spin} ${sanitize(qid)} ${((now - at) / 1000).toFixed(1)}s`;
      text += line.slice(0, width) + "\n";
    }
    this.write(text);
    this.drawn = this.running.size;
  }
}
