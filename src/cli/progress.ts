// Live progress on a terminal: one line per running gate (spinner, elapsed), redrawn in
// place and erased before the transcript continues. Without a TTY nothing is drawn.
import { sanitize } from "../core/text/sanitize.ts";

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const REDRAW_MS = 100;

export class Progress {
  private running = new Map<string, number>();
  private drawn = 0;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  static forStdout(enabled: boolean): Progress | null {
    return enabled && process.stdout.isTTY ? new Progress(process.stdout) : null;
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
    if (this.drawn > 0) this.stream.write(`\x1b[${this.drawn}A\x1b[J`);
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
    this.stream.write(text);
    this.drawn = this.running.size;
  }
}
