// What a verb's snapshot says is waiting for the person (manual gates not met, oracles not approved),
// for the PERSON line (core/text/person.ts).
import * as path from "node:path";
import { isRunnable } from "../core/ledger/model.ts";
import type { GateView } from "../core/snapshot.ts";
import type { Signoff } from "../core/text/person.ts";

export function waitingSignoffs(gates: readonly GateView[], root: string): Signoff[] {
  return gates
    .filter((g) => !isRunnable(g.gate) && g.state !== "met" && g.state !== "abandoned")
    .map((g) => ({ qid: g.qid, ledger: path.relative(root, g.file).split(path.sep).join("/"), gate: g.gate.id }));
}

/** The scope a ledger belongs to (`.unlazy/<scope>/…`), or null for a solo ledger. */
export function scopeOf(file: string, root: string): string | null {
  const rel = path.relative(root, file).split(path.sep);
  return rel[0] === ".unlazy" && rel.length > 2 ? rel[1]! : null;
}

export function relativeTo(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}
