// Regrouping to a fixed point (kill §4.11.3 step 10), the planner's one speed trick (issue 19).
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
  key: string;
  tasks: number[];
  open: number[];
  openFree: boolean;
  inert: boolean; // busy, or its own unfinished members are not one chain: never merges
  succ: Set<Group>;
  pred: Set<Group>;
  pos: number; // topological position in the quotient (gaps allowed)
  done: boolean;
  alive: boolean;
  rel: Uint32Array | null;
  seen: number;
}

export function regroup(input: RegroupInput): Regrouped {
  return new Regrouper(input).run();
}

class Regrouper {
  private readonly words: number;
  private readonly taskRel: Uint32Array; // row t: ancestors ∪ descendants ∪ {t}
  private readonly groupOf: Group[];
  private readonly scan: Group[] = []; // live groups in scan order
  private readonly active: Uint32Array; // tasks of groups that can merge
  private readonly verifiedOnly: Uint32Array; // tasks of such groups without unfinished members
  private stamp = 0;
  private readonly merges: string[][] = [];

  constructor(input: RegroupInput) {
    const { order, needsOf } = input;
    const n = order.length;
    const words = (this.words = (n + 31) >>> 5);
    const index = new Map<string, number>();
    order.forEach((id, i) => index.set(id, i));
    const needs = order.map((id) => needsOf(id).map((x) => index.get(x) ?? fail("unknown dependency")));
    const succs: number[][] = order.map(() => []);
    needs.forEach((ns, v) => ns.forEach((u) => succs[u]!.push(v)));
    const anc = new Uint32Array(n * words);
    for (let v = 0; v < n; v++) {
      const row = v * words;
      for (const u of needs[v]!) {
        if (u >= v) fail("dependency cycle");
        const from = u * words;
        for (let w = 0; w < words; w++) anc[row + w]! |= anc[from + w]!;
        anc[row + (u >>> 5)]! |= 1 << (u & 31);
      }
    }
    const desc = new Uint32Array(n * words);
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
    this.active = new Uint32Array(words);
    this.verifiedOnly = new Uint32Array(words);
    for (const members of input.groups) {
      const tasks = members.map((m) => index.get(m) ?? fail("group member is not a task"));
      const open = tasks.filter((t) => input.open(order[t]!));
      const g: Group = {
        members,
        key: members.join("\0"),
        tasks,
        open,
        openFree: open.length === 0,
        inert: members.some((m) => input.busy(m)) || !this.chain(open, []),
        succ: new Set(),
        pred: new Set(),
        pos: 0,
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

  private relOf(g: Group): Uint32Array {
    if (g.rel) return g.rel;
    const out = new Uint32Array(this.words);
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
      const partner = r.inert ? undefined : this.candidates(r, true).find((g) => this.mergeable(r, g));
      if (!partner) {
        r.done = true;
        continue;
      }
      const m = this.merge(r, partner);
      cursor = Math.min(cursor, this.indexOf(m.key));
      for (const x of this.candidates(m, false)) {
        if (this.mergeable(x, m)) {
          x.done = false;
          cursor = Math.min(cursor, this.indexOf(x.key));
        }
      }
    }
    return { groups: this.scan.map((g) => g.members), merges: this.merges };
  }

  /**
   * Groups that may merge with `r`, in scan order: after `r` for its own row, or before it and
   * done when a merge has just created `r`.
   */
  private candidates(r: Group, after: boolean): Group[] {
    const stamp = ++this.stamp;
    const out: Group[] = [];
    const fits = (g: Group) => g.alive && !g.inert && g.seen !== stamp && (after ? cmp(g.key, r.key) > 0 : g.done && cmp(g.key, r.key) < 0);
    for (const g of r.succ) if (fits(g)) out.push(g), (g.seen = stamp);
    for (const g of r.pred) if (fits(g)) out.push(g), (g.seen = stamp);
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
    return out.sort((a, b) => cmp(a.key, b.key));
  }

  private mergeable(a: Group, b: Group): boolean {
    if (!this.chain(a.open, b.open)) return false;
    if (a.succ.has(b)) return !this.reaches([...a.succ].filter((s) => s !== b), b);
    if (b.succ.has(a)) return !this.reaches([...b.succ].filter((s) => s !== a), a);
    const [lo, hi] = a.pos < b.pos ? [a, b] : [b, a];
    return !this.reaches([lo], hi);
  }

  /** Does a path lead from one of `from` to `target`? Only groups before the target can lie on it. */
  private reaches(from: Group[], target: Group): boolean {
    const stamp = ++this.stamp;
    const stack: Group[] = [];
    const visit = (g: Group): boolean => {
      if (g === target) return true;
      if (g.pos < target.pos && g.seen !== stamp) {
        g.seen = stamp;
        stack.push(g);
      }
      return false;
    };
    for (const g of from) if (visit(g)) return true;
    while (stack.length > 0) for (const s of stack.pop()!.succ) if (visit(s)) return true;
    return false;
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

    this.scan.splice(this.indexOf(small.key), 1);
    this.scan.splice(this.indexOf(big.key), 1);
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
    const rel = new Uint32Array(this.words);
    const [ra, rb] = [this.relOf(big), this.relOf(small)];
    for (let w = 0; w < this.words; w++) rel[w] = ra[w]! | rb[w]!;
    big.rel = rel;
    big.members = mergeSorted(big.members, small.members);
    big.key = big.members.join("\0");
    big.tasks = [...big.tasks, ...small.tasks];
    big.open = [...big.open, ...small.open];
    for (const t of small.tasks) this.groupOf[t] = big;
    if (big.openFree !== small.openFree) for (const t of big.openFree ? big.tasks : small.tasks) clearBit(this.verifiedOnly, t);
    big.openFree = big.openFree && small.openFree;
    big.done = false;
    small.alive = false;
    this.scan.splice(this.insertionPoint(big.key), 0, big);
    this.merges.push(big.members);
    return big;
  }

  private insertionPoint(key: string): number {
    let lo = 0;
    let hi = this.scan.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(this.scan[mid]!.key, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(key: string): number {
    const i = this.insertionPoint(key);
    if (this.scan[i]?.key !== key) fail("regroup lost a group");
    return i;
  }
}

function setBit(bits: Uint32Array, t: number): void {
  bits[t >>> 5]! |= 1 << (t & 31);
}

function clearBit(bits: Uint32Array, t: number): void {
  bits[t >>> 5]! &= ~(1 << (t & 31));
}

function hasBit(bits: Uint32Array, row: number, t: number): boolean {
  return (bits[row + (t >>> 5)]! & (1 << (t & 31))) !== 0;
}

function mergeSorted(a: string[], b: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(cmp(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
