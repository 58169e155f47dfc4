// Leaf ids as people type them: PLAN.md says `1.1`, ledger files and dispatch say `leaf-1.1`.
// Every verb accepts both spellings and, for an id it does not know, names the nearest one.

export const LEAF_PREFIX = "leaf-";

/** `1.1` and `leaf-1.1` both give the ledger stem `leaf-1.1`. */
export function leafStem(id: string): string {
  return id.startsWith(LEAF_PREFIX) ? id : LEAF_PREFIX + id;
}

/** `1.1` and `leaf-1.1` both give the PLAN task id `1.1`. */
export function taskId(id: string): string {
  return id.startsWith(LEAF_PREFIX) ? id.slice(LEAF_PREFIX.length) : id;
}

/** The PLAN id a `leaf-<id>` name (a lease's or a wave's leaf) stands for; null for any other name. */
export function leafIdOf(name: string): string | null {
  return name.startsWith(LEAF_PREFIX) ? name.slice(LEAF_PREFIX.length) : null;
}

/** The ledger file name of a leaf, either spelling: `1.1` → `leaf-1.1.md`. */
export function leafLedgerName(id: string): string {
  return `${leafStem(id)}.md`;
}

/** A leaf's ledger is `gates/leaf-<id>.md`; true for a path (either separator) naming one. */
export function isLeafLedger(file: string): boolean {
  return /(?:^|[\\/])leaf-[^\\/]*\.md$/.test(file);
}

/** The leaf id a path to a leaf ledger names (`gates/leaf-1.1.md` → `1.1`), null for any other file. */
export function leafOfLedger(file: string): string | null {
  return /(?:^|[\\/])leaf-([^\\/]+)\.md$/.exec(file)?.[1] ?? null;
}

/** Levenshtein distance between `a` and `b`. */
export function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The known id closest to `wanted` (edit distance about a third of its length, none for one character), or null. */
export function nearest(wanted: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(wanted, k);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== null && bestD <= Math.floor((wanted.length + 1) / 3) ? best : null;
}

/**
 * Match a typed leaf id against `known` (in either spelling) and return the known spelling,
 * or null with the nearest suggestion.
 */
export function matchLeaf(
  wanted: string,
  known: readonly string[],
): { id: string } | { id: null; suggestion: string | null } {
  const want = taskId(wanted);
  const hit = known.find((k) => taskId(k) === want);
  if (hit !== undefined) return { id: hit };
  const near = nearest(want, known.map(taskId));
  return { id: null, suggestion: near === null ? null : known.find((k) => taskId(k) === near)! };
}

/** "unknown leaf X; did you mean Y? (have: …)" */
export function unknownLeafMessage(wanted: string, known: readonly string[], suggestion: string | null): string {
  const have = known.length > 0 ? known.join(", ") : "none";
  return suggestion !== null
    ? `unknown leaf ${wanted}; did you mean ${suggestion}? (have: ${have})`
    : `unknown leaf ${wanted} (have: ${have})`;
}
