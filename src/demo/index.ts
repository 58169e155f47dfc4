// The built-in demo: an example ledger embedded in the binary, shown when a folder has none.
import demoLedger from "./GATES.md" with { type: "text" };
import { parseLedger } from "../core/ledger/parse.ts";
import { gateState, qualifiedId } from "../core/ledger/state.ts";
import type { Snapshot } from "../core/snapshot.ts";

export const DEMO_ROOT = "(kbz demo)";

export function demoSnapshot(): Snapshot {
  const ledger = parseLedger(demoLedger, "GATES");
  const file = `${DEMO_ROOT}/GATES.md`;
  return {
    target: { root: DEMO_ROOT, mode: "legacy", scope: null, files: [file], discoveryErrors: [] },
    ledgers: [{ file, display: "GATES.md", stem: "GATES", ledger, problems: [], warnings: [], unreadable: false }],
    gates: ledger.gates.map((gate) => ({ qid: qualifiedId(ledger, gate), file, gate, state: gateState(gate, ledger) })),
    problems: [],
  };
}
