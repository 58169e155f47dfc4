// Helpers shared by the pipeline verbs (scope, wave): root and scope arguments, and mapping
// infrastructure failures (locks, atomic writes, the status log) to one `kbz:` line and exit 2.
import * as path from "node:path";
import { FileProblemsError, UsageError } from "../core/errors.ts";
import { StatusLogError } from "../core/dispatch/statuslog.ts";
import { escapeField } from "../core/text/sanitize.ts";
import { canonicalRoot, isValidId, resolveTarget, SCOPE_ID_MESSAGE, type Target } from "../core/workspace/discover.ts";
import { WriteError } from "../core/workspace/fs.ts";
import { LockTimeoutError } from "../core/workspace/lock.ts";
import { displayPath } from "../core/snapshot.ts";
import { err } from "./output.ts";

export interface PipelineArgs {
  action?: string;
  args?: string[];
  scope?: string;
  root?: string;
  json?: boolean;
}

export function rootOf(argv: PipelineArgs): string {
  return canonicalRoot(argv.root ?? process.cwd());
}

/** `--scope`, else UNLAZY_SCOPE; validated, but not required to exist. */
export function requestedScope(argv: PipelineArgs): string | null {
  const s = argv.scope ?? process.env.UNLAZY_SCOPE ?? null;
  if (s === null || s === "") return null;
  if (!isValidId(s)) throw new UsageError(SCOPE_ID_MESSAGE);
  return s;
}

/** A scope that exists and has no discovery problems (claim, log, bind need one). */
export function resolvedScope(root: string, argv: PipelineArgs, verb: string): Target & { scope: string } {
  const target = resolveTarget({ root, scope: requestedScope(argv) });
  if (target.mode !== "scope" || target.scope === null) {
    throw new UsageError(`${verb} needs a scope: pass --scope ID (no pipelines under .unlazy/)`);
  }
  if (target.discoveryErrors.length > 0) {
    throw new FileProblemsError(target.discoveryErrors.map((d) => ({ file: displayPath(root, d.path), line: 1, message: d.message })));
  }
  return target as Target & { scope: string };
}

export function unknownAction(kind: string, action: unknown, known: string[]): UsageError {
  const shown = escapeField(String(action ?? ""), 200);
  return new UsageError(`unknown ${kind} action "${shown}"; expected one of: ${known.join(", ")}`);
}

/** Run a core effect; infrastructure failures become a usage-style exit 2 with their message. */
export async function infra<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof WriteError || e instanceof LockTimeoutError || e instanceof StatusLogError) throw new UsageError(e.message);
    const code = (e as NodeJS.ErrnoException)?.code;
    if (typeof code === "string" && (e as NodeJS.ErrnoException).syscall) throw new UsageError(`${(e as Error).message}`);
    throw e;
  }
}

export function printNotes(notes: string[]): void {
  for (const n of notes) err(`kbz: note: ${n}`);
}

export function shown(root: string, file: string): string {
  return displayPath(root, path.resolve(file));
}
