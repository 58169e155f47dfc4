// Who may do what (docs/formats.md#person-policy). Approving a CHECK, signing a manual gate,
// revoking or pruning approvals, changing the policy and removing the Stop hook are a person's
// acts. Under the default `person` policy kbz gives them only to a person: a terminal on stdin
// and stderr and no agent host's marker in the environment (an agent can give itself a terminal
// with `script`, not lose its host's variables). The `agent` policy, set by a person, restores
// unlazy's consent model: `--approve` from any shell. Every act that goes through is logged in
// the approval store with how it was given (io/run/consent.ts).
import { KbzError } from "./errors.ts";
import { kbz, placeholder as ph } from "./text/command.ts";

/** Environment variables agent hosts set in the shells they run (docs/formats.md#person-policy). */
export const AGENT_MARKERS = [
  "CLAUDECODE",
  "GEMINI_CLI",
  "CODEX_SANDBOX",
  "CODEX_THREAD_ID",
  "CURSOR_AGENT",
  "GOOSE_TERMINAL",
  "AGENT",
  "AI_AGENT",
] as const;

export type PersonAct = "approve" | "sign" | "revoke" | "prune" | "policy" | "uninstall";

type Env = Record<string, string | undefined>;

const ACT_TEXT: Record<PersonAct, { what: string; hint: string }> = {
  approve: {
    what: "approving a CHECK",
    hint: `a person approves this: press \`a\` in the dashboard or run \`${kbz("approve")}\` in a terminal`,
  },
  sign: {
    what: "signing a manual gate",
    hint: `a person signs this: ask the user to review the gate and run \`${kbz("sign", ph("LEDGER"), ph("GATE"), { evidence: ph('"…"') })}\` in a terminal`,
  },
  revoke: {
    what: "revoking approvals",
    hint: `a person revokes approvals: ask the user to run \`${kbz("approvals revoke", ph("…"))}\` in a terminal`,
  },
  prune: {
    what: "pruning approvals and removed gates",
    hint: `a person confirms this: ask the user to run \`${kbz("approvals prune")}\` in a terminal`,
  },
  policy: {
    what: "changing the consent policy",
    hint: `a person sets the policy: ask the user to run \`${kbz("approvals policy", ph("agent|person"))}\` in a terminal`,
  },
  uninstall: {
    what: "removing the Stop hook",
    hint: `a person removes the Stop hook: ask the user to run \`${kbz("hook install", { uninstall: true })}\` in a terminal`,
  },
};

/** A person's act refused: exit 1 (needs review), never 2; the hint says who does it and where. */
export class PersonOnlyError extends KbzError {
  constructor(act: PersonAct, why: string) {
    super(`refused: ${ACT_TEXT[act].what} is a person's act, and ${why}`, {
      kind: "refused",
      code: "person-only",
      hint: ACT_TEXT[act].hint,
    });
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

/** Why `actor` is not a person, or null when it is one. */
export function notAPerson(actor: Actor): string | null {
  if (actor.marker) return `kbz runs under an agent here (${actor.marker} is set)`;
  if (!actor.terminal) return "kbz has no terminal here (stdin and stderr are not a TTY)";
  return null;
}
