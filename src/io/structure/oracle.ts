// `kbz structure check`, the S_STRUCTURE oracle (docs/formats.md#structure-selection). It shares the readers and the
// checker with nothing from the planner: load, verify, re-read, report.
import * as path from "node:path";
import { MAX_LEDGER_BYTES } from "../../core/text/decode.ts";
import { kindOf } from "../../core/errors.ts";
import { readStable } from "../read.ts";
import { assertStable, loadStructure } from "./model.ts";
import { fail } from "../../core/structure/model.ts";
import { verifyStructure, type Verdict } from "../../core/structure/verify.ts";

export interface CheckOptions {
  selection?: string | null; // root-relative file
  final?: boolean;
  beforeRecheck?: () => void;
  /** The groups the plan is checked with (`structure check --details` lists them). */
  groups?: (groups: string[][]) => void;
}

export function checkStructure(root: string, scope: string, o: CheckOptions = {}): Verdict {
  const model = loadStructure(root, scope, { receipts: true });
  // Before any structure event the plan is checked as it is, against the registry the first event
  // would synthesize (fixes Kill_bezzangyi bug: structure-check.mjs exited 2, "STRUCTURE registry
  // is not initialized", where its help promised STRUCTURE_OK or STRUCTURE_UNMET).
  let selection: unknown = null;
  if (o.selection != null) {
    try {
      selection = JSON.parse(
        readStable(path.resolve(root, o.selection), { label: "selection", maxBytes: MAX_LEDGER_BYTES, root }).toString(
          "utf8",
        ),
      );
    } catch (e) {
      // Unreadable or not JSON (JSON.parse's SyntaxError); a bug in kbz is not the selection's fault.
      if (e instanceof Error && kindOf(e) !== "bug") fail("invalid selection");
      throw e;
    }
  }
  const verdict = verifyStructure(model, selection, !!o.final);
  o.groups?.(model.meta.groups);
  o.beforeRecheck?.();
  assertStable(model);
  return verdict;
}
