// Who may do what (docs/formats.md#person-policy). Approving a CHECK, signing a manual gate,
// revoking or pruning approvals, changing the policy and removing the Stop hook are a person's
// acts. Under the default `person` policy kbz gives them only to a person: a terminal on stdin
// and stderr and no agent host's marker in the environment (an agent can give itself a terminal
// with `script`, not lose its host's variables). The `agent` policy, set by a person, restores
// unlazy's consent model: `--approve` from any shell. Every act that goes through is logged in
// the approval store with how it was given.
import { isatty } from "node:tty";
import { KbzError } from "../core/errors.ts";
import { approvalDirFor } from "../io/run/approval.ts";
import { logAct, readPolicy, type Given, type Policy } from "../io/run/personal.ts";

/** Environment variables agent hosts set in the shells they run (docs/formats.md#person-policy). */
export const AGENT_MARKERS = ["CLAUDECODE", "GEMINI_CLI", "CODEX_SANDBOX", "CODEX_THREAD_ID", "CURSOR_AGENT", "GOOSE_TERMINAL", "AGENT", "AI_AGENT"] as const;

export type PersonAct = "approve" | "sign" | "revoke" | "prune" | "policy" | "uninstall";

type Env = Record<string, string | undefined>;

const ACT_TEXT: Record<PersonAct, { what: string; hint: string }> = {
  approve: { what: "approving a CHECK", hint: "a person approves this: press `a` in the dashboard or run `kbz approve` in a terminal" },
  sign: { what: "signing a manual gate", hint: "a person signs this: ask the user to review the gate and run `kbz sign LEDGER GATE --evidence \"…\"` in a terminal" },
  revoke: { what: "revoking approvals", hint: "a person revokes approvals: ask the user to run `kbz approvals revoke …` in a terminal" },
  prune: { what: "pruning approvals and removed gates", hint: "a person confirms this: ask the user to run `kbz approvals prune` in a terminal" },
  policy: { what: "changing the consent policy", hint: "a person sets the policy: ask the user to run `kbz approvals policy agent|person` in a terminal" },
  uninstall: { what: "removing the Stop hook", hint: "a person removes the Stop hook: ask the user to run `kbz hook install --uninstall` in a terminal" },
};

/** A person's act refused: exit 1 (needs review), never 2; the hint says who does it and where. */
export class PersonOnlyError extends KbzError {
  constructor(act: PersonAct, why: string) {
    super(`refused: ${ACT_TEXT[act].what} is a person's act, and ${why}`, { kind: "refused", code: "person-only", hint: ACT_TEXT[act].hint });
  }
}

/** The first agent host marker set in `env`, or null. */
export function agentMarker(env: Env): string | null {
  return AGENT_MARKERS.find((m) => env[m] !== undefined && env[m] !== "") ?? null;
}

export interface Actor {
  /** stdin and stderr are both terminals. */
  terminal: boolean;
  marker: string | null;
}

export function currentActor(env: Env): Actor {
  return { terminal: isatty(0) && isatty(2), marker: agentMarker(env) };
}

/** Why `actor` is not a person, or null when it is one. */
export function notAPerson(actor: Actor): string | null {
  if (actor.marker) return `kbz runs under an agent here (${actor.marker} is set)`;
  if (!actor.terminal) return "kbz has no terminal here (stdin and stderr are not a TTY)";
  return null;
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
