// The demo scope: an example plan embedded in the binary, copied to a fresh temp folder so the
// demo never touches the person's files, with its own approval store beside (never inside) it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { demoPolicy } from "../ops/demo.ts";
import plan from "./scope/PLAN.md" with { type: "text" };
import accessJson from "./scope/ACCESS.json" with { type: "text" };
import gates from "./scope/GATES.md" with { type: "text" };
import leaf11 from "./scope/gates/leaf-1.1.md" with { type: "text" };
import leaf12 from "./scope/gates/leaf-1.2.md" with { type: "text" };
import leaf21 from "./scope/gates/leaf-2.1.md" with { type: "text" };
import leaf22 from "./scope/gates/leaf-2.2.md" with { type: "text" };
import leaf31 from "./scope/gates/leaf-3.1.md" with { type: "text" };
import leaf32 from "./scope/gates/leaf-3.2.md" with { type: "text" };

// TypeScript types a .json import as parsed data; the text loader gives the file's bytes as a string.
const access = accessJson as unknown as string;

export const DEMO_SCOPE = "checkout";
/** Slots for the demo's scheduling: enough for its widest layer to run at once. */
export const DEMO_SLOTS = 3;

export const DEMO_FILES: Record<string, string> = {
  "PLAN.md": plan,
  "ACCESS.json": access,
  "GATES.md": gates,
  "gates/leaf-1.1.md": leaf11,
  "gates/leaf-1.2.md": leaf12,
  "gates/leaf-2.1.md": leaf21,
  "gates/leaf-2.2.md": leaf22,
  "gates/leaf-3.1.md": leaf31,
  "gates/leaf-3.2.md": leaf32,
};

export interface DemoFolder {
  root: string; // the example repository (canonical path)
  scope: string;
  approvalDir: string; // private store for the demo's approvals, outside the root
}

/** Copy the example scope into a new temp folder. */
export function writeDemoFolder(parent = os.tmpdir()): DemoFolder {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, "kbz-demo-")));
  const root = path.join(base, "repo");
  const scopeDir = path.join(root, ".unlazy", DEMO_SCOPE);
  fs.mkdirSync(path.join(scopeDir, "gates"), { recursive: true });
  fs.mkdirSync(path.join(root, "web"), { recursive: true });
  for (const [rel, text] of Object.entries(DEMO_FILES)) fs.writeFileSync(path.join(scopeDir, rel), text);
  const approvalDir = path.join(base, "approved");
  fs.mkdirSync(approvalDir, { mode: 0o700 });
  // The demo's agents (its driver) tick leaf evidence in the ledgers as unlazy's agents do: its
  // private store is under the agent policy, so their ticks count (under the person policy they
  // would read UNATTESTED and the plan would stop after its first wave). Approving the root's
  // checks and signing I3 stay the person's acts, given in the dashboard.
  demoPolicy(approvalDir);
  return { root, scope: DEMO_SCOPE, approvalDir };
}

/**
 * Point this process at the demo's store (every reader of approvals and attestations, not only
 * the dashboard's runs): the demo's verdicts never depend on the person's own store. Returns
 * the undo.
 */
export function useDemoStore(folder: DemoFolder): () => void {
  const before = process.env.UNLAZY_APPROVAL_DIR;
  process.env.UNLAZY_APPROVAL_DIR = folder.approvalDir;
  return () => {
    if (before === undefined) delete process.env.UNLAZY_APPROVAL_DIR;
    else process.env.UNLAZY_APPROVAL_DIR = before;
  };
}

export interface Demo extends DemoFolder {
  slots: number;
  /** Stop advancing the leaves (the files stay until remove()). */
  stop(): void;
  /** Stop, and remove the temporary folder (the example and its private approval store). */
  remove(): void;
}

export async function createDemo(opts: { drive?: boolean } = {}): Promise<Demo> {
  const folder = writeDemoFolder();
  const base = path.dirname(folder.root);
  // The driver below, the dashboard's reads and its runs all use the demo's store.
  const restore = useDemoStore(folder);
  // However kbz ends (q, ctrl-c, an error), the temporary folder goes with it.
  const cleanup = () => fs.rmSync(base, { recursive: true, force: true });
  process.once("exit", cleanup);
  let stop = () => {};
  if (opts.drive !== false) {
    const { startDriver } = await import("./driver.ts");
    // KBZ_DEMO_STEP_MS: the pause between the driver's steps (default 900 ms; tests play it faster).
    const step = Number(process.env.KBZ_DEMO_STEP_MS);
    const driver = startDriver(folder, Number.isInteger(step) && step > 0 ? step : undefined);
    stop = () => driver.stop();
  }
  return {
    ...folder,
    slots: DEMO_SLOTS,
    stop,
    remove() {
      stop();
      restore();
      cleanup();
      process.removeListener("exit", cleanup);
    },
  };
}
