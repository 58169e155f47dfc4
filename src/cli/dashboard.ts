// Opening the live dashboard (shared by `kbz dash`, `kbz demo` and `kbz` on a terminal). The TUI
// is imported only here, lazily, so every other command (and the Stop hook) starts without React or Ink.
import type { Demo } from "../demo/scope.ts";
import { kbz } from "../core/text/command.ts";
import type { ExitCode } from "./envelope.ts";
import { out } from "./output.ts";

/** What the demo says last, on and off a terminal. */
export const DEMO_NEXT = `next: in your own repository run ${kbz("init")} (README: your repository in five minutes)`;

/** The dashboard needs both ends of a terminal: keys in, frames out. */
export function onTerminal(): boolean {
  return !!process.stdin.isTTY && !!process.stdout.isTTY;
}

export async function openDashboard(root: string, scope: string | null, slots?: number): Promise<ExitCode> {
  const { runDashboard } = await import("../tui/run.tsx");
  let demo: Demo | null = null;
  const code = await runDashboard({
    root,
    scope,
    slots,
    openDemo: async () => {
      demo = await startDemo();
      return { root: demo.root, scope: demo.scope, env: demoEnv(demo), slots: demo.slots };
    },
  });
  finishDemo(demo);
  return code;
}

export async function openDemo(): Promise<ExitCode> {
  const { runDashboard } = await import("../tui/run.tsx");
  const demo = await startDemo();
  const code = await runDashboard({
    root: demo.root,
    scope: demo.scope,
    banner: "demo",
    initialPanel: "graph",
    slots: demo.slots,
    env: demoEnv(demo),
  });
  finishDemo(demo);
  return code;
}

async function startDemo(): Promise<Demo> {
  const { createDemo } = await import("../demo/scope.ts");
  return createDemo();
}

/** The demo approves into its own store beside the example, never into the person's (createDemo points the process at it). */
function demoEnv(demo: Demo): Record<string, string | undefined> {
  return { ...process.env, UNLAZY_APPROVAL_DIR: demo.approvalDir };
}

/** The demo ends with kbz: its temporary folder is removed, and one line says what to do next. */
function finishDemo(demo: Demo | null): void {
  if (!demo) return;
  demo.remove();
  out(`${kbz("demo")}: finished (its example folder is removed); ${DEMO_NEXT}`);
}
