// The demo's acts (`kbz demo`): what its driver, a stand-in for an orchestrating agent, does to
// the demo folder, through the same effects a real driver's commands reach: claims and releases
// of leases, dispatch transitions, a row's State, a leaf gate ticked with reviewed evidence, the
// status log. The demo (src/demo/) decides the steps and calls these; it imports no io module.
import * as path from "node:path";
import { applyGateEdit } from "../core/ledger/edit.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import { leafLedgerName, leafStem } from "../core/plan/leaf-id.ts";
import { idCompare } from "../core/plan/order.ts";
import { parsePlan, type RowState } from "../core/plan/table.ts";
import type { DispatchAction } from "../core/dispatch/waves.ts";
import { claimLease, releaseLeases } from "../io/dispatch/leases.ts";
import { appendStatus, statusLogPath } from "../io/dispatch/statuslog.ts";
import { commitDispatch } from "../io/dispatch/transition.ts";
import { writeAtomic } from "../io/fs.ts";
import { withFileLock } from "../io/lock.ts";
import { readScopeText } from "../io/read.ts";
import { writePolicy } from "../io/run/personal.ts";

/** The demo's folder: its root and its one scope. */
export interface DemoPlace {
  root: string;
  scope: string;
}

const compare = idCompare("natural");
const scopeDir = (f: DemoPlace) => path.join(f.root, ".unlazy", f.scope);

/** One timestamped line in the scope's status log. */
export function demoLog(f: DemoPlace, text: string): void {
  appendStatus(statusLogPath(f.root, f.scope), `${new Date().toISOString()} ${text}`);
}

/** Rewrite the State cell of these rows; each row is found by the core PLAN parser. */
export async function demoSetStates(f: DemoPlace, ids: string[], state: RowState): Promise<void> {
  const file = path.join(scopeDir(f), "PLAN.md");
  await withFileLock(f.root, file, () => {
    const text = readScopeText(f.root, f.scope, "PLAN.md") ?? "";
    const plan = parsePlan(text, compare);
    const lines = text.split("\n");
    for (const id of ids) {
      const row = plan.byId.get(id)!;
      lines[row.line - 1] = lines[row.line - 1]!.replace(/\|[^|]*\|\s*$/, `| ${state} |`);
    }
    writeAtomic(file, lines.join("\n"), { root: f.root });
  });
}

/**
 * Tick the first unchecked gate of a leaf with reviewed evidence after writing the `work` file
 * its "agent" produced; false when no gate is left.
 */
export async function demoTickGate(f: DemoPlace, id: string, agent: string, work: [string, string]): Promise<boolean> {
  const file = path.join(scopeDir(f), "gates", leafLedgerName(id));
  return withFileLock(f.root, file, () => {
    const ledger = parseLedger(readScopeText(f.root, f.scope, `gates/${leafLedgerName(id)}`) ?? "", leafStem(id));
    const gate = ledger.gates.find((g) => !g.checked);
    if (!gate) return false;
    const [rel, content] = work;
    writeAtomic(path.join(f.root, rel), content, { root: f.root, createParents: true });
    writeAtomic(
      file,
      applyGateEdit(ledger, gate, { checked: true, evidence: `reviewed by the demo driver: ${agent} finished ${rel}` }),
      { root: f.root },
    );
    demoLog(f, `demo: ${agent} met ${leafStem(id)}:${gate.id}`);
    return true;
  });
}

/** Claim a leaf's OWNS paths; whether the claim was granted. */
export async function demoClaim(f: DemoPlace, id: string, owns: string[]): Promise<boolean> {
  return (await claimLease(f.root, f.scope, leafStem(id), owns)).ok;
}

/** Release a leaf's lease. */
export async function demoRelease(f: DemoPlace, id: string): Promise<void> {
  await releaseLeases(f.root, f.scope, leafStem(id));
}

/** One dispatch transition (open, start, seal, return). */
export async function demoDispatch(f: DemoPlace, action: DispatchAction): Promise<void> {
  await commitDispatch(f.root, f.scope, action);
}

/** The demo's own approval store runs under the agent policy (a throwaway folder). */
export function demoPolicy(approvalDir: string): void {
  writePolicy(approvalDir, "agent", "terminal");
}
