// The independent structure checker (docs/formats.md#structure-verification). Written apart from the planner: it never
// imports plan.ts, recomputes reachability by breadth-first search over successors, has its
// own independence predicate, and trusts no planner verdict. Hard shape errors throw; every
// other finding is a residual issue {code, id}; PASS iff none.
import { parseLedger } from "../ledger/parse.ts";
import { gateState, type GateState } from "../ledger/state.ts";
import { globsOverlap } from "../workspace/paths.ts";
import { isValidId } from "../workspace/ids.ts";
import { attemptsOf, retiredBy, validateCheckpoint } from "./handoff.ts";
import {
  fail,
  isObject,
  STRUCTURE_GATE,
  StructureError,
  type GateDef,
  type Report,
  type StructureState,
  type TaskRow,
} from "./model.ts";
import { leafIdOf, leafStem } from "../plan/leaf-id.ts";

export interface Issue {
  code: string;
  id: string;
}

export interface Verdict {
  ok: boolean;
  residual: number;
  errors: Issue[];
}

export interface Selection {
  launch: string[];
  slots: number;
}

const HEX64 = /^[0-9a-f]{64}$/;
const REPORT_STATES = new Set(["pending", "applied", "resumed", "rejected"]);

function isSafeTurn(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function arraysOfStrings(v: unknown): boolean {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

/** Registry and report shapes; anything malformed is a hard error, not a residual. */
function checkShapes(s: StructureState): void {
  const m = s.meta as unknown as Record<string, unknown>;
  const arrays = ["initial", "expected", "groups", "splits", "requiredEdges", "operations"];
  if (
    !isObject(m) ||
    m.schema !== 1 ||
    arrays.some((k) => !Array.isArray(m[k])) ||
    !isObject(m.requiredGates) ||
    !isObject(m.requiredIntegrations)
  ) {
    fail("invalid STRUCTURE schema");
  }
  if (!Array.isArray(m.reports) || !isSafeTurn(m.turn) || m.turn !== (m.operations as unknown[]).length)
    fail("invalid logical turn/report registry");
  const ids = new Set<string>();
  for (const r of m.reports as unknown[]) {
    if (
      !isObject(r) ||
      typeof r.id !== "string" ||
      !isValidId(r.id) ||
      ids.has(r.id) ||
      typeof r.parent !== "string" ||
      !REPORT_STATES.has(r.state as string)
    ) {
      fail("invalid or duplicate report");
    }
    ids.add(r.id as string);
    const src = r.source;
    if (
      !isObject(src) ||
      typeof src.wave !== "string" ||
      typeof src.handle !== "string" ||
      typeof src.startAt !== "string"
    )
      fail("invalid or duplicate report");
    if (
      typeof r.operation !== "string" ||
      !isSafeTurn(r.reportedTurn) ||
      typeof r.ledger !== "string" ||
      !isObject(r.refinement)
    )
      fail("invalid or duplicate report");
    const c = r.contract;
    const contractKeys = ["needs", "owns", "reads", "resourceReads", "resourceWrites"];
    if (!isObject(c) || contractKeys.some((k) => !arraysOfStrings(c[k])) || !isObject(r.checkpoint))
      fail("invalid report checkpoint contract");
  }
}

function parseSelection(sel: unknown): Selection {
  if (
    !isObject(sel) ||
    !arraysOfStrings(sel.launch) ||
    typeof sel.slots !== "number" ||
    !Number.isSafeInteger(sel.slots) ||
    sel.slots < 1
  ) {
    fail("invalid selection");
  }
  return { launch: sel.launch as string[], slots: sel.slots as number };
}

/**
 * Reachability by BFS over successor lists. When the graph is acyclic (the usual case) every
 * search is bounded by a topological rank: a path to `v` visits only tasks ranked before `v`,
 * so checking a chain of neighbours costs their distance, not the plan (issue 19: the memoized
 * closure per task held hundreds of MB at 10,000 tasks). Only the tasks Kahn's algorithm leaves
 * over can lie on a cycle.
 */
class Reach {
  private readonly succ = new Map<string, string[]>();
  private readonly rank = new Map<string, number>();
  private readonly cyclic: Set<string>;

  constructor(rows: TaskRow[]) {
    for (const r of rows) this.succ.set(r.id, []);
    const indegree = new Map<string, number>([...this.succ.keys()].map((id) => [id, 0]));
    for (const r of rows) {
      for (const n of r.needs) {
        const out = this.succ.get(n);
        if (!out) continue;
        out.push(r.id);
        indegree.set(r.id, indegree.get(r.id)! + 1);
      }
    }
    const queue = [...indegree.keys()].filter((id) => indegree.get(id) === 0);
    for (let i = 0; i < queue.length; i++) {
      this.rank.set(queue[i]!, i);
      for (const v of this.succ.get(queue[i]!)!) {
        const left = indegree.get(v)! - 1;
        indegree.set(v, left);
        if (left === 0) queue.push(v);
      }
    }
    this.cyclic = new Set([...indegree.keys()].filter((id) => !this.rank.has(id)));
  }

  onCycle(u: string): boolean {
    return this.cyclic.has(u) && this.reaches(u, u);
  }

  /** A path of at least one edge from `u` to `v`. */
  reaches(u: string, v: string): boolean {
    const bound = this.cyclic.size === 0 ? this.rank.get(v) : undefined;
    if (bound !== undefined && (this.rank.get(u) ?? Infinity) >= bound) return false;
    const seen = new Set<string>();
    const queue = [...(this.succ.get(u) ?? [])];
    for (let i = 0; i < queue.length; i++) {
      const x = queue[i]!;
      if (x === v) return true;
      if (seen.has(x) || (bound !== undefined && this.rank.get(x)! > bound)) continue;
      seen.add(x);
      for (const w of this.succ.get(x)!) if (!seen.has(w)) queue.push(w);
    }
    return false;
  }

  related(a: string, b: string): boolean {
    return this.reaches(a, b) || this.reaches(b, a);
  }
}

function lowerOverlap(xs: string[], ys: string[]): boolean {
  return xs.some((x) => ys.some((y) => globsOverlap(x.toLowerCase(), y.toLowerCase())));
}

function accessClash(a: TaskRow, b: TaskRow): boolean {
  if (lowerOverlap(a.owns, b.owns) || lowerOverlap(a.owns, b.access.reads) || lowerOverlap(b.owns, a.access.reads))
    return true;
  const meets = (xs: string[], ys: string[]) => xs.some((x) => ys.includes(x));
  return (
    meets(a.access.resourceWrites, b.access.resourceWrites) ||
    meets(a.access.resourceWrites, b.access.resourceReads) ||
    meets(b.access.resourceWrites, a.access.resourceReads)
  );
}

export function sameGateDefs(a: GateDef[], b: GateDef[]): boolean {
  const key = (g: GateDef) => JSON.stringify([g.id, g.title, g.check, g.expect, g.cwd]);
  return a.length === b.length && a.every((g, i) => key(g) === key(b[i]!));
}

function ledgerDefs(text: string): GateDef[] | null {
  const l = parseLedger(text, "reported");
  if (l.errors.length > 0) return null;
  return l.gates.map((g) => ({ id: g.id, title: g.title, check: g.check, expect: g.expect, cwd: g.cwd }));
}

function sameSet(a: string[], b: string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** What every step of the checker shares: the state, its rows by id, and where issues go. */
interface Checking {
  s: StructureState;
  meta: StructureState["meta"];
  byId: Map<string, TaskRow>;
  verified: (id: string) => boolean;
  add: (code: string, id: string) => void;
}

export function verifyStructure(s: StructureState, selection: unknown = null, final = false): Verdict {
  checkShapes(s);
  const errors: Issue[] = [];
  const byId = new Map<string, TaskRow>();
  for (const r of s.rows) if (!byId.has(r.id)) byId.set(r.id, r);
  const c: Checking = {
    s,
    meta: s.meta,
    byId,
    verified: (id) => byId.get(id)?.state === "VERIFIED",
    add: (code, id) => errors.push({ code, id }),
  };
  const opAt = checkOperations(c);
  checkReports(c, opAt, final);
  checkActivity(c);
  checkLeases(c);
  checkConservation(c);
  const reach = new Reach(s.rows);
  checkEdgesAndGates(c, reach);
  checkGroups(c, reach);
  const ownLease = (id: string) => s.leases.some((l) => !l.invalid && l.scope === s.scope && l.leaf === leafStem(id));
  if (selection !== null) checkSelection(s, parseSelection(selection), byId, reach, ownLease, c.add);
  if (final) checkFinal(s, c.add);
  return { ok: errors.length === 0, residual: errors.length, errors };
}

/** Operations and turns; returns whether operation `id` is the one recorded at `turn`. */
function checkOperations({ meta, add }: Checking): (turn: unknown, id: unknown) => boolean {
  const opIds = new Set<string>();
  meta.operations.forEach((op, i) => {
    if (
      !isObject(op) ||
      typeof op.id !== "string" ||
      opIds.has(op.id) ||
      typeof op.requestHash !== "string" ||
      !HEX64.test(op.requestHash)
    ) {
      add("invalid-operations", String((op as { id?: unknown })?.id ?? i));
    } else opIds.add(op.id);
    if (isObject(op) && op.turn !== undefined && op.turn !== i + 1) add("invalid-operation-turn", String(op.id));
  });
  const t = meta.turn;
  return (turn, id) => typeof turn === "number" && turn >= 1 && turn <= t && meta.operations[turn - 1]?.id === id;
}

/** Reports: each one's source attempt, turns, checkpoint, and its state's own rules. */
function checkReports(
  { s, meta, byId, verified, add }: Checking,
  opAt: (turn: unknown, id: unknown) => boolean,
  final: boolean,
): void {
  const pendingParents = new Map<string, number>();
  const retiredKeys = new Set<string>();
  for (const r of meta.reports) {
    const wave = s.waves.find((w) => w.id === r.source.wave);
    const leaf = leafStem(r.parent);
    const start = wave?.started[leaf];
    if (
      !byId.has(r.parent) ||
      !start ||
      start.handle !== r.source.handle ||
      start.at !== r.source.startAt ||
      (wave!.state !== "sealed" && wave!.state !== "complete")
    ) {
      add("report-source-mismatch", r.id);
    }
    if (!opAt(r.reportedTurn, r.operation)) add("report-turn-mismatch", r.id);
    const recorded = parseLedger(r.ledger, leafStem(r.parent));
    try {
      const states: Record<string, GateState> = {};
      for (const g of recorded.gates) states[g.id] = gateState(g, recorded);
      if (recorded.errors.length > 0) throw new StructureError("invalid checkpoint");
      validateCheckpoint(
        r.checkpoint,
        recorded.gates.map((g) => g.id),
        states,
        r.contract.owns,
      );
    } catch (e) {
      if (!(e instanceof StructureError)) throw e;
      add("invalid-checkpoint", r.id);
    }
    const parent = byId.get(r.parent);
    if (r.state === "pending") {
      const defs = ledgerDefs(r.ledger);
      if (parent && (defs === null || !sameGateDefs(parent.gates, defs))) add("changed-reported-gates", r.id);
      pendingParents.set(r.parent, (pendingParents.get(r.parent) ?? 0) + 1);
      if (pendingParents.get(r.parent) === 2) add("duplicate-pending-report", r.parent);
      if (verified(r.parent)) add("pending-parent-verified", r.id);
      if (r.resolvedTurn !== undefined || r.returnedAt !== undefined) add("premature-report-resolution", r.id);
      if (final) add("pending-refinement-report", r.id);
      continue;
    }
    if (
      typeof r.resolvedTurn !== "number" ||
      r.resolvedTurn <= r.reportedTurn ||
      !opAt(r.resolvedTurn, r.resolutionOperation)
    )
      add("resolution-turn-mismatch", r.id);
    if (r.state === "rejected") {
      if (typeof r.reason !== "string" || r.reason.trim() === "" || r.returnedAt !== undefined)
        add("invalid-report-rejection", r.id);
      continue;
    }
    const key = JSON.stringify([r.parent, r.source.wave, r.source.handle, r.source.startAt]);
    if (retiredKeys.has(key)) add("duplicate-retired-attempt", r.id);
    retiredKeys.add(key);
    const ret = wave?.returned[leaf]?.at;
    const blank = (v: unknown) => typeof v !== "string" || v.trim() === "";
    if (
      ret === undefined ||
      ret !== r.returnedAt ||
      r.stopped !== true ||
      r.reviewed !== true ||
      blank(r.stopEvidence) ||
      blank(r.reviewEvidence)
    ) {
      add("unconfirmed-handoff", r.id);
    }
    if (r.state === "applied") checkReportedChildren(r, byId, meta.splits, add);
  }
}

/** Activity, recomputed from the rows and the attempts not yet retired; the structure gate. */
function checkActivity({ s, meta, byId, add }: Checking): void {
  const attempts = attemptsOf(s.waves);
  const expectedActive = s.rows
    .filter(
      (r) =>
        r.state === "IN-FLIGHT" ||
        (attempts.get(r.id) ?? []).some(
          (a) => retiredBy(a, meta.reports) === null && (a.returnedAt === null || r.state !== "VERIFIED"),
        ),
    )
    .map((r) => r.id);
  if (!sameSet(expectedActive, s.active) || new Set(s.active).size !== s.active.length)
    add("active-accounting-mismatch", s.scope);
  const gatesFile = s.integrations.find((i) => i.file === "GATES.md");
  if (s.registryInitialized && !gatesFile?.gates.some((g) => g.id === STRUCTURE_GATE))
    add("missing-structure-gate", "GATES.md");
  for (const a of s.active) if (!byId.has(a)) add("orphan-worker", a);
}

/** Leases: each of this scope's names a row and owns exactly its paths. */
function checkLeases({ s, byId, add }: Checking): void {
  for (const l of s.leases) {
    if (l.invalid) {
      add("invalid-lease", l.leaf);
      continue;
    }
    if (l.scope !== s.scope) continue;
    const leafId = leafIdOf(l.leaf);
    const task = leafId !== null ? byId.get(leafId) : undefined;
    if (!task) add("orphan-lease", l.leaf);
    else if (JSON.stringify([...l.globs].sort()) !== JSON.stringify([...task.owns].sort()))
      add("lease-ownership-mismatch", l.leaf);
  }
}

/** Task conservation: the rows are exactly the initial tasks plus the children of splits, as expected. */
function checkConservation({ s, meta, byId, add }: Checking): void {
  const seenRows = new Set<string>();
  for (const r of s.rows) {
    if (seenRows.has(r.id)) add("duplicate-task", r.id);
    seenRows.add(r.id);
  }
  if (new Set(meta.initial).size !== meta.initial.length) add("duplicate-initial", "initial");
  const children = new Set<string>();
  const splitParents = new Set<string>();
  for (const sp of meta.splits) {
    if (
      !isObject(sp) ||
      typeof sp.parent !== "string" ||
      !arraysOfStrings(sp.children) ||
      !meta.expected.includes(sp.parent) ||
      splitParents.has(sp.parent) ||
      sp.children.length < 2
    ) {
      add("invalid-split", String((sp as { parent?: unknown })?.parent));
      if (!isObject(sp) || !Array.isArray(sp.children)) continue;
    }
    splitParents.add(sp.parent);
    const parent = byId.get(sp.parent);
    for (const c of sp.children) {
      if (children.has(c) || meta.initial.includes(c)) add("duplicate-child", c);
      children.add(c);
      if (!parent || !parent.needs.includes(c)) add("orphan-child", c);
    }
  }
  if (new Set(meta.expected).size !== meta.expected.length) add("duplicate-expected", "expected");
  const universe = new Set([...meta.initial, ...children]);
  const expected = new Set(meta.expected);
  for (const id of [...new Set([...universe, ...expected, ...seenRows])].sort()) {
    if (!(universe.has(id) && expected.has(id) && seenRows.has(id))) add("task-conservation", id);
  }
}

/** Edges and gates: no missing or lost dependency, no cycle, no lost gate, VERIFIED only when earned. */
function checkEdgesAndGates({ s, meta, byId, verified, add }: Checking, reach: Reach): void {
  for (const r of s.rows) {
    for (const n of r.needs) if (!byId.has(n)) add("missing-dependency", `${n}->${r.id}`);
    if (r.state === "VERIFIED" && r.needs.some((n) => !verified(n))) add("premature-verification", r.id);
  }
  for (const r of s.rows) if (reach.onCycle(r.id)) add("dependency-cycle", r.id);
  for (const e of meta.requiredEdges) {
    if (!Array.isArray(e) || !byId.get(e[1])?.needs.includes(e[0]))
      add("lost-edge", Array.isArray(e) ? `${e[0]}->${e[1]}` : String(e));
  }
  for (const [task, gates] of Object.entries(meta.requiredGates)) {
    const row = byId.get(task);
    for (const g of Array.isArray(gates) ? gates : [])
      if (!row?.gates.some((d) => d.id === g)) add("lost-gate", `${task}:${g}`);
  }
  for (const r of s.rows) {
    if (!Object.hasOwn(meta.requiredGates, r.id)) add("untracked-gates", r.id);
    if (r.state === "VERIFIED" && r.gates.some((g) => r.gateStates[g.id] !== "met")) add("stale-verification", r.id);
    if (r.state === "VERIFIED" && s.receipts && Object.hasOwn(s.receipts, r.id))
      add(`verification-${s.receipts[r.id]}`, r.id);
  }
  for (const [file, gates] of Object.entries(meta.requiredIntegrations)) {
    const led = s.integrations.find((i) => i.file === file);
    for (const g of Array.isArray(gates) ? gates : [])
      if (!led?.gates.some((d) => d.id === g)) add("lost-integration-gate", `${file}:${g}`);
  }
}

/** Groups: every row in exactly one, no parallelism lost inside one, no cycle between them. */
function checkGroups({ s, meta, byId, verified, add }: Checking, reach: Reach): void {
  const groupOf = new Map<string, number>();
  meta.groups.forEach((g, gi) => {
    if (!Array.isArray(g) || g.length === 0) {
      add("invalid-group", String(gi));
      return;
    }
    for (const m of g) {
      if (!byId.has(m)) add("extra-group-member", m);
      if (groupOf.has(m)) add("duplicate-assignment", m);
      else groupOf.set(m, gi);
    }
    const open = g.filter((m) => byId.has(m) && !verified(m));
    for (let i = 0; i < open.length; i++) {
      for (let j = i + 1; j < open.length; j++)
        if (!reach.related(open[i]!, open[j]!)) add("lost-parallelism", `${open[i]},${open[j]}`);
    }
  });
  for (const r of s.rows) if (!groupOf.has(r.id)) add("unassigned-task", r.id);
  if (groupCycle(s.rows, groupOf, meta.groups.length)) add("group-cycle", "groups");
}

function checkReportedChildren(
  r: Report,
  byId: Map<string, TaskRow>,
  splits: StructureState["meta"]["splits"],
  add: (c: string, id: string) => void,
): void {
  const split = splits.find((sp) => sp.parent === r.parent);
  const parent = byId.get(r.parent);
  for (const c of r.refinement.children ?? []) {
    const row = byId.get(c.id);
    const needed = [...r.contract.needs, ...(Array.isArray(c.needs) ? c.needs : [])];
    if (
      !row ||
      !split?.children.includes(c.id) ||
      !parent?.needs.includes(c.id) ||
      needed.some((n) => !row.needs.includes(n))
    ) {
      add("lost-reported-child", c.id);
      continue;
    }
    const defs = typeof c.ledger === "string" ? ledgerDefs(c.ledger) : null;
    if (defs === null || !sameGateDefs(row.gates, defs)) add("changed-reported-child-gates", c.id);
    const proposed = isObject(c.access) ? (c.access as Record<string, unknown>) : {};
    const owns = typeof c.ledger === "string" ? parseLedger(c.ledger, "child").owns : [];
    const list = (k: string) => (arraysOfStrings(proposed[k]) ? (proposed[k] as string[]) : []);
    if (
      !sameSet(row.owns, owns) ||
      !sameSet(row.access.reads, list("reads")) ||
      !sameSet(row.access.resourceReads, list("resourceReads")) ||
      !sameSet(row.access.resourceWrites, list("resourceWrites"))
    ) {
      add("changed-reported-child-access", c.id);
    }
  }
}

/** Kahn over the quotient graph of groups; true when some groups remain (a cycle). */
function groupCycle(rows: TaskRow[], groupOf: Map<string, number>, n: number): boolean {
  const edges = new Map<number, Set<number>>();
  const indeg = new Array<number>(n).fill(0);
  for (const r of rows) {
    const to = groupOf.get(r.id);
    for (const need of r.needs) {
      const from = groupOf.get(need);
      if (from === undefined || to === undefined || from === to) continue;
      const out = edges.get(from) ?? new Set<number>();
      if (!out.has(to)) {
        out.add(to);
        indeg[to]!++;
      }
      edges.set(from, out);
    }
  }
  const queue = indeg.flatMap((d, i) => (d === 0 ? [i] : []));
  let done = 0;
  for (let i = 0; i < queue.length; i++) {
    done++;
    for (const to of edges.get(queue[i]!) ?? []) if (--indeg[to]! === 0) queue.push(to);
  }
  return done !== n;
}

function checkSelection(
  s: StructureState,
  sel: Selection,
  byId: Map<string, TaskRow>,
  reach: Reach,
  ownLease: (id: string) => boolean,
  add: (c: string, id: string) => void,
): void {
  const seen = new Set<string>();
  for (const id of sel.launch) {
    if (seen.has(id)) add("duplicate-launch", id);
    seen.add(id);
  }
  if (sel.launch.length > 0 && sel.launch.length + s.active.length > sel.slots)
    add("capacity-exceeded", String(sel.slots));
  const launched = [...seen].map((id) => byId.get(id)).filter((r): r is TaskRow => r !== undefined);
  for (const id of [...seen]) {
    const row = byId.get(id);
    if (!row) {
      add("unknown-launch", id);
      continue;
    }
    const ready =
      (row.state === "WAITING" || row.state === "READY") &&
      !s.active.includes(id) &&
      row.needs.every((n) => byId.get(n)?.state === "VERIFIED" && !ownLease(n));
    if (!ready) add("not-ready", id);
    const mine = [...row.owns, ...row.access.reads];
    const other = s.leases.find(
      (l) => !(l.scope === s.scope && l.leaf === leafStem(id) && !l.invalid) && lowerOverlap(mine, l.globs),
    );
    if (other) add("lease-conflict", id);
    for (const a of s.active) {
      const ar = byId.get(a);
      if (ar && (reach.related(a, id) || accessClash(row, ar))) add("parallel-conflict", `${a},${id}`);
    }
    // Every other launched task, before and after it: a conflicting pair is reported in both
    // orders, as the original counts it (issue 19).
    for (const x of launched)
      if (x.id !== id && (reach.related(x.id, id) || accessClash(row, x))) add("parallel-conflict", `${x.id},${id}`);
  }
}

function checkFinal(s: StructureState, add: (c: string, id: string) => void): void {
  const root = s.integrations.find((i) => i.file === "GATES.md");
  if (root?.gateStates[STRUCTURE_GATE] === "abandoned") add("abandoned-structure-gate", STRUCTURE_GATE);
  for (const r of s.rows)
    if (r.state !== "VERIFIED" || r.gates.some((g) => r.gateStates[g.id] !== "met")) add("unfinished-task", r.id);
  // One issue each however many workers, leases or waves remain, as the original counts them
  // (issue 19); the id lists them all, sorted.
  const once = (code: string, ids: string[]) => {
    if (ids.length > 0) add(code, [...ids].sort().join(","));
  };
  once("active-workers", s.active);
  once(
    "remaining-leases",
    s.leases.filter((l) => l.invalid || l.scope === s.scope).map((l) => l.leaf),
  );
  once(
    "unfinished-dispatch",
    s.waves.filter((w) => w.state !== "complete").map((w) => w.id),
  );
  for (const i of s.integrations) {
    for (const g of i.gates) {
      if (i.file === "GATES.md" && g.id === STRUCTURE_GATE) continue;
      if (i.gateStates[g.id] !== "met") add("unfinished-integration", `${i.file}:${g.id}`);
    }
  }
}
