// kbz dash / kbz demo: the live dashboard. The TUI is imported only here, lazily, so every
// other command (and the Stop hook) starts without React or Ink.
import { canonicalRoot } from "../io/discover.ts";
import { isValidId, SCOPE_ID_MESSAGE } from "../core/workspace/ids.ts";
import { UsageError } from "../core/errors.ts";
import type { ExitCode, Verb } from "./index.ts";
import { out } from "./output.ts";
import { printStatus, snapshotFor } from "./status.ts";
import type { Demo } from "../demo/scope.ts";

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
  const code = await runDashboard({ root: demo.root, scope: demo.scope, banner: "demo", initialPanel: "graph", slots: demo.slots, env: demoEnv(demo) });
  finishDemo(demo);
  return code;
}

async function startDemo(): Promise<Demo> {
  const { createDemo } = await import("../demo/scope.ts");
  return createDemo();
}

/** The demo approves into its own store beside the example, never into the person's. */
function demoEnv(demo: Demo): Record<string, string | undefined> {
  return { ...process.env, UNLAZY_APPROVAL_DIR: demo.approvalDir };
}

function finishDemo(demo: Demo | null): void {
  if (!demo) return;
  demo.stop();
  out(`kbz demo: the example's files stay in ${demo.root}`);
}

export const verb: Verb = {
  command: "dash",
  describe: "open the live dashboard (prints kbz status when not on a terminal)",
  builder: (y) =>
    y
      .option("scope", { type: "string", describe: "use .unlazy/ID (or UNLAZY_SCOPE); a picker when several exist", requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: current directory)", requiresArg: true })
      .option("slots", { type: "number", describe: "slots for the Queue's kbz next advice (default 4)", requiresArg: true }),
  handler: async (argv) => {
    if (argv.slots !== undefined && !(Number.isSafeInteger(argv.slots) && argv.slots > 0)) throw new UsageError("--slots must be a positive integer");
    const root = canonicalRoot(argv.root ?? process.cwd());
    const scope: string | null = (argv.scope ?? process.env.UNLAZY_SCOPE ?? null) || null;
    if (scope !== null && !isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
    if (!onTerminal()) return printStatus(snapshotFor({ root, scope: scope ?? undefined }), false);
    return openDashboard(root, scope, argv.slots);
  },
};

export const demoVerb: Verb = {
  command: "demo",
  describe: "open the dashboard on a built-in example plan whose leaves advance while you watch",
  builder: (y) => y,
  handler: async () => {
    if (onTerminal()) return openDemo();
    const { createDemo } = await import("../demo/scope.ts");
    const demo = await createDemo({ drive: false });
    demo.stop();
    out(`kbz demo: example scope copied to ${demo.root}`);
    out();
    return printStatus(snapshotFor({ root: demo.root, scope: demo.scope }), false) === 2 ? 2 : 0;
  },
};
