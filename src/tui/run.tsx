// Mount the dashboard on the terminal. Imported lazily: only `kbz`, `kbz dash` and `kbz demo`
// on a terminal load React and Ink.
import { render } from "ink";
import { App, type AppProps } from "./App.tsx";

export async function runDashboard(props: AppProps): Promise<0> {
  const instance = render(<App {...props} />, {
    exitOnCtrlC: false, // q and ctrl-c are handled by the app so the watcher closes first
    patchConsole: true,
    // Ink 6.8's incremental mode left stale rows behind when a panel switched (seen in tmux);
    // full redraws of a frame shorter than the terminal do not flicker.
    maxFps: 20,
  });
  // Under Bun the process may end right after render() unless we wait (ecosystem docs/formats.md#check-run).
  await instance.waitUntilExit();
  return 0;
}
