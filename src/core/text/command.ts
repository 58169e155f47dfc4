// Every `kbz …` command that kbz prints as advice is built here, from one table of the verbs and
// the flags each takes (test/core/text/command.test.ts holds the table against each verb's
// --help), so a renamed flag cannot leave stale advice behind. Values are quoted with the one
// quoting function; a placeholder the reader fills in (LEAF, <agent handle>) is printed as it is.
import { shellQuote } from "./shell.ts";

export const VERB_FLAGS = {
  advance: ["scope", "root", "leaf"],
  approve: ["scope", "root"],
  check: ["scope", "root", "reverify", "probe"],
  next: ["scope", "root"],
  "scope claim": ["scope", "root", "leaf"],
  "scope release": ["scope", "root", "leaf", "invalid"],
  "wave open": ["scope", "root", "wave", "leaf"],
  "wave start": ["scope", "root", "wave", "leaf", "handle"],
  "wave seal": ["scope", "root", "wave"],
  "wave return": ["scope", "root", "wave", "leaf"],
  "wave abandon": ["scope", "root", "wave", "reason"],
  "wave status": ["scope", "root", "wave"],
  "verify explain": [],
  "verify run": [],
} as const;

export type KbzVerb = keyof typeof VERB_FLAGS;

/** Text the reader replaces (LEAF, W, <agent handle>): printed unquoted. */
export class Placeholder {
  constructor(readonly text: string) {}
}
export const placeholder = (text: string) => new Placeholder(text);

type Word = string | Placeholder;
type FlagValue = Word | true | readonly Word[] | undefined;
export type KbzFlags<V extends KbzVerb> = { [F in (typeof VERB_FLAGS)[V][number]]?: FlagValue };

const word = (w: Word) => (w instanceof Placeholder ? w.text : shellQuote(w));

/** `kbz VERB --flag value …  positional …`, flags in the order given; `true` is a bare flag, a list repeats it. */
export function kbz<V extends KbzVerb>(verb: V, flags: KbzFlags<V> = {}, ...positionals: Word[]): string {
  const parts = ["kbz", verb];
  for (const [name, value] of Object.entries(flags) as [string, FlagValue][]) {
    if (value === undefined) continue;
    if (value === true) parts.push(`--${name}`);
    else for (const v of Array.isArray(value) ? value : [value as Word]) parts.push(`--${name}`, word(v));
  }
  for (const p of positionals) parts.push(word(p));
  return parts.join(" ");
}
