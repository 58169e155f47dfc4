// What the commands record in a scope's status log besides dispatch transitions: claims,
// releases, structure operations and check results, each as `<ISO time> <event>` (the line
// shape dispatch events already have, so every reader sees one format). The append goes through
// the coordination port (files or etcd); a failed append never undoes or fails the command: the caller
// gets a warning line to print.
import type { Coordination } from "./port.ts";

const STAMPED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /;

/** `text` with the time in front, unless it already starts with an ISO time. */
export function stamped(text: string, now: Date = new Date()): string {
  return STAMPED.test(text) ? text : `${now.toISOString()} ${text}`;
}

/** Append one event to the scope's log; returns a warning instead of throwing. */
export async function logEvent(
  coord: Coordination,
  scope: string,
  event: string,
  now: Date = new Date(),
): Promise<string | null> {
  try {
    await coord.appendStatus(scope, stamped(event.replace(/[\r\n]+/g, " "), now));
    return null;
  } catch (e) {
    return `kbz: warning: ${event.split(" ")[0]} done; status log append skipped: ${(e as Error).message}`;
  }
}

/** One event per check that ran: `check <qid> passed` or `check <qid> failed: <why>`. */
export function checkEvents(
  runs: { task: { qid: string }; outcome: { ok: boolean; error: string | null; exitCode: number | null } }[],
): string[] {
  return runs.map(({ task, outcome }) => {
    if (outcome.ok) return `check ${task.qid} passed`;
    const why =
      outcome.error ??
      (outcome.exitCode !== 0 && outcome.exitCode !== null ? `exit ${outcome.exitCode}` : "EXPECT did not match");
    return `check ${task.qid} failed: ${why.length > 200 ? `${why.slice(0, 199)}…` : why}`;
  });
}
