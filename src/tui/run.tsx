// Mount the dashboard on the terminal. Imported lazily: only `kbz`, `kbz dash` and `kbz demo`
// on a terminal load React and Ink.
import { render } from "ink";
import { App, type AppProps } from "./App.tsx";
import { endRunningChecks } from "../ops/dashboardActs.ts";

/** SGR mouse reports on (clicks and the wheel), and off again however the dashboard ends. */
const MOUSE_ON = "\u001b[?1000h\u001b[?1006h";
const MOUSE_OFF = "\u001b[?1000l\u001b[?1006l";

export async function runDashboard(props: AppProps): Promise<0> {
  const mouse = process.stdout.isTTY && process.stdin.isTTY;
  const off = () => {
    if (mouse) process.stdout.write(MOUSE_OFF);
  };
  if (mouse) process.stdout.write(MOUSE_ON);
  process.once("exit", off);
  // Raw mode before the first frame: Ink turns it on only after mounting, and a key typed in
  // between was echoed by the terminal below the footer (seen in tmux under load).
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  const instance = render(<App {...props} />, {
    exitOnCtrlC: false, // q and ctrl-c are handled by the app so the watcher closes first
    patchConsole: true,
    // Ink 6.8's incremental mode left stale rows behind when a panel switched (seen in tmux);
    // full redraws of a frame shorter than the terminal do not flicker.
    maxFps: 20,
  });
  // The executable starts with the JIT held back for short runs (build.ts JIT_POLICY); the
  // dashboard lives long and redraws, so from its first frame it gets the normal policy.
  (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun?.unsafe?.setJITPolicy?.(1);
  // Under Bun the process may end right after render() unless we wait (ecosystem docs/formats.md#check-run).
  try {
    await instance.waitUntilExit();
  } finally {
    // A CHECK still running (started with r, R or L) ends with the dashboard, not at its timeout.
    endRunningChecks();
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    off();
    process.removeListener("exit", off);
  }
  return 0;
}
