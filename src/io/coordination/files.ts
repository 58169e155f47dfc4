// The files adapter (the embedded default): exactly what kbz writes without a coordinator.
// Leases are records under .unlazy/locks/ behind one registry lock, waves are
// .unlazy/<scope>/dispatch.json, the log is .unlazy/<scope>/status.log, the binding is
// .unlazy/<scope>/session, leaf states are PLAN.md's State column. The files are read by
// io/read.ts (the one reader). Reads are lazy: a view reads a
// file only when asked, so a command that never looks at leases never lists the locks directory.
import { claimLease, releaseLeases, removeInvalidLeases } from "../dispatch/leases.ts";
import { bindSession, readSessionFile } from "../dispatch/session.ts";
import { appendStatus, statusLogPath } from "../dispatch/statuslog.ts";
import { commitDispatch } from "../dispatch/transition.ts";
import { loadDispatch, readDispatchText, readLeaseRecords, readStatusLog } from "../read.ts";
import type { CoordinationView, Coordination } from "./port.ts";

export const MAX_LOG_BYTES = 8 * 1024 * 1024;

/** Lines of a log text, oldest first, without the trailing empty line. */
export function logLines(text: string, max: number): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.slice(-max);
}

export function filesView(root: string): CoordinationView {
  return {
    kind: "files",
    leases: () => readLeaseRecords(root),
    dispatchText: (scope, read) => (read ? read() : readDispatchText(root, scope)),
    dispatch: (scope) => loadDispatch(root, scope),
    session: (scope) => readSessionFile(root, scope),
    statusLog: (scope, max = 500) => {
      const text = readStatusLog(root, scope);
      return text === null ? [] : logLines(text, max);
    },
    leafStates: () => null,
    lost: () => [],
  };
}

export function filesCoordination(root: string): Coordination {
  return {
    kind: "files",
    label: "files",
    view: async () => filesView(root),
    claim: (scope, leaf, globs) => claimLease(root, scope, leaf, globs),
    release: async (scope, leaf) => ({ ...(await releaseLeases(root, scope, leaf)), alreadyLost: [] }),
    removeInvalid: () => removeInvalidLeases(root),
    commitDispatch: (scope, action, opts) => commitDispatch(root, scope, action, opts),
    appendStatus: async (scope, text) => appendStatus(statusLogPath(root, scope), text),
    bindSession: async (scope, id) => bindSession(root, scope, id),
    setLeafState: async (_scope, _leaf, _state, editPlan) => {
      await editPlan();
    },
    // The files are watched by the dashboard's own file watcher.
    watch: () => () => {},
    close: () => {},
  };
}
