// Committing a dispatch action: per-file lock, re-load, apply, validated atomic write, then the
// audit line. dispatch.json is the authority; a failed audit append only becomes a warning.
import { withFileLock } from "../workspace/lock.ts";
import { writeAtomic } from "../workspace/fs.ts";
import { isValidId } from "../workspace/discover.ts";
import { escapeField } from "../text/sanitize.ts";
import { applyDispatch, dispatchPath, DispatchActionError, idMessage, loadDispatch, serializeDispatch, type DispatchAction, type Transition } from "./waves.ts";
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

export async function commitDispatch(root: string, scope: string, action: DispatchAction, opts: CommitOptions = {}): Promise<CommittedTransition> {
  if (!isValidId(scope)) throw new DispatchActionError(idMessage("scope"));
  const file = dispatchPath(root, scope);
  const notes: string[] = [];
  const t = await withFileLock(
    root,
    file,
    () => {
      const { state } = loadDispatch(root, scope);
      const next = applyDispatch(state, action, (opts.now ?? (() => new Date()))());
      writeAtomic(file, serializeDispatch(next.state), { root, createParents: true, mode: 0o600 });
      return next;
    },
    { timeoutMs: opts.timeoutMs, onRecovered: recoveryLogger(root, scope, notes) },
  );
  let auditWarning: string | null = null;
  try {
    appendStatus(statusLogPath(root, scope), `${new Date().toISOString()} ${t.event}`);
  } catch (e) {
    auditWarning = `state transition committed; audit status append was skipped: ${escapeField((e as Error).message, 500)}`;
  }
  return { ...t, auditWarning, notes };
}
