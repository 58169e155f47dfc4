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
//   row's candidates are its neighbours plus the task-unrelated groups of the right kind, in
//   scan order; each is then decided exactly.
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
  merges: string[][]; // the members of each merged group, in merge order
}

interface Group {
  members: string[];
  first: number; // scan order: the rank of the smallest member (see scanRank)
  tasks: number[]; // by rank
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
  private readonly taskRel: Int32Array; // row t: ancestors ∪ descendants ∪ {t}
  private readonly groupOf: Group[];
  private readonly scan: Group[] = []; // live groups in scan order
  private readonly active: Int32Array; // tasks of groups that can merge
  private readonly verifiedOnly: Int32Array; // tasks of such groups without unfinished members
  private stamp = 0;
  private readonly merges: string[][] = [];
  private readonly rank: Int32Array; // task → position among the ids sorted by cmp
  private readonly byRank: string[];

  constructor(input: RegroupInput) {
    const { order, needsOf } = input;
    const n = order.length;
    const words = (this.words = (n + 31) >>> 5);
    const index = new Map<string, number>();
    order.forEach((id, i) => index.set(id, i));
    const needs = order.map((id) => needsOf(id).map((x) => index.get(x) ?? fail("unknown dependency")));
    // Groups are disjoint, so joined member lists compare as their smallest members do (an id
    // that is a prefix of another sorts first either way): scan order is an integer order.
    this.byRank = [...order].sort(cmp);
    this.rank = new Int32Array(n);
    this.byRank.forEach((id, r) => (this.rank[index.get(id)!] = r));
    const succs: number[][] = order.map(() => []);
    needs.forEach((ns, v) => ns.forEach((u) => succs[u]!.push(v)));
    const anc = new Int32Array(n * words);
    for (let v = 0; v < n; v++) {
      const row = v * words;
      for (const u of needs[v]!) {
        if (u >= v) fail("dependency cycle");
        const from = u * words;
        for (let w = 0; w < words; w++) anc[row + w]! |= anc[from + w]!;
        anc[row + (u >>> 5)]! |= 1 << (u & 31);
      }
    }
    const desc = new Int32Array(n * words);
    for (let u = n - 1; u >= 0; u--) {
      const row = u * words;
      for (const v of succs[u]!) {
        const from = v * words;
        for (let w = 0; w < words; w++) desc[row + w]! |= desc[from + w]!;
        desc[row + (v >>> 5)]! |= 1 << (v & 31);
      }
    }
    for (let t = 0; t < n; t++) {
      const row = t * words;
      for (let w = 0; w < words; w++) desc[row + w]! |= anc[row + w]!;
      desc[row + (t >>> 5)]! |= 1 << (t & 31);
    }
    this.taskRel = desc;
    this.groupOf = new Array<Group>(n);
    this.active = new Int32Array(words);
    this.verifiedOnly = new Int32Array(words);
    for (const members of input.groups) {
      const tasks = members.map((m) => index.get(m) ?? fail("group member is not a task")).sort((p, q) => this.rank[p]! - this.rank[q]!);
      const open = tasks.filter((t) => input.open(order[t]!));
      const g: Group = {
        members,
        first: this.rank[tasks[0]!]!,
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
      this.scan.push(g);
    }
    for (let t = 0; t < n; t++) if (!this.groupOf[t]) fail("task outside every group");
    for (let v = 0; v < n; v++) {
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
    const left = new Map<Group, number>(this.scan.map((g) => [g, g.pred.size]));
    const queue = this.scan.filter((g) => g.pred.size === 0);
    for (let i = 0; i < queue.length; i++) {
      queue[i]!.pos = i;
      for (const s of queue[i]!.succ) {
        const k = left.get(s)! - 1;
        left.set(s, k);
        if (k === 0) queue.push(s);
      }
    }
    if (queue.length !== this.scan.length) fail("group cycle before regrouping");
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
      while (cursor < this.scan.length && this.scan[cursor]!.done) cursor++;
      if (cursor === this.scan.length) break;
      const r = this.scan[cursor]!;
      const partner = r.inert ? undefined : this.firstMergeable(r, this.candidates(r, true));
      if (!partner) {
        r.done = true;
        continue;
      }
      const m = this.merge(r, partner);
      cursor = Math.min(cursor, this.indexOf(m.first));
      for (const x of this.candidates(m, false)) {
        if (this.mergeable(x, m)) {
          x.done = false;
          cursor = Math.min(cursor, this.indexOf(x.first));
        }
      }
    }
    return { groups: this.scan.map((g) => g.members), merges: this.merges };
  }

  /**
   * Groups that may merge with `r`, unordered: after `r` for its own row, or before it and done
   * when a merge has just created `r`.
   */
  private candidates(r: Group, after: boolean): Group[] {
    const stamp = ++this.stamp;
    const out: Group[] = [];
    const fits = (g: Group) => g.alive && !g.inert && g.seen !== stamp && (after ? g.first > r.first : g.done && g.first < r.first);
    for (const g of r.succ) if (fits(g) && !this.blocked(r, g)) out.push(g), (g.seen = stamp);
    for (const g of r.pred) if (fits(g) && !this.blocked(g, r)) out.push(g), (g.seen = stamp);
    const rel = this.relOf(r);
    const mask = r.openFree ? this.active : this.verifiedOnly;
    for (let w = 0; w < this.words; w++) {
      let bits = mask[w]! & ~rel[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const g = this.groupOf[(w << 5) + 31 - Math.clz32(low)]!;
        if (!fits(g)) continue;
        g.seen = stamp;
        if (g.tasks.every((t) => !hasBit(rel, 0, t))) out.push(g);
      }
    }
    return out;
  }

  /**
   * The first candidate in scan order that merges with `r`. Usually one of the first few does,
   * so the smallest is picked repeatedly; after a few refusals the rest is sorted instead.
   */
  private firstMergeable(r: Group, cands: Group[]): Group | undefined {
    for (let tries = 0; tries < 8 && cands.length > 0; tries++) {
      let best = 0;
      for (let i = 1; i < cands.length; i++) if (cands[i]!.first < cands[best]!.first) best = i;
      const g = cands[best]!;
      if (this.mergeable(r, g)) return g;
      cands[best] = cands[cands.length - 1]!;
      cands.pop();
    }
    return cands.sort((a, b) => a.first - b.first).find((g) => this.mergeable(r, g));
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

    this.scan.splice(this.indexOf(small.first), 1);
    this.scan.splice(this.indexOf(big.first), 1);
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
    const rel = new Int32Array(this.words);
    const [ra, rb] = [this.relOf(big), this.relOf(small)];
    for (let w = 0; w < this.words; w++) rel[w] = ra[w]! | rb[w]!;
    big.rel = rel;
    big.tasks = this.mergeByRank(big.tasks, small.tasks);
    big.members = big.tasks.map((t) => this.byRank[this.rank[t]!]!);
    big.first = this.rank[big.tasks[0]!]!;
    big.open = [...big.open, ...small.open];
    for (const t of small.tasks) this.groupOf[t] = big;
    if (big.openFree !== small.openFree) for (const t of big.openFree ? big.tasks : small.tasks) clearBit(this.verifiedOnly, t);
    big.openFree = big.openFree && small.openFree;
    big.done = false;
    big.version++;
    small.alive = false;
    this.scan.splice(this.insertionPoint(big.first), 0, big);
    this.merges.push(big.members);
    return big;
  }

  private insertionPoint(first: number): number {
    let lo = 0;
    let hi = this.scan.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.scan[mid]!.first < first) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(first: number): number {
    const i = this.insertionPoint(first);
    if (this.scan[i]?.first !== first) fail("regroup lost a group");
    return i;
  }

  private mergeByRank(a: number[], b: number[]): number[] {
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) out.push(this.rank[a[i]!]! < this.rank[b[j]!]! ? a[i++]! : b[j++]!);
    while (i < a.length) out.push(a[i++]!);
    while (j < b.length) out.push(b[j++]!);
    return out;
  }
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
