// Consent to a person's act (docs/formats.md#person-policy): who is at the terminal, the policy of
// the approval store, and the log of the acts that went ahead. Who counts as a person and which
// acts are a person's is core/person.ts.
import { isatty } from "node:tty";
import { agentMarker, notAPerson, PersonOnlyError, type Actor, type PersonAct } from "../../core/person.ts";
import { approvalDirFor } from "./approval.ts";
import { ancestorHost } from "./ancestry.ts";
import { logAct, readPolicyState, type Given, type Policy } from "./personal.ts";

type Env = Record<string, string | undefined>;

/** Who runs kbz here: terminals on stdin and stderr, and an agent host (its marker, or an ancestor process). */
export function currentActor(env: Env): Actor {
  return { terminal: isatty(0) && isatty(2), host: agentMarker(env) ?? ancestorHost() };
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
  return readPolicyState(approvalDirFor(env)).policy;
}

/**
 * May this act go ahead? Under the agent policy anyone may (given "agent" unless a person is at
 * the terminal); under the person and signed policies only a person, else a PersonOnlyError.
 */
export function requirePerson(act: PersonAct, o: ConsentOptions): Consent {
  const store = approvalDirFor(o.env);
  const state = readPolicyState(store);
  const policy = state.policy;
  const why = notAPerson(o.actor ?? currentActor(o.env));
  // `signed` gives no act away: a signature is asked on top of a person.
  if (why && (policy !== "agent" || o.always))
    throw new PersonOnlyError(
      act,
      state.handEdited ? `${why}; policy.json was edited by hand, so the person policy holds` : why,
    );
  return { act, given: why ? "agent" : (o.via ?? "terminal"), policy, store };
}

/** Log a person's act in the approval store (`acts.log`): what, how it was given, and on what. */
export function logConsent(c: Consent, details: string): void {
  logAct(c.store, c.act, c.given, details);
}
