// "Did you mean": the nearest known verb, action or flag for a mistyped one, as a hint.
// Pure: yargs' (or a verb's) usage message and what is known in, a hint or null out.
import { kbz, type KbzVerb } from "../core/text/command.ts";

/** Optimal string alignment distance: edits, with a swap of two neighbours counted as one. */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate within a typo's reach (at most 2 edits, fewer for short words), else null. */
export function nearest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  // Short words reach one edit: `nope` is not a typo of `scope`.
  const reach = w.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    if (c === word) continue;
    const dd = c.startsWith(w) && w.length >= 3 ? 1 : distance(w, c.toLowerCase());
    if (dd <= reach && dd < bestD) {
      best = c;
      bestD = dd;
    }
  }
  return best;
}

export interface Known {
  /** Verb names, in `kbz --help` order. */
  verbs: readonly string[];
  /** Option names the command accepts (long and short, without dashes). */
  options: readonly string[];
}

/**
 * A hint for a usage message, or null. Understands yargs' "Unknown argument(s): a, b" (a verb
 * when it is the command's first word, else a flag), "Invalid values: … Given: "x", Choices: …"
 * and kbz's own `unknown … action "x"; expected one of: a, b`.
 */
export function suggestion(message: string, args: readonly string[], known: Known): string | null {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    const first = args.find((a) => !a.startsWith("-"));
    for (const name of unknown[1]!.split(", ")) {
      if (name === first && args.indexOf(name) === args.findIndex((a) => !a.startsWith("-"))) {
        const verb = nearest(name, known.verbs);
        if (verb) return `did you mean ${kbz(verb as KbzVerb)}?`;
        continue;
      }
      const typed = args.find((a) => a === `--${name}` || a === `-${name}` || a.startsWith(`--${name}=`));
      if (typed === undefined) continue;
      const flag = nearest(
        name,
        known.options.filter((o) => o.length > 1),
      );
      if (flag) return `did you mean --${flag}?`;
    }
    return null;
  }
  const choice = /Given: "([^"]*)", Choices: (.+)$/.exec(message) ?? /"([^"]*)"; expected one of: (.+)$/.exec(message);
  if (choice) {
    const options = choice[2]!.split(/,\s*/).map((c) => c.replace(/^"|"$/g, "").trim());
    const hit = nearest(choice[1]!, options);
    if (hit) return `did you mean ${hit}?`;
  }
  return null;
}
