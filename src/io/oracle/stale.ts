// Met gates whose oracle changed since their pass (issue 27): status, the Stop hook, `kbz next`
// and the dashboard call this with the ledger they read. The CHECK directory is recomputed from
// the ledger (never taken from the store), and only gates whose pass was recorded are re-hashed,
// so a workspace without records costs one failed open per ledger.
import * as fs from "node:fs";
import * as path from "node:path";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { Gate, Ledger } from "../../core/ledger/model.ts";
import { isRunnable } from "../../core/ledger/model.ts";
import { gateState } from "../../core/ledger/state.ts";
import type { Env } from "../run/shell.ts";
import { oracleBinding, type OracleBinding } from "./binding.ts";
import { readOracleStore } from "./store.ts";

/** The files that differ between a recorded pass and now (changed, added or removed), sorted. */
export function changedFiles(recorded: Record<string, string>, now: Record<string, string>): string[] {
  const names = new Set([...Object.keys(recorded), ...Object.keys(now)]);
  return [...names].filter((n) => recorded[n] !== now[n]).sort();
}

export function oracleChangeReason(changed: string[]): string {
  const shown = changed.length > 3 ? `${changed.slice(0, 3).join(", ")}, +${changed.length - 3} more` : changed.join(", ");
  return `STALE (oracle changed: ${shown}; needs a person's approval again)`;
}

/**
 * Why each met gate's oracle is stale now (gate id → reason). `base` is the folder a gate's CWD is
 * relative to (the root for discovered and scope ledgers, see io/check/plan.ts baseDir).
 */
export function oracleStaleness(root: string, file: string, display: string, base: string, ledger: Ledger, isMet: (g: Gate) => boolean, env: Env = process.env): Map<string, string> {
  const out = new Map<string, string>();
  const candidates = ledger.gates.filter((g) => isRunnable(g) && g.checked);
  if (candidates.length === 0) return out;
  const store = readOracleStore(root, file);
  for (const g of candidates) {
    const rec = store.gates[g.id];
    if (!rec || typeof rec.files !== "object" || rec.files === null || rec.evidence !== g.evidence || rec.definition !== gateDigest(g) || !isMet(g)) continue;
    let now: OracleBinding;
    try {
      const dir = g.cwd ? path.resolve(base, g.cwd) : base;
      let cwd = dir;
      try {
        cwd = fs.realpathSync(dir);
      } catch {}
      now = oracleBinding({ root, display, gate: g, cwd, env });
    } catch (e) {
      out.set(g.id, `STALE (oracle cannot be bound: ${(e as Error).message})`);
      continue;
    }
    const changed = changedFiles(rec.files, now.files);
    if (changed.length > 0) out.set(g.id, oracleChangeReason(changed));
  }
  return out;
}

/** INPUTS staleness plus oracle staleness (an INPUTS reason, found first, wins for a gate). */
export function withOracleStaleness(inputs: Map<string, string>, root: string, file: string, display: string, base: string, ledger: Ledger): Map<string, string> {
  const oracle = oracleStaleness(root, file, display, base, ledger, (g) => !inputs.has(g.id) && gateState(g, ledger) === "met");
  for (const [id, reason] of oracle) inputs.set(id, reason);
  return inputs;
}
