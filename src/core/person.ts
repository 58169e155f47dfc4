// Who may do what (docs/formats.md#person-policy). Approving a CHECK, signing a manual gate,
// revoking or pruning approvals, changing the policy and removing the Stop hook are a person's
// acts. Under the default `person` policy kbz gives them only to a person: a terminal on stdin
// and stderr and no agent host's marker in the environment (an agent can give itself a terminal
// with `script`, not lose its host's variables). The `agent` policy, set by a person, restores
// unlazy's consent model: `--approve` from any shell. Every act that goes through is logged in
// the approval store with how it was given (io/run/consent.ts).
import { KbzError } from "./errors.ts";
import { kbz, placeholder as ph } from "./text/command.ts";

/** Environment variables agent hosts set in the shells they run (docs/formats.md#person-policy), and the host each names. */
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
const MARKER_HOST: Record<(typeof AGENT_MARKERS)[number], string> = {
  CLAUDECODE: "Claude Code",
  GEMINI_CLI: "Gemini CLI",
  CODEX_SANDBOX: "Codex",
  CODEX_THREAD_ID: "Codex",
  CURSOR_AGENT: "Cursor's agent",
  GOOSE_TERMINAL: "Goose",
  AGENT: "an agent host",
  AI_AGENT: "an agent host",
};

/**
 * The agent hosts kbz knows by their process (docs/formats.md#agent-hosts): the executable's or
 * script's base name, or a package path in its command line. An ancestor process that matches
 * one makes kbz count itself run by an agent, marker or not.
 */
export const AGENT_HOSTS: readonly { host: string; names: readonly string[]; packages: readonly string[] }[] = [
  { host: "Claude Code", names: ["claude"], packages: ["@anthropic-ai/claude-code"] },
  {
    host: "Codex",
    names: ["codex", "codex-x86_64-unknown-linux-musl", "codex-aarch64-unknown-linux-musl"],
    packages: ["@openai/codex"],
  },
  { host: "Gemini CLI", names: ["gemini"], packages: ["@google/gemini-cli"] },
  { host: "Cursor's agent", names: ["cursor-agent"], packages: ["cursor-agent"] },
  { host: "Copilot CLI", names: ["copilot"], packages: ["@github/copilot"] },
  { host: "OpenCode", names: ["opencode"], packages: ["opencode-ai"] },
  { host: "Qwen Code", names: ["qwen"], packages: ["@qwen-code/qwen-code"] },
  { host: "Goose", names: ["goose"], packages: ["goose-cli"] },
  { host: "Aider", names: ["aider"], packages: ["aider-chat", "aider/__main__"] },
];

function baseName(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** The host a process is, from its executable path and command line (argv), or null. */
export function hostOfProcess(exe: string, argv: readonly string[]): string | null {
  const names = [baseName(exe), ...argv.slice(0, 2).map(baseName)].map((n) => n.replace(/\.(js|cjs|mjs|exe)$/, ""));
  const line = argv.slice(0, 4).join(" ");
  for (const h of AGENT_HOSTS) {
    if (names.some((n) => h.names.includes(n))) return h.host;
    if (h.packages.some((p) => line.includes(p))) return h.host;
  }
  return null;
}

export type PersonAct = "approve" | "sign" | "revoke" | "prune" | "policy" | "uninstall" | "rehook";

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
  rehook: {
    what: "changing the installed Stop hook (its scope, place, command or KBZ_HOME)",
    hint: `a person changes the Stop hook: ask the user to run \`${kbz("hook install")}\` with the flags they want in a terminal`,
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

/** The host whose marker is set in `env`, or null. */
export function agentMarker(env: Env): string | null {
  const m = AGENT_MARKERS.find((m) => env[m] !== undefined && env[m] !== "");
  return m ? MARKER_HOST[m] : null;
}

export interface Actor {
  /** stdin and stderr are both terminals. */
  terminal: boolean;
  /** The agent host kbz runs under (by its marker or an ancestor process), or null. */
  host: string | null;
}

/**
 * Why `actor` is not a person, or null when it is one. Names the host, never the variable: an
 * agent told which variable to drop learns how to look like a person (issue 41).
 */
export function notAPerson(actor: Actor): string | null {
  if (actor.host) return `kbz runs under an agent here (${actor.host})`;
  if (!actor.terminal) return "kbz has no terminal here (stdin and stderr are not a TTY)";
  return null;
}
