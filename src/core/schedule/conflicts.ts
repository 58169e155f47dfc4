// Bernstein's conditions on declared access (docs/formats.md#scheduling-conflicts). Two tasks conflict when one's file
// writes overlap the other's writes or reads, or one's resource writes meet the other's
// resource reads or writes. Shared reads never conflict. Globs are compared case-folded with
// the one overlap test, `globsOverlap`.
import { globsOverlap, normalizeOwnsPath } from "../workspace/paths.ts";
import type { AccessDecl } from "../plan/access.ts";

/** A task's whole access: its ACCESS.json declaration plus its writes (the ledger OWNS, normalized). */
export interface AccessSets extends AccessDecl {
  writes: string[];
}

export type ConflictKind =
  | "write/write"
  | "write/read"
  | "read/write"
  | "resource write/write"
  | "resource write/read"
  | "resource read/write";

/** Why two tasks conflict: `mine` is the first task's item, `theirs` the other's. */
export interface Witness<T = string> {
  kind: ConflictKind;
  mine: string;
  theirs: string;
  with: T;
}

export function overlaps(a: string, b: string): boolean {
  return globsOverlap(a.toLowerCase(), b.toLowerCase());
}

function firstGlobPair(xs: string[], ys: string[]): [string, string] | null {
  for (const x of xs) for (const y of ys) if (overlaps(x, y)) return [x, y];
  return null;
}

/** The first reason `a` and `b` conflict, or null when Bernstein-independent as to access. */
export function conflictWitness<T>(a: AccessSets, b: AccessSets, other: T): Witness<T> | null {
  const glob: [ConflictKind, string[], string[]][] = [
    ["write/write", a.writes, b.writes],
    ["write/read", a.writes, b.reads],
    ["read/write", a.reads, b.writes],
  ];
  for (const [kind, xs, ys] of glob) {
    const hit = firstGlobPair(xs, ys);
    if (hit) return { kind, mine: hit[0], theirs: hit[1], with: other };
  }
  const res: [ConflictKind, string[], string[]][] = [
    ["resource write/write", a.resourceWrites, b.resourceWrites],
    ["resource write/read", a.resourceWrites, b.resourceReads],
    ["resource read/write", a.resourceReads, b.resourceWrites],
  ];
  for (const [kind, xs, ys] of res) {
    const hit = xs.find((x) => ys.includes(x));
    if (hit !== undefined) return { kind, mine: hit, theirs: hit, with: other };
  }
  return null;
}

export function conflicts(a: AccessSets, b: AccessSets): boolean {
  return conflictWitness(a, b, null) !== null;
}

const WILD = /[*?[{]/;

const PREFIX_CACHE_LIMIT = 65_536;
const prefixes = new Map<string, string[]>();

/** The literal segments before the first wildcard segment, case-folded; [] when invalid. */
function literalPrefix(glob: string): string[] {
  const known = prefixes.get(glob);
  if (known) return known;
  const n = normalizeOwnsPath(glob.toLowerCase());
  const segs = n.ok ? n.glob.split("/") : [];
  const cut = segs.findIndex((s) => WILD.test(s));
  const prefix = cut < 0 ? segs : segs.slice(0, cut);
  // The same few globs are asked about many times per advice; bound the memo for long-lived callers.
  if (prefixes.size >= PREFIX_CACHE_LIMIT) prefixes.clear();
  prefixes.set(glob, prefix);
  return prefix;
}

interface Entry<T> {
  glob: string;
  owner: T;
}

class TrieNode<T> {
  readonly kids = new Map<string, TrieNode<T>>();
  readonly here: Entry<T>[] = []; // entries whose literal prefix ends here
  readonly below: Entry<T>[] = []; // entries whose literal prefix passes through or ends here
}

/**
 * Globs indexed by literal prefix. `globsOverlap` decides overlap only through a literal segment
 * mismatch before any wildcard, so two globs can overlap only when one literal prefix is a
 * segment prefix of the other: a query visits exactly those entries (its path, then its
 * subtree) and each candidate is confirmed with `globsOverlap`.
 */
export class GlobIndex<T> {
  private readonly root = new TrieNode<T>();

  add(glob: string, owner: T): void {
    const entry = { glob, owner };
    let node = this.root;
    node.below.push(entry);
    for (const seg of literalPrefix(glob)) {
      let next = node.kids.get(seg);
      if (!next) node.kids.set(seg, (next = new TrieNode<T>()));
      node = next;
      node.below.push(entry);
    }
    node.here.push(entry);
  }

  /** The first indexed glob overlapping `glob` whose owner is not skipped. */
  first(glob: string, skip?: (owner: T) => boolean): Entry<T> | null {
    const ok = (e: Entry<T>) => (!skip || !skip(e.owner)) && overlaps(e.glob, glob);
    let node: TrieNode<T> | undefined = this.root;
    for (const seg of literalPrefix(glob)) {
      const hit = node.here.find(ok);
      if (hit) return hit;
      node = node.kids.get(seg);
      if (!node) return null;
    }
    return node.below.find(ok) ?? null;
  }
}

/** Access sets of a growing group of tasks, answering "does this task conflict with any of them?". */
export class ConflictIndex<T> {
  private readonly writes = new GlobIndex<T>();
  private readonly reads = new GlobIndex<T>();
  private readonly resourceWriters = new Map<string, T>();
  private readonly resourceReaders = new Map<string, T>();

  add(owner: T, a: AccessSets): void {
    for (const g of a.writes) this.writes.add(g, owner);
    for (const g of a.reads) this.reads.add(g, owner);
    for (const r of a.resourceWrites) if (!this.resourceWriters.has(r)) this.resourceWriters.set(r, owner);
    for (const r of a.resourceReads) if (!this.resourceReaders.has(r)) this.resourceReaders.set(r, owner);
  }

  find(a: AccessSets): Witness<T> | null {
    const glob: [ConflictKind, string[], GlobIndex<T>][] = [
      ["write/write", a.writes, this.writes],
      ["write/read", a.writes, this.reads],
      ["read/write", a.reads, this.writes],
    ];
    for (const [kind, mine, index] of glob) {
      for (const g of mine) {
        const hit = index.first(g);
        if (hit) return { kind, mine: g, theirs: hit.glob, with: hit.owner };
      }
    }
    const res: [ConflictKind, string[], Map<string, T>][] = [
      ["resource write/write", a.resourceWrites, this.resourceWriters],
      ["resource write/read", a.resourceWrites, this.resourceReaders],
      ["resource read/write", a.resourceReads, this.resourceWriters],
    ];
    for (const [kind, mine, map] of res) {
      for (const r of mine) {
        const owner = map.get(r);
        if (owner !== undefined) return { kind, mine: r, theirs: r, with: owner };
      }
    }
    return null;
  }
}
