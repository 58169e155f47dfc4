// Regrouping to a fixed point (docs/formats.md#structure-events), the planner's one speed trick (issue 19).
//
// The rule: list the groups sorted by their joined members; scan the pairs in that order
// (first group, then second); merge the first mergeable pair; re-sort; repeat until no pair
// merges. A pair is mergeable when the union is not busy, its unfinished members lie on one
// dependency chain, and neither group reaches the other through a third group of the quotient
// graph. A refused pair stays refused (busy tasks and states do not change while regrouping,
// and a path through a third group survives every later merge), so the result equals "merge the
// first mergeable pair in scan order, repeatedly". Done literally that costs a pass over all
// pairs per merge: cubic, 5 s at 1,000 leaves and hours at 10,000.
//
// This module finds the same pair each time without looking at most pairs:
// - Rows. A group whose row was scanned without a partner is `done`; it can gain a partner only
//   when a merge creates a new group after it, so each merge re-examines only the done groups
//   that are candidates of the new group, and the scan resumes at the first row not done.
// - Candidates. Two groups joined by a quotient edge are mergeable iff the edge is the only path
//   between them. Two groups without an edge are mergeable only when unrelated in the quotient,
//   and then one of them has no unfinished member (unfinished members on one chain are related
//   by a task path, and a task path is a quotient path). Quotient-unrelated implies unrelated as
//   tasks, which a bitset per task (ancestors, descendants, itself) answers word by word. So a
//   row's candidates are its neighbours plus the task-unrelated groups of the right kind; each
//   is then decided exactly.
// - Scan order in the bits. Tasks are numbered by scan rank (their ids sorted), so a bitset read
//   from low to high meets groups in scan order: a row's unrelated candidates come out already
//   sorted, only those after the row are read, and the reading stops at the first that merges
//   (usually one of the first few, where a row may have hundreds of unrelated groups after it).
// - Exact tests. Paths are searched breadth first over the quotient, bounded by a topological
//   order of the groups that each merge repairs locally (Pearce and Kelly's reordering of the
//   region between the two groups), so a search never leaves that region.
// The planner test pins the 1,000-leaf output and the regroup property test compares this with
// the literal rule on random plans.
import { cmp, fail } from "./model.ts";

export interface RegroupInput {
  order: string[]; // every task, topologically sorted
  needsOf: (id: string) => readonly string[];
  open: (id: string) => boolean; // not VERIFIED
  busy: (id: string) => boolean;
  groups: string[][]; // sorted as sortGroups sorts, members sorted, a partition of `order`
}

export interface Regrouped {
  groups: string[][]; // the fixed point, in scan order
  merges: MergedMembers[]; // the members of each merged group, in merge order
}

/**
 * The members a merge produced, kept as the merge itself and listed only when read. A group
 * that absorbs its neighbours one by one lists every member so far in each action: at 10,000
 * leaves 7,020 actions held 4.5 million member ids (36 MB) that only `--details` ever prints.
 * Each merge holds its two sides instead, and `list()` collects their tasks, sorted, as ids.
 */
export class MergedMembers {
  constructor(
    private readonly sides: readonly [Side, Side],
    private readonly byRank: readonly string[],
  ) {}

  list(): string[] {
    const tasks: number[] = [];
    const stack: Side[] = [...this.sides];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (s instanceof MergedMembers) stack.push(...s.sides);
      else for (const t of s) tasks.push(t);
    }
    return tasks.sort((a, b) => a - b).map((t) => this.byRank[t]!);
  }
}

/** One side of a merge: a group as it started (its tasks) or an earlier merge. */
type Side = MergedMembers | readonly number[];

interface Group {
  members: Side; // the tasks it started with, or the merge that made it
  tasks: number[]; // ascending
  first: number; // scan order: the smallest member's task number (its scan rank)
  open: number[];
  openFree: boolean;
  inert: boolean; // busy, or its own unfinished members are not one chain: never merges
  succ: Set<Group>;
  pred: Set<Group>;
  pos: number; // topological position in the quotient (gaps allowed)
  version: number; // bumped by every merge into this group object
  /** Successors that a path through a third group `via` still reaches (see `blocked`). */
  detour: Map<Group, { via: Group; viaVersion: number; version: number }>;
  done: boolean;
  alive: boolean;
  rel: Int32Array | null; // tasks known related in the quotient: their own relatives, and more as found
  seen: number;
}

export function regroup(input: RegroupInput): Regrouped {
  return new Regrouper(input).run();
}

class Regrouper {
  private readonly words: number;
  private readonly taskRel: Int32Array; // row t: ancestors ∪ descendants ∪ {t}; tasks are numbered by scan rank
  private readonly groupOf: Group[];
  private readonly slot: (Group | null)[]; // task number → the live group it is the first of: scan order without moving groups
  private readonly active: Int32Array; // tasks of groups that can merge
  private readonly verifiedOnly: Int32Array; // tasks of such groups without unfinished members
  private stamp = 0;
  private readonly merges: MergedMembers[] = [];
  private readonly byRank: string[]; // task number (scan rank) → id

  constructor(input: RegroupInput) {
    const n = input.order.length;
    const words = (this.words = (n + 31) >>> 5);
    // Groups are disjoint, so joined member lists compare as their smallest members do (an id
    // that is a prefix of another sorts first either way): scan order is an integer order.
    this.byRank = [...input.order].sort(cmp);
    const index = new Map<string, number>();
    this.byRank.forEach((id, r) => index.set(id, r));
    const topo = input.order.map((id) => index.get(id)!); // task numbers in topological order
    const position = new Int32Array(n);
    topo.forEach((t, i) => (position[t] = i));
    const needs: number[][] = [];
    const succs: number[][] = topo.map(() => []);
    for (const v of topo)
      needs[v] = input.needsOf(this.byRank[v]!).map((x) => index.get(x) ?? fail("unknown dependency"));
    for (const v of topo) for (const u of needs[v]!) succs[u]!.push(v);
    const anc = new Int32Array(n * words);
    for (const v of topo) {
      const row = v * words;
      for (const u of needs[v]!) {
        if (position[u]! >= position[v]!) fail("dependency cycle");
        orRow(anc, row, anc, u * words, words);
        anc[row + (u >>> 5)]! |= 1 << (u & 31);
      }
    }
    const desc = new Int32Array(n * words);
    for (let i = n - 1; i >= 0; i--) {
      const u = topo[i]!;
      const row = u * words;
      for (const v of succs[u]!) {
        orRow(desc, row, desc, v * words, words);
        desc[row + (v >>> 5)]! |= 1 << (v & 31);
      }
    }
    for (let t = 0; t < n; t++) {
      const row = t * words;
      orRow(desc, row, anc, row, words);
      desc[row + (t >>> 5)]! |= 1 << (t & 31);
    }
    this.taskRel = desc;
    this.groupOf = new Array<Group>(n);
    this.slot = new Array<Group | null>(n).fill(null);
    this.active = new Int32Array(words);
    this.verifiedOnly = new Int32Array(words);
    for (const members of input.groups) {
      const tasks = members.map((m) => index.get(m) ?? fail("group member is not a task")).sort((p, q) => p - q);
      const open = tasks.filter((t) => input.open(this.byRank[t]!));
      const g: Group = {
        members: tasks.slice(),
        first: tasks[0]!,
        tasks,
        open,
        openFree: open.length === 0,
        inert: members.some((m) => input.busy(m)) || !this.chain(open, []),
        succ: new Set(),
        pred: new Set(),
        pos: 0,
        version: 0,
        detour: new Map(),
        done: false,
        alive: true,
        rel: null,
        seen: 0,
      };
      for (const t of tasks) {
        if (this.groupOf[t]) fail("task in two groups");
        this.groupOf[t] = g;
        if (!g.inert) setBit(this.active, t);
        if (!g.inert && g.openFree) setBit(this.verifiedOnly, t);
      }
      this.slot[g.first] = g;
    }
    for (let t = 0; t < n; t++) if (!this.groupOf[t]) fail("task outside every group");
    for (const v of topo) {
      for (const u of needs[v]!) {
        const [a, b] = [this.groupOf[u]!, this.groupOf[v]!];
        if (a !== b) {
          a.succ.add(b);
          b.pred.add(a);
        }
      }
    }
    this.topologicalPositions();
  }

  private topologicalPositions(): void {
    const live = this.live();
    const left = new Map<Group, number>(live.map((g) => [g, g.pred.size]));
    const queue = live.filter((g) => g.pred.size === 0);
    for (let i = 0; i < queue.length; i++) {
      queue[i]!.pos = i;
      for (const s of queue[i]!.succ) {
        const k = left.get(s)! - 1;
        left.set(s, k);
        if (k === 0) queue.push(s);
      }
    }
    if (queue.length !== live.length) fail("group cycle before regrouping");
  }

  /** The live groups in scan order. */
  private live(): Group[] {
    return this.slot.filter((g): g is Group => g !== null);
  }

  /** Unfinished members pairwise comparable: `xs` with itself and with `ys`. */
  private chain(xs: number[], ys: number[]): boolean {
    const rel = this.taskRel;
    const w = this.words;
    for (let i = 0; i < xs.length; i++) {
      const row = xs[i]! * w;
      for (let j = i + 1; j < xs.length; j++) if (!hasBit(rel, row, xs[j]!)) return false;
      for (const y of ys) if (!hasBit(rel, row, y)) return false;
    }
    return true;
  }

  private relOf(g: Group): Int32Array {
    if (g.rel) return g.rel;
    const out = new Int32Array(this.words);
    for (const t of g.tasks) {
      const row = t * this.words;
      for (let w = 0; w < this.words; w++) out[w]! |= this.taskRel[row + w]!;
    }
    return (g.rel = out);
  }

  run(): Regrouped {
    let cursor = 0;
    for (;;) {
      while (cursor < this.slot.length && (this.slot[cursor] === null || this.slot[cursor]!.done)) cursor++;
      if (cursor === this.slot.length) break;
      const r = this.slot[cursor]!;
      const partner = r.inert ? undefined : this.firstPartner(r);
      if (!partner) {
        r.done = true;
        continue;
      }
      const m = this.merge(r, partner);
      cursor = Math.min(cursor, m.first);
      for (const x of this.earlierCandidates(m)) {
        if (this.mergeable(x, m)) {
          x.done = false;
          cursor = Math.min(cursor, x.first);
        }
      }
    }
    return { groups: this.live().map((g) => g.tasks.map((t) => this.byRank[t]!)), merges: this.merges };
  }

  /**
   * The first group after `r` in scan order that merges with it: its neighbours and the groups
   * unrelated to it as tasks, taken in scan order and decided one by one.
   */
  private firstPartner(r: Group): Group | undefined {
    const stamp = ++this.stamp;
    const fits = (g: Group) => g.alive && !g.inert && g.seen !== stamp && g.first > r.first;
    const near: Group[] = [];
    for (const g of r.succ) if (fits(g) && !this.blocked(r, g)) near.push(g), (g.seen = stamp);
    for (const g of r.pred) if (fits(g) && !this.blocked(g, r)) near.push(g), (g.seen = stamp);
    near.sort((a, b) => a.first - b.first);
    let k = 0;
    for (const g of this.unrelated(r, stamp, fits, r.first + 1, this.byRank.length)) {
      for (; k < near.length && near[k]!.first < g.first; k++) if (this.mergeable(r, near[k]!)) return near[k];
      if (this.mergeable(r, g)) return g;
    }
    for (; k < near.length; k++) if (this.mergeable(r, near[k]!)) return near[k];
    return undefined;
  }

  /** Done groups before `m` in scan order that may merge with it, now that a merge created `m`. */
  private earlierCandidates(m: Group): Group[] {
    const stamp = ++this.stamp;
    const fits = (g: Group) => g.alive && !g.inert && g.seen !== stamp && g.done && g.first < m.first;
    const out: Group[] = [];
    for (const g of m.succ) if (fits(g) && !this.blocked(m, g)) out.push(g), (g.seen = stamp);
    for (const g of m.pred) if (fits(g) && !this.blocked(g, m)) out.push(g), (g.seen = stamp);
    out.push(...this.unrelated(m, stamp, fits, 0, m.first));
    return out;
  }

  /**
   * The groups that `fits` and whose tasks are all unrelated to `r`'s, of the kind that may merge
   * with `r` (any, when `r` has no unfinished member; else those without one), met through their
   * tasks numbered in [lo, hi): in scan order when they lie wholly in that range.
   */
  private *unrelated(r: Group, stamp: number, fits: (g: Group) => boolean, lo: number, hi: number): Generator<Group> {
    const rel = this.relOf(r);
    const mask = r.openFree ? this.active : this.verifiedOnly;
    for (let w = lo >>> 5; w < this.words && w << 5 < hi; w++) {
      let bits = mask[w]! & ~rel[w]!;
      if (w === lo >>> 5) bits &= ~((1 << (lo & 31)) - 1);
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const t = (w << 5) + 31 - Math.clz32(low);
        if (t >= hi) return;
        const g = this.groupOf[t]!;
        if (!fits(g)) continue;
        g.seen = stamp;
        if (g.tasks.every((x) => !hasBit(rel, 0, x))) yield g;
      }
    }
  }

  private mergeable(a: Group, b: Group): boolean {
    if (!this.chain(a.open, b.open)) return false;
    if (a.succ.has(b)) return !this.blocked(a, b) && !this.detour(a, b);
    if (b.succ.has(a)) return !this.blocked(b, a) && !this.detour(b, a);
    if ((a.pos < b.pos ? this.path(a, b, false) : this.path(b, a, false)) === null) return true;
    // Related now means related after every later merge: remember it, so neither group offers
    // the other as an unrelated candidate again.
    for (const t of b.tasks) setBit(this.relOf(a), t);
    for (const t of a.tasks) setBit(this.relOf(b), t);
    return false;
  }

  /**
   * A path src ⇝ via ⇝ dst found earlier still exists while `via` and `dst` are unchanged: paths
   * survive merges (a merge only shortens them), and `src` may have grown meanwhile. A large
   * group that absorbs its neighbours one by one would otherwise search its whole neighbourhood
   * again after every merge.
   */
  private blocked(src: Group, dst: Group): boolean {
    const d = src.detour.get(dst);
    return d !== undefined && d.version === dst.version && d.via.alive && d.via.version === d.viaVersion;
  }

  private detour(src: Group, dst: Group): boolean {
    const via = this.path(src, dst, true);
    if (via === null) return false;
    src.detour.set(dst, { via, viaVersion: via.version, version: dst.version });
    return true;
  }

  /**
   * Is there a path from `from` to `to` (positioned after it), other than the direct edge when
   * `third`? Every group on it lies between the two, so the search stays in that region; it
   * runs forward from `from` or backward from `to`, whichever starts from fewer groups (a large
   * merged group has many successors, its partner usually few predecessors).
   */
  private path(from: Group, to: Group, third: boolean): Group | null {
    const forward = from.succ.size <= to.pred.size;
    const [start, target] = forward ? [from, to] : [to, from];
    const stamp = ++this.stamp;
    const stack: Group[] = [];
    const inside = (g: Group) => g.pos > from.pos && g.pos < to.pos;
    for (const g of forward ? start.succ : start.pred) {
      if (g === target) {
        if (!third) return start;
      } else if (inside(g)) {
        g.seen = stamp;
        stack.push(g);
      }
    }
    while (stack.length > 0) {
      const x = stack.pop()!;
      for (const g of forward ? x.succ : x.pred) {
        if (g === target) return x; // a group strictly between the two, on the path
        if (g.seen !== stamp && inside(g)) {
          g.seen = stamp;
          stack.push(g);
        }
      }
    }
    return null;
  }

  /** Groups reachable from `g` (forward) or reaching it (backward) within positions (lo, hi). */
  private region(g: Group, forward: boolean, lo: number, hi: number): Group[] {
    const stamp = ++this.stamp;
    const out = [g];
    g.seen = stamp;
    for (let i = 0; i < out.length; i++) {
      for (const x of forward ? out[i]!.succ : out[i]!.pred) {
        if (x.seen !== stamp && x.pos > lo && x.pos < hi) {
          x.seen = stamp;
          out.push(x);
        }
      }
    }
    return out;
  }

  private merge(x: Group, y: Group): Group {
    // Positions: the groups between the two that one reaches go after the merged group, those
    // reaching the other before it (disjoint: no path through a third group); the rest stay.
    const [a, b] = x.pos < y.pos ? [x, y] : [y, x];
    const fwd = this.region(a, true, a.pos - 1, b.pos).sort((p, q) => p.pos - q.pos);
    const back = this.region(b, false, a.pos, b.pos + 1).sort((p, q) => p.pos - q.pos);
    const slots = [...fwd, ...back].map((g) => g.pos).sort((p, q) => p - q);
    const [big, small] = x.succ.size + x.pred.size >= y.succ.size + y.pred.size ? [x, y] : [y, x];
    let k = 0;
    for (const g of back) if (g !== b) g.pos = slots[k++]!;
    big.pos = slots[k++]!;
    k++;
    for (const g of fwd) if (g !== a) g.pos = slots[k++]!;

    this.vacate(small);
    this.vacate(big);
    for (const s of small.succ) {
      if (s === big) continue;
      s.pred.delete(small);
      s.pred.add(big);
      big.succ.add(s);
    }
    for (const p of small.pred) {
      if (p === big) continue;
      p.succ.delete(small);
      p.succ.add(big);
      big.pred.add(p);
    }
    big.succ.delete(small);
    big.pred.delete(small);
    orRow(this.relOf(big), 0, this.relOf(small), 0, this.words);
    // The smaller side is inserted into the larger (native moves): a group that absorbs its
    // neighbours one by one reaches thousands of tasks (the VERIFIED ones of a large plan), and
    // rebuilding its list element by element made merging quadratic in JavaScript. The tasks
    // arrays are the groups' own (the absorbed group dies); the action keeps the merge.
    const [long, short] = big.tasks.length >= small.tasks.length ? [big, small] : [small, big];
    const tasks = long.tasks;
    for (const t of short.tasks) tasks.splice(lowerBound(tasks, t), 0, t);
    const merged = new MergedMembers([big.members, small.members], this.byRank);
    big.tasks = tasks;
    big.members = merged;
    big.first = tasks[0]!;
    big.open = [...big.open, ...small.open];
    for (const t of small.tasks) this.groupOf[t] = big;
    if (big.openFree !== small.openFree)
      for (const t of big.openFree ? big.tasks : small.tasks) clearBit(this.verifiedOnly, t);
    big.openFree = big.openFree && small.openFree;
    big.done = false;
    big.version++;
    small.alive = false;
    this.slot[big.first] = big;
    this.merges.push(merged);
    return big;
  }

  private vacate(g: Group): void {
    if (this.slot[g.first] !== g) fail("regroup lost a group");
    this.slot[g.first] = null;
  }
}

/** The first index of the ascending `xs` whose value is at least `x`. */
function lowerBound(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** dst[at..at+words) |= src[from..from+words): a small hot function the JIT compiles once, where the constructor's inline loops ran mostly unoptimized. */
function orRow(dst: Int32Array, at: number, src: Int32Array, from: number, words: number): void {
  for (let w = 0; w < words; w++) dst[at + w]! |= src[from + w]!;
}

function setBit(bits: Int32Array, t: number): void {
  bits[t >>> 5]! |= 1 << (t & 31);
}

function clearBit(bits: Int32Array, t: number): void {
  bits[t >>> 5]! &= ~(1 << (t & 31));
}

function hasBit(bits: Int32Array, row: number, t: number): boolean {
  return (bits[row + (t >>> 5)]! & (1 << (t & 31))) !== 0;
}
