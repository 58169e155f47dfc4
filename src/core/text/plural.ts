// Counted nouns: "1 gate", "2 gates". Where an original's output fixed "(s)" (lint, claims,
// the Stop hook's messages) kbz keeps that format; everywhere else it counts in words.

/** `n` and the noun, singular for exactly 1. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
