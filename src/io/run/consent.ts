// Consent to a person's act (docs/formats.md#person-policy): who is at the terminal, the policy of
// the approval store, and the log of the acts that went ahead. Who counts as a person and which
// acts are a person's is core/person.ts.
import { isatty } from "node:tty";
import { agentMarker, notAPerson, PersonOnlyError, type Actor, type PersonAct } from "../../core/person.ts";
import { approvalDirFor } from "./approval.ts";
import { logAct, readPolicy, type Given, type Policy } from "./personal.ts";

type Env = Record<string, string | undefined>;

/** Who runs kbz here: terminals on stdin and stderr, and an agent host's marker. */
export function currentActor(env: Env): Actor {
  return { terminal: isatty(0) && isatty(2), marker: agentMarker(env) };
}

/** Proof that a person's act may go ahead, and how it was given (kept in the records it leaves). */
export interface Consent {
  act: PersonAct;
  given: Given;
  policy: Policy;
  store: string;
}

export interface ConsentOptions {
  env: Env;
  /** The dashboard passes "dashboard"; a verb run from a shell is "terminal". */
  via?: "terminal" | "dashboard";
  /** Acts that stay a person's under every policy (changing the policy itself). */
  always?: boolean;
  actor?: Actor;
}

/** The policy of the approval store `env` names (UNLAZY_APPROVAL_DIR or ~/.unlazy/approved). */
export function policyFor(env: Env): Policy {
  return readPolicy(approvalDirFor(env));
}

/**
 * May this act go ahead? Under the agent policy anyone may (given "agent" unless a person is at
 * the terminal); under the person policy only a person, else a PersonOnlyError.
 */
export function requirePerson(act: PersonAct, o: ConsentOptions): Consent {
  const store = approvalDirFor(o.env);
  const policy = readPolicy(store);
  const why = notAPerson(o.actor ?? currentActor(o.env));
  if (why && (policy === "person" || o.always)) throw new PersonOnlyError(act, why);
  return { act, given: why ? "agent" : (o.via ?? "terminal"), policy, store };
}

/** Log a person's act in the approval store (`acts.log`): what, how it was given, and on what. */
export function logConsent(c: Consent, details: string): void {
  logAct(c.store, c.act, c.given, details);
}
