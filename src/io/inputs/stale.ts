// Evidence bound to inputs (issue 18): a met gate that declares INPUTS stays met only while
// the side store holds a record of this very pass (same definition digest, same evidence line,
// same INPUTS) and every input still has the digest recorded then. Issue 28: the record's CHECK
// directory is used only when it is a directory inside the root (a record pointed elsewhere,
// `/proc` say, is void, never read); INPUTS matching more files than the cap are unmet.
import * as fs from "node:fs";
import * as path from "node:path";
import { gateDigest } from "../../core/ledger/digest.ts";
import type { Gate, Ledger } from "../../core/ledger/model.ts";
import { isInside, ledgerBase } from "../../core/workspace/inside.ts";
import { expandInputs, TOO_MANY_INPUTS } from "./expand.ts";
import { changedInput, digestInputs, readInputStore } from "./store.ts";
import { DeadlineError } from "../deadline.ts";

/** The record's CHECK directory, when it is a real directory inside the root; else null. */
function checkDir(root: string, cwd: unknown): string | null {
  if (typeof cwd !== "string" || !path.isAbsolute(cwd)) return null;
  try {
    const real = fs.realpathSync(cwd);
    return isInside(fs.realpathSync(root), real) && fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** Why each met gate with INPUTS is stale now (gate id → reason); empty when none is. */
export function inputStaleness(root: string, file: string, ledger: Ledger, isMet: (g: Gate) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  const withInputs = ledger.gates.filter((g) => g.inputs);
  if (withInputs.length === 0) return out;
  const bound = withInputs.filter((g) => isMet(g));
  // A gate not met yet whose INPUTS are over the cap can never be met: say so before it is run.
  for (const g of withInputs) {
    if (bound.includes(g) || !g.check) continue;
    const cwd = g.cwd ? path.resolve(ledgerBase(file), g.cwd) : ledgerBase(file);
    if (expandInputs(cwd, g.inputs!).truncated) out.set(g.id, TOO_MANY_INPUTS);
  }
  if (bound.length === 0) return out;
  const store = readInputStore(root, file);
  for (const g of bound) {
    const rec = store.gates[g.id];
    if (!rec || rec.definition !== gateDigest(g) || rec.evidence !== g.evidence) {
      out.set(g.id, "STALE (no input digest recorded for this evidence; run kbz check --reverify)");
      continue;
    }
    if (JSON.stringify(rec.inputs) !== JSON.stringify(g.inputs)) {
      out.set(g.id, "STALE (INPUTS changed since the pass)");
      continue;
    }
    const cwd = checkDir(root, rec.cwd);
    if (cwd === null) {
      out.set(g.id, "STALE (the recorded CHECK directory is not inside the repository; run kbz check --reverify)");
      continue;
    }
    let now: ReturnType<typeof digestInputs>;
    try {
      now = digestInputs(root, cwd, g.inputs!);
    } catch (e) {
      if (e instanceof DeadlineError && !e.file) throw new DeadlineError(e.seconds, e.what, path.relative(root, file) || file);
      throw e;
    }
    if (now.truncated) {
      out.set(g.id, `STALE (${TOO_MANY_INPUTS})`);
      continue;
    }
    const changed = changedInput(rec, now.files);
    if (changed) out.set(g.id, `STALE (input changed: ${changed})`);
  }
  return out;
}
