// Every `kbz …` command that kbz prints (advice, error hints, help examples, hook reasons) is built
// here, from one table of the verbs and the flags each takes. test/core/text/command.test.ts holds
// the table against each verb's yargs options, and test/core/text/kbz-strings.test.ts fails when
// src/ spells a `kbz VERB` by hand, so a renamed flag or verb cannot leave stale advice behind.
// Values are quoted with the one quoting function; a placeholder the reader fills in (LEAF,
// <agent handle>) is printed as it is.
import { shellQuote } from "./shell.ts";

const SCOPE_ACTION = ["scope", "root", "leaf", "json", "coordinator"] as const;
const WAVE = ["scope", "root", "wave", "json"] as const;
const STRUCTURE = [
  "scope",
  "root",
  "json",
  "into",
  "request",
  "details",
  "final",
  "report",
  "proposal",
  "reason",
  "operation",
  "selection",
  "stop-evidence",
  "review-evidence",
] as const;
const VERIFY = ["root", "json", "inputs", "closed", "env", "approve", "reviewed", "cwd", "portable"] as const;
const HOOK = ["agent", "scope", "shared", "global", "fallback", "uninstall", "json"] as const;

/**
 * Each command kbz names, and the flags it takes. A verb with actions has one entry per action
 * (and one for the bare verb, named in prose); `coordinator` is kbz's one global option.
 */
export const VERB_FLAGS = {
  status: ["scope", "root", "all", "json"],
  lint: ["scope", "root", "strict", "probe", "approve", "json"],
  check: [
    "scope",
    "root",
    "reverify",
    "stale",
    "approve",
    "probe",
    "status",
    "verbose",
    "json",
    "jobs",
    "timeout",
    "sandbox",
    "shell",
    "cwd",
  ],
  approve: ["scope", "root", "json", "verbose"],
  approvals: [],
  "approvals list": ["json"],
  "approvals revoke": ["record", "json"],
  "approvals prune": ["json"],
  "approvals explain": ["json"],
  "approvals policy": ["json"],
  scope: [],
  "scope list": ["root", "json"],
  "scope claim": SCOPE_ACTION,
  "scope release": [...SCOPE_ACTION, "invalid"],
  "scope log": ["scope", "root", "json"],
  "scope bind": ["scope", "root", "json"],
  wave: [],
  "wave open": [...WAVE, "leaf"],
  "wave start": [...WAVE, "leaf", "handle"],
  "wave seal": WAVE,
  "wave return": [...WAVE, "leaf"],
  "wave abandon": [...WAVE, "reason"],
  "wave status": WAVE,
  "wave list": ["scope", "root", "json"],
  next: ["scope", "root", "slots", "launch", "handle", "wave", "details", "json", "policy"],
  plan: [],
  "plan add": ["scope", "root", "owns", "needs", "reads", "resource-reads", "resource-writes", "tier", "wave", "json"],
  "plan set": ["scope", "root", "json"],
  advance: ["scope", "root", "leaf", "approve", "slots", "timeout", "verbose", "launch", "json"],
  verify: [],
  "verify run": VERIFY,
  "verify audit": VERIFY,
  "verify explain": VERIFY,
  structure: [],
  "structure plan": STRUCTURE,
  "structure apply": STRUCTURE,
  "structure regroup": STRUCTURE,
  "structure split": STRUCTURE,
  "structure report": STRUCTURE,
  "structure recover": STRUCTURE,
  "structure check": STRUCTURE,
  "structure accept": STRUCTURE,
  "structure resume": STRUCTURE,
  "structure reject": STRUCTURE,
  hook: [],
  "hook install": HOOK,
  "hook status": HOOK,
  "hook stop": HOOK,
  doctor: ["agent", "json"],
  skill: [],
  "skill install": ["global", "agent", "json"],
  init: ["scope", "root", "json"],
  sign: ["evidence", "replace", "root", "json"],
  ci: ["scope", "root", "json", "junit", "summary", "allowed-signers", "signers-from", "sandbox", "jobs"],
  "ci init": ["root", "json", "force"],
  dash: ["scope", "root", "slots"],
  demo: [],
  coordinator: ["coordinator"],
  "coordinator status": ["root", "json", "coordinator"],
  "coordinator import": ["scope", "root", "json", "coordinator"],
  "coordinator export": ["scope", "root", "json", "coordinator"],
} as const;

export type KbzVerb = keyof typeof VERB_FLAGS;

/** Text the reader replaces (LEAF, W, <agent handle>): printed unquoted. */
export class Placeholder {
  constructor(readonly text: string) {}
}
export const placeholder = (text: string) => new Placeholder(text);

/** A flag the reader may leave out: printed in brackets, `[--needs A,B]`. */
class Optional {
  constructor(readonly value: Word | true) {}
}
export const optional = (value: Word | true) => new Optional(value);

/** A value written onto its flag, `--approve=SIG`. */
class Attached {
  constructor(readonly value: Word) {}
}
export const attached = (value: Word) => new Attached(value);

type Word = string | Placeholder;
type FlagValue = Word | true | readonly Word[] | Optional | Attached | undefined;
export type KbzFlags<V extends KbzVerb> = { [F in (typeof VERB_FLAGS)[V][number]]?: FlagValue };

const word = (w: Word) => (w instanceof Placeholder ? w.text : shellQuote(w));

function flagWords(name: string, value: FlagValue): string[] {
  if (value === undefined) return [];
  if (value === true) return [`--${name}`];
  if (value instanceof Optional) return [`[${flagWords(name, value.value).join(" ")}]`];
  if (value instanceof Attached) return [`--${name}=${word(value.value)}`];
  return (Array.isArray(value) ? (value as readonly Word[]) : [value as Word]).flatMap((v) => [`--${name}`, word(v)]);
}

/**
 * `kbz VERB …`: each further argument is a positional word or an object of flags, printed in the
 * order given (`kbz("plan add", { scope }, ph("LEAF"), { owns: ph("GLOB") })`). A flag's value
 * `true` is a bare flag, a list repeats it, `optional(v)` brackets it, `attached(v)` writes `--f=v`.
 */
export function kbz<V extends KbzVerb>(verb: V, ...args: (KbzFlags<V> | Word)[]): string {
  const parts = ["kbz", verb];
  for (const a of args) {
    if (typeof a === "string" || a instanceof Placeholder) parts.push(word(a));
    else for (const [name, value] of Object.entries(a) as [string, FlagValue][]) parts.push(...flagWords(name, value));
  }
  return parts.join(" ");
}
