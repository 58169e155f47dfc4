// Helpers shared by the pipeline verbs (scope, wave): root and scope arguments, and mapping
// infrastructure failures (locks, atomic writes, the status log) to a RefusedError (exit 2, via envelope.ts).
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { escapeField } from "../core/text/sanitize.ts";
import { targetOf } from "../ops/workspace.ts";
import type { Target } from "../core/workspace/target.ts";
import { displayPath } from "../core/snapshot.ts";
import { requestedScope } from "./context.ts";
import { err } from "./output.ts";

export interface PipelineArgs {
  action?: string;
  args?: string[];
  scope?: string;
  root?: string;
  json?: boolean;
}

export { requestedScope, rootFor as rootOf } from "./context.ts";

/** A scope that exists and has no discovery problems (claim, log, bind need one). */
export function resolvedScope(root: string, argv: PipelineArgs, verb: string): Target & { scope: string } {
  const target = targetOf(root, [], requestedScope(argv));
  if (target.mode !== "scope" || target.scope === null) {
    throw new UsageError(`${verb} needs a scope and there is none under .unlazy/`, {
      hint: `create one with ${kbz("init", { scope: ph("ID") })}, or pass --root`,
    });
  }
  if (target.discoveryErrors.length > 0) {
    throw new FileProblemsError(
      target.discoveryErrors.map((d) => ({ file: displayPath(root, d.path), line: 1, message: d.message })),
    );
  }
  return target as Target & { scope: string };
}

export function unknownAction(kind: string, action: unknown, known: string[]): UsageError {
  const shown = escapeField(String(action ?? ""), 200);
  return new UsageError(`unknown ${kind} action "${shown}"; expected one of: ${known.join(", ")}`);
}

/** The command was understood but refused (state machine, lock, unsafe file): exit 2, no usage hint. */
// A refusal and the effect wrapper live with the use cases (ops/refused.ts); re-exported for the verbs.
export { infra, RefusedError, refusingPlanInput } from "../ops/refused.ts";

export function printNotes(notes: string[]): void {
  for (const n of notes) err(`kbz: note: ${n}`);
}
