// Committing a dispatch action: per-file lock, re-load, apply, validated atomic write, then the
// audit line. dispatch.json is the authority; a failed audit append only becomes a warning.
import * as fs from "node:fs";
import * as path from "node:path";
import { withFileLock } from "../lock.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { writeAtomic } from "../fs.ts";
import { isValidId } from "../../core/workspace/ids.ts";
import { escapeField } from "../../core/text/sanitize.ts";
import {
  applyDispatchAll,
  dispatchPath,
  DispatchActionError,
  idMessage,
  serializeDispatch,
  type DispatchAction,
  type Transition,
} from "../../core/dispatch/waves.ts";
import { loadDispatch } from "../read.ts";
import { appendStatus, recoveryLogger, statusLogPath } from "./statuslog.ts";

export interface CommittedTransition extends Transition {
  /** Set when the state was committed but the status.log append failed. */
  auditWarning: string | null;
  /** Lock recoveries and similar notes for the person running the command. */
  notes: string[];
}

export interface CommitOptions {
  now?: () => Date;
  timeoutMs?: number;
}

/** `.unlazy` and `.unlazy/<scope>`, where they exist, must be real directories inside the root. */
function checkScopeDir(root: string, scope: string): void {
  for (const dir of [path.join(root, ".unlazy"), path.join(root, ".unlazy", scope)]) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      return;
    }
    if (st.isSymbolicLink() || !st.isDirectory() || !isInside(root, fs.realpathSync(dir))) {
      throw new DispatchActionError("scope directory must be a real directory inside the repository", dir);
    }
  }
}

/** One action, or several applied in order and written once (one lock, one atomic write). */
export async function commitDispatch(
  root: string,
  scope: string,
  action: DispatchAction | DispatchAction[],
  opts: CommitOptions = {},
): Promise<CommittedTransition> {
  const actions = Array.isArray(action) ? action : [action];
  if (!isValidId(scope)) throw new DispatchActionError(idMessage("scope"));
  checkScopeDir(root, scope);
  const file = dispatchPath(root, scope);
  const now = opts.now ?? (() => new Date());
  // Dry run without the lock first: a refused action or an invalid state must not even create
  // the locks directory. The locked run below is the authoritative one.
  applyDispatchAll(loadDispatch(root, scope).state, actions, now());
  const notes: string[] = [];
  const t = await withFileLock(
    root,
    file,
    () => {
      const { state } = loadDispatch(root, scope);
      const next = applyDispatchAll(state, actions, now());
      writeAtomic(file, serializeDispatch(next.state), { root, createParents: true, mode: 0o600 });
      return next;
    },
    { timeoutMs: opts.timeoutMs, onRecovered: recoveryLogger(root, scope, notes) },
  );
  let auditWarning: string | null = null;
  try {
    const at = new Date().toISOString();
    for (const event of t.events) appendStatus(statusLogPath(root, scope), `${at} ${event}`);
  } catch (e) {
    auditWarning = `state transition committed; audit status append was skipped: ${escapeField((e as Error).message, 500)}`;
  }
  return { ...t, auditWarning, notes };
}
