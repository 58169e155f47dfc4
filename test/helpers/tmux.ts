// A real terminal for end-to-end checks: a private tmux server, one pane of a fixed size.
import { spawnSync } from "node:child_process";
import { needs } from "./needs.ts";
import { AGENT_MARKERS } from "../../src/core/person.ts";

export function haveTmux(): boolean {
  return needs("tmux");
}

export class TmuxPane {
  private readonly socket = `kbz-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  constructor(
    readonly columns = 80,
    readonly rows = 24,
  ) {}

  private tmux(...args: string[]): string {
    const r = spawnSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * Start `argv` in `cwd`; the pane stays open after it exits and shows the exit code. The pane
   * is a person's terminal: no agent host's marker reaches it (the test's own shell may carry
   * one) unless `env` sets it.
   */
  start(argv: string[], cwd: string, env: Record<string, string> = {}): void {
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const envs = Object.entries(env)
      .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`)
      .join(" ");
    const unset = AGENT_MARKERS.map((m) => `-u ${m}`).join(" ");
    // CI makes Ink print only its last frame (ink readme); the pane is a real terminal.
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${unset} ${envs} ${quoted}; echo "EXIT=$?"; sleep 600`;
    this.tmux("new-session", "-d", "-s", "t", "-x", String(this.columns), "-y", String(this.rows), "-c", cwd, cmd);
  }

  capture(): string {
    return this.tmux("capture-pane", "-p", "-t", "t");
  }

  /** The screen with its colour and attribute escape sequences. */
  captureStyled(): string {
    return this.tmux("capture-pane", "-p", "-e", "-t", "t");
  }

  send(...keys: string[]): void {
    this.tmux("send-keys", "-t", "t", ...keys);
  }

  resize(columns: number, rows: number): void {
    this.tmux("resize-window", "-t", "t", "-x", String(columns), "-y", String(rows));
  }

  async waitFor(ok: (screen: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.capture();
      if (ok(s)) return s;
      if (Date.now() > end) throw new Error(`screen never matched within ${timeoutMs} ms:\n${s}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The pid of the pane's shell (the command runs as its child). */
  panePid(): number {
    return Number(this.tmux("list-panes", "-t", "t", "-F", "#{pane_pid}").trim());
  }

  kill(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"]);
  }
}

/** The terminal sizes the dashboard is tried at (issue 31), widest first. */
export const TUI_SIZES: readonly [number, number][] = [
  [200, 50],
  [120, 35],
  [80, 24],
  [80, 12],
  [40, 10],
];

/** Panes a test file opens, all killed together (call killAll in its afterAll). */
export class PanePool {
  private readonly panes: TmuxPane[] = [];

  open(argv: string[], cwd: string, env: Record<string, string>, w: number, h: number): TmuxPane {
    const p = new TmuxPane(w, h);
    this.panes.push(p);
    p.start(argv, cwd, env);
    return p;
  }

  killAll(): void {
    for (const p of this.panes.splice(0)) p.kill();
  }
}
