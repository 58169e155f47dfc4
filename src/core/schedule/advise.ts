// The next allocation (docs/formats.md#scheduling): readiness, leases, slots, greedy choice in id order,
// continuations, promotions and review triggers. Pure: snapshot in, advice out.
import { chains, Dag, RelatedSet } from "../plan/graph.ts";
import type { PlanRow } from "../plan/table.ts";
import { ScheduleInputError } from "../plan/errors.ts";
import { conflicts, ConflictIndex, GlobIndex, type AccessSets, type Witness } from "./conflicts.ts";
import { byRemaining, pathFrom, remainingPaths, type Policy, type Remaining } from "./policy.ts";
import type { LeaseView } from "../dispatch/lease-record.ts";
import type { NextSnapshot, TaskFacts } from "./snapshot.ts";
import { retiredBy } from "../structure/handoff.ts";
import type { Report } from "../structure/model.ts";
import { leafIdOf, leafStem } from "../plan/leaf-id.ts";

/** `done` is kbz's addition (ops/next.ts): every task VERIFIED, the root verified, the scope released. */
export type Action = "review" | "dispatch" | "wait-or-verify" | "verify-root" | "done";

export type BlockReason =
  | "dependencies-or-unreleased-leases"
  | "live-lease-conflict"
  | "active-conflict"
  | "selected-conflict"
  | "attention-required"
  | "slots";

export type AttentionReason =
  | "handoff"
  | "verified-ledger-not-met"
  | "verified-before-dependency"
  | "resume-open-wave"
  | "resume-abandoned-wave"
  | "verified-before-return"
  | "external-or-invalid-lease-needs-review"
  | "unknown-lease-owner"
  | "lease-ownership-mismatch"
  | "vacuous-gate"
  | `verification-${string}`;

export interface Attention {
  leaf?: string;
  wave?: string;
  reason: AttentionReason;
  /** vacuous-gate: the gate, and what the probe hid while its CHECK still passed. */
  gate?: string;
  hidden?: string[];
}

export interface Continuation {
  leaf: string;
  after: string;
  handle: string | null;
}

export interface PendingHandoff {
  id: string;
  parent: string;
  returned: boolean; // the source wave recorded the parent's return
  leaseReleased: boolean; // the parent holds no lease
}

export interface Deferred {
  leaf: string;
  reason: BlockReason;
  needs?: string[];
}

/** The spec's result object (docs/formats.md#next-output), keys in emitted order. */
export interface Advice {
  schema: 1;
  snapshot: string;
  mode: "orchestrated" | "solo";
  counts: { tasks: number; sequentialGroups: number; active: number; selected: number };
  action: Action;
  launch: string[];
  promote: string[];
  continuations: Continuation[];
  alreadyClaimed: string[];
  awaitVerification: string[];
  active: string[];
  blocked: Partial<Record<BlockReason, number>>;
  attention: Attention[];
  /** Only with a STRUCTURE.json registry (docs/formats.md#next-output): the turn and the pending worker reports. */
  handoffs?: { turn: number; pending: PendingHandoff[] };
  structure?: {
    deferred: Deferred[];
    sequentialGroups: string[][];
    forks: { after: string; children: string[] }[];
    joins: { leaf: string; needs: string[] }[];
  };
  explain?: Explanations;
  /** Present only for a policy other than the original id order. */
  policy?: Policy;
  /**
   * verify-root only (kbz's addition, ops/next.ts): the unmet manual gates of the scope's root and
   * node ledgers, which a person signs before the one `kbz check --reverify` that verifies the root.
   */
  signFirst?: SignFirst[];
  /** kbz's addition (ops/next.ts): the solo ledgers' gates that are not met, judged with the scope. */
  solo?: SoloItem[];
  /** Only when something is stale (ops/refresh.ts cascadesOf): stale gates and receipts by the file that changed. */
  cascades?: Cascade[];
}

/** kbz's addition (ops/refresh.ts): the stale gates and receipts one changed file caused, refreshed by one command. */
export interface Cascade {
  /** The file whose change made them stale (the first named, when several changed). */
  cause: string;
  gates: number;
  receipts: number;
  /** The leaves concerned, in id order. */
  leaves: string[];
  /** The one command that refreshes the cascade. */
  next: string;
}

export interface SoloItem {
  ledger: string; // root-relative
  gate: string;
  state: string; // STALE (input changed: README), UNMET, …
  manual: boolean; // a person signs it
}

export interface SignFirst {
  ledger: string; // root-relative
  gate: string;
  title: string;
}

/** kbz's additions under --details: who each attention item concerns and why each task waits. */
export interface Explanations {
  attention: (Attention & { leases?: string[]; tasks: string[] })[];
  blocked: { leaf: string; reason: BlockReason; blockedBy: string[]; why: string }[];
  /** Under `critical-path`: why each launched leaf was preferred (its remaining weighted path). */
  preferred?: { leaf: string; remaining: number; path: string[]; ahead: string[]; why: string }[];
}

export interface AdviseOptions {
  details: boolean;
  /** The order ready tasks are offered in (policy.ts); default the original id order. */
  policy?: Policy;
}

interface Attempt {
  wave: string;
  handle: string;
  at: number;
  returned: boolean;
}

const leafName = (id: string) => leafStem(id);
const leaseName = (l: LeaseView) => `${l.scope}/${l.leaf}`;

export function exitFor(action: Action): 0 | 1 {
  return action === "review" ? 1 : 0;
}

/** What each step of adviseNext reads (the snapshot's rows by id) and the attention found so far. */
interface Scan {
  snap: NextSnapshot;
  rows: PlanRow[];
  facts(id: string): TaskFacts;
  access(id: string): AccessSets;
  row(id: string): PlanRow;
  verified(id: string): boolean;
  attention: Attention[];
  explainAttention: Explanations["attention"];
  attend(a: Attention, tasks: string[], leases?: string[]): void;
}

function scanOf(snap: NextSnapshot): Scan {
  const { plan } = snap;
  const facts = (id: string): TaskFacts => snap.tasks.get(id)!;
  const row = (id: string): PlanRow => plan.byId.get(id)!;
  const attention: Attention[] = [];
  const explainAttention: Explanations["attention"] = [];
  return {
    snap,
    rows: plan.rows,
    facts,
    access: (id) => facts(id).access,
    row,
    verified: (id) => row(id).state === "VERIFIED",
    attention,
    explainAttention,
    attend: (a, tasks, leases) => {
      attention.push(a);
      explainAttention.push({ ...a, ...(leases ? { leases } : {}), tasks });
    },
  };
}

/** The selection: what launches, how many tasks wait for each reason, and (with details) why. */
interface Selection {
  launch: string[];
  blocked: Partial<Record<BlockReason, number>>;
  deferred: Deferred[];
  explainBlocked: Explanations["blocked"];
}

export function adviseNext(snap: NextSnapshot, opts: AdviseOptions): Advice {
  const s = scanOf(snap);
  const { plan } = snap;
  const rows = s.rows;
  rowAttention(s);
  const attempts = waveAttempts(s);
  const active = rows
    .filter((r) => r.state === "IN-FLIGHT" || attempts.get(r.id)!.some((a) => !a.returned || r.state !== "VERIFIED"))
    .map((r) => r.id);
  const awaitVerification = rows
    .filter((r) => r.state !== "VERIFIED" && attempts.get(r.id)!.some((a) => a.returned))
    .map((r) => r.id);
  const { leased, leaseIndex } = leaseAttention(s);

  // docs/formats.md#scheduling groups and predecessors (no structure registry).
  const needsOf = (id: string) => s.row(id).needs;
  const succOf = (id: string) => plan.successors.get(id)!;
  const dag = new Dag(plan.order, needsOf);
  const groups = snap.structure ? snap.structure.groups : chains(dag);
  const predecessor = snap.structure
    ? registryPredecessors(groups, plan.order, dag, s.verified)
    : chainPredecessors(groups);

  const paths =
    opts.policy === "critical-path"
      ? remainingPaths(plan.order, succOf, (id) => s.facts(id).estimate ?? 1, s.verified)
      : null;
  const sel = selectLaunch(s, {
    scan: paths ? byRemaining(rows, paths) : rows,
    active,
    dag,
    leased,
    leaseIndex,
    details: opts.details,
  });
  const { launch } = sel;
  const continuations = continuationsOf(launch, snap.structure?.reports ?? [], predecessor, attempts);
  let action: Action;
  if (s.attention.length > 0) action = "review";
  else if (launch.length > 0) action = "dispatch";
  else if (active.length > 0) action = "wait-or-verify";
  else if (rows.every((r) => r.state === "VERIFIED")) action = "verify-root";
  else action = "review";

  const advice: Advice = {
    schema: 1,
    snapshot: snap.fingerprint,
    mode: modeOf(plan.order, dag, needsOf, s.access),
    counts: { tasks: rows.length, sequentialGroups: groups.length, active: active.length, selected: launch.length },
    action,
    launch,
    promote: launch.filter((id) => s.row(id).state === "WAITING"),
    continuations,
    alreadyClaimed: launch.filter((id) => leased.has(id)),
    awaitVerification,
    active,
    blocked: sel.blocked,
    attention: s.attention,
  };
  if (snap.structure) advice.handoffs = { turn: snap.structure.turn, pending: pendingHandoffs(snap, leased) };
  if (opts.details) {
    advice.structure = {
      deferred: sel.deferred,
      sequentialGroups: groups,
      forks: rows.filter((r) => succOf(r.id).length > 1).map((r) => ({ after: r.id, children: [...succOf(r.id)] })),
      joins: rows.filter((r) => r.needs.length > 1).map((r) => ({ leaf: r.id, needs: [...r.needs] })),
    };
    advice.explain = { attention: s.explainAttention, blocked: sel.explainBlocked };
    if (paths) advice.explain.preferred = preferred(launch, rows, sel.explainBlocked, paths);
  }
  if (paths) advice.policy = "critical-path";
  return advice;
}

/** docs/formats.md#scheduling: per row, in id order. */
function rowAttention(s: Scan): void {
  for (const r of s.rows) {
    const gates = s.facts(r.id).gates;
    if (r.state === "ABANDONED" || gates.includes("abandoned")) s.attend({ leaf: r.id, reason: "handoff" }, [r.id]);
    for (const v of s.facts(r.id).vacuous ?? [])
      s.attend({ leaf: r.id, reason: "vacuous-gate", gate: v.gate, hidden: v.hidden }, [r.id]);
    if (r.state !== "VERIFIED") continue;
    if (gates.some((g) => g !== "met")) s.attend({ leaf: r.id, reason: "verified-ledger-not-met" }, [r.id]);
    const receipt = s.facts(r.id).verification;
    if (receipt) s.attend({ leaf: r.id, reason: `verification-${receipt}` }, [r.id]);
    if (r.needs.some((n) => !s.verified(n)))
      s.attend({ leaf: r.id, reason: "verified-before-dependency" }, [r.id, ...r.needs.filter((n) => !s.verified(n))]);
  }
}

/** docs/formats.md#scheduling attempts: each task's starts in the waves, less those a handoff retired. */
function waveAttempts(s: Scan): Map<string, Attempt[]> {
  const { plan } = s.snap;
  const attempts = new Map<string, Attempt[]>(s.rows.map((r) => [r.id, []]));
  const bare = (leaf: string, wave: string): string => {
    const id = leafIdOf(leaf);
    if (id === null || !plan.byId.has(id))
      throw new ScheduleInputError(`dispatch references unknown leaf ${leaf} (wave ${wave})`, "dispatch.json");
    return id;
  };
  const reports = s.snap.structure?.reports ?? [];
  const isRetired = (task: string, wave: string, start: { handle: string; at: string }, returnedAt: string | null) =>
    returnedAt !== null && retiredBy({ task, wave, handle: start.handle, at: start.at, returnedAt }, reports) !== null;
  for (const w of s.snap.waves) {
    const ids = w.leaves.map((l) => bare(l, w.id));
    for (const l of [...w.started.keys(), ...w.returned.keys()]) bare(l, w.id);
    if (w.state === "open") s.attend({ wave: w.id, reason: "resume-open-wave" }, ids);
    if (w.state === "abandoned") s.attend({ wave: w.id, reason: "resume-abandoned-wave" }, ids);
    w.leaves.forEach((leaf, k) => {
      const start = w.started.get(leaf);
      if (!start) return;
      const returned = w.returned.has(leaf);
      if (isRetired(ids[k]!, w.id, start, w.returned.get(leaf)?.at ?? null)) return;
      attempts.get(ids[k]!)!.push({ wave: w.id, handle: start.handle, at: Date.parse(start.at), returned });
      if (!returned && s.verified(ids[k]!)) s.attend({ leaf: ids[k]!, reason: "verified-before-return" }, [ids[k]!]);
    });
  }
  return attempts;
}

/** docs/formats.md#scheduling leases: the scope's leased tasks, every lease by glob, and the leases to review. */
function leaseAttention(s: Scan): { leased: Set<string>; leaseIndex: GlobIndex<LeaseView> } {
  const { scope, plan } = s.snap;
  const leased = new Set<string>();
  const leaseIndex = new GlobIndex<LeaseView>();
  const foreign: LeaseView[] = [];
  for (const l of s.snap.leases) {
    for (const g of l.globs) leaseIndex.add(g, l);
    if (l.invalid || l.scope !== scope) foreign.push(l);
  }
  const touching = (l: LeaseView) => s.rows.filter((r) => touches(l, s.access(r.id))).map((r) => r.id);
  if (foreign.length > 0) {
    const tasks = [...new Set(foreign.flatMap(touching))].sort(s.snap.compare);
    s.attend({ reason: "external-or-invalid-lease-needs-review" }, tasks, foreign.map(leaseName));
  }
  for (const l of s.snap.leases) {
    if (l.invalid || l.scope !== scope) continue;
    const id = leafIdOf(l.leaf);
    if (id === null || !plan.byId.has(id)) {
      s.attend({ reason: "unknown-lease-owner" }, touching(l), [leaseName(l)]);
      continue;
    }
    leased.add(id);
    const owns = new Set(s.row(id).owns);
    if (l.globs.length !== owns.size || l.globs.some((g) => !owns.has(g)))
      s.attend({ leaf: id, reason: "lease-ownership-mismatch" }, [id], [leaseName(l)]);
  }
  return { leased, leaseIndex };
}

/** docs/formats.md#scheduling selection: scan U_t in id order (or the policy's order); the first failing test is the reason. */
function selectLaunch(
  s: Scan,
  o: {
    scan: PlanRow[];
    active: string[];
    dag: Dag;
    leased: Set<string>;
    leaseIndex: GlobIndex<LeaseView>;
    details: boolean;
  },
): Selection {
  const { scope, slots } = s.snap;
  const activeSet = new Set(o.active);
  const available = Math.max(0, slots - o.active.length);
  const activeRelated = new RelatedSet(o.dag);
  const activeAccess = new ConflictIndex<string>();
  for (const a of o.active) {
    activeRelated.add(a);
    activeAccess.add(a, s.access(a));
  }
  const selectedAccess = new ConflictIndex<string>();
  const sel: Selection = { launch: [], blocked: {}, deferred: [], explainBlocked: [] };
  const { launch } = sel;
  // Explanations are built only when asked for: `why` returns the blockers and the sentence.
  const block = (id: string, reason: BlockReason, why: () => [string[], string], needs?: string[]) => {
    sel.blocked[reason] = (sel.blocked[reason] ?? 0) + 1;
    if (!o.details) return;
    sel.deferred.push(needs ? { leaf: id, reason, needs } : { leaf: id, reason });
    const [blockedBy, text] = why();
    sel.explainBlocked.push({ leaf: id, reason, blockedBy, why: text });
  };
  for (const r of o.scan) {
    if (r.state === "VERIFIED" || r.state === "ABANDONED" || activeSet.has(r.id)) continue;
    const waiting = r.needs.filter((n) => !s.verified(n) || o.leased.has(n));
    if (waiting.length > 0) {
      block(r.id, "dependencies-or-unreleased-leases", () => [waiting, dependencyWhy(waiting, s.row)], waiting);
      continue;
    }
    const mine = s.access(r.id);
    const own = (l: LeaseView) => !l.invalid && l.scope === scope && l.leaf === leafName(r.id);
    const leaseHit = leaseConflict(o.leaseIndex, mine, own);
    if (leaseHit) {
      const l = leaseName(leaseHit.with);
      block(r.id, "live-lease-conflict", () => [[l], `${leaseHit.mine} overlaps ${leaseHit.theirs} leased by ${l}`]);
      continue;
    }
    const related = activeRelated.relation(r.id);
    const activeHit = related ? null : activeAccess.find(mine);
    if (related || activeHit) {
      block(r.id, "active-conflict", () => conflictWhy(activeHit, related, "active"));
      continue;
    }
    // Selected tasks are never dependency-related here: a selection exists only without
    // attention, so every VERIFIED task's needs are VERIFIED, and two ready tasks (all needs
    // VERIFIED, themselves not) cannot lie on one dependency path. Access still can conflict.
    const selectedHit = selectedAccess.find(mine);
    if (selectedHit) {
      block(r.id, "selected-conflict", () => conflictWhy(selectedHit, null, "selected"));
      continue;
    }
    if (s.attention.length > 0) {
      block(r.id, "attention-required", () => [[], `review first: ${s.attention.map(describeAttention).join("; ")}`]);
      continue;
    }
    if (launch.length >= available) {
      block(r.id, "slots", () => [
        [],
        `no free slot: ${slots} slot(s), ${o.active.length} active, ${launch.length} selected`,
      ]);
      continue;
    }
    launch.push(r.id);
    selectedAccess.add(r.id, mine);
  }
  return sel;
}

/** Who each launched task continues: the handoff it resumes, else its group's predecessor (docs/formats.md#scheduling). */
function continuationsOf(
  launch: string[],
  reports: Report[],
  predecessor: Map<string, string>,
  attempts: Map<string, Attempt[]>,
): Continuation[] {
  const latestStartByTime = (id: string): Attempt | null => {
    let best: Attempt | null = null;
    for (const a of attempts.get(id)!) if (!best || a.at > best.at) best = a;
    return best;
  };
  const continuations: Continuation[] = [];
  for (const id of launch) {
    const handoff = retiringReport(id, reports);
    if (handoff) {
      continuations.push({ leaf: id, after: id, handle: handoff.source.handle });
      continue;
    }
    const pred = predecessor.get(id);
    if (pred !== undefined)
      continuations.push({ leaf: id, after: pred, handle: latestStartByTime(pred)?.handle ?? null });
  }
  return continuations;
}

/** Each launched leaf's remaining path, and the leaves before it in id order it went ahead of (deferred for slots or conflicts with the selection). */
function preferred(
  launch: string[],
  rows: PlanRow[],
  blocked: Explanations["blocked"],
  paths: Map<string, Remaining>,
): NonNullable<Explanations["preferred"]> {
  const position = new Map(rows.map((r, i) => [r.id, i]));
  const overtaken = blocked.filter((b) => b.reason === "slots" || b.reason === "selected-conflict").map((b) => b.leaf);
  return launch.map((id) => {
    const remaining = paths.get(id)!.remaining;
    const path = pathFrom(id, paths);
    const ahead = overtaken.filter((o) => position.get(o)! < position.get(id)! && paths.get(o)!.remaining < remaining);
    const shown = ahead.slice(0, 3).map((o) => `${o} (${paths.get(o)!.remaining})`);
    const more = ahead.length > 3 ? ` and ${ahead.length - 3} more` : "";
    const why = `remaining path ${remaining}: ${path.join(" > ")}${ahead.length > 0 ? `; ahead of ${shown.join(", ")}${more} in id order` : ""}`;
    return { leaf: id, remaining, path, ahead, why };
  });
}

function chainPredecessors(groups: string[][]): Map<string, string> {
  const predecessor = new Map<string, string>();
  for (const g of groups) for (let k = 1; k < g.length; k++) predecessor.set(g[k]!, g[k - 1]!);
  return predecessor;
}

/** With a registry: the last (Kahn order) member of v's group that is a VERIFIED ancestor of v. */
function registryPredecessors(
  groups: string[][],
  order: string[],
  dag: Dag,
  verified: (id: string) => boolean,
): Map<string, string> {
  const predecessor = new Map<string, string>();
  const position = new Map(order.map((id, i) => [id, i]));
  for (const g of groups) {
    const members = g.filter((m) => position.has(m)).sort((a, b) => position.get(a)! - position.get(b)!);
    for (const v of members) {
      const related = new RelatedSet(dag);
      related.add(v);
      const before = members.filter((u) => {
        const r = u === v ? null : related.relation(u);
        return r !== null && "dependent" in r && verified(u);
      });
      if (before.length > 0) predecessor.set(v, before[before.length - 1]!);
    }
  }
  return predecessor;
}

/** The applied or resumed report on this task with the highest resolvedTurn (docs/formats.md#scheduling). */
function retiringReport(id: string, reports: Report[]): Report | null {
  let best: Report | null = null;
  for (const r of reports) {
    if (r.parent !== id || (r.state !== "applied" && r.state !== "resumed")) continue;
    if (!best || (r.resolvedTurn ?? 0) > (best.resolvedTurn ?? 0)) best = r;
  }
  return best;
}

function pendingHandoffs(snap: NextSnapshot, leased: Set<string>): PendingHandoff[] {
  return (snap.structure?.reports ?? [])
    .filter((r) => r.state === "pending")
    .map((r) => {
      const wave = snap.waves.find((w) => w.id === r.source.wave);
      return {
        id: r.id,
        parent: r.parent,
        returned: wave?.returned.has(leafStem(r.parent)) ?? false,
        leaseReleased: !leased.has(r.parent),
      };
    });
}

function touches(l: LeaseView, a: AccessSets): boolean {
  const index = new GlobIndex<null>();
  for (const g of l.globs) index.add(g, null);
  return [...a.writes, ...a.reads].some((g) => index.first(g) !== null);
}

function leaseConflict(
  index: GlobIndex<LeaseView>,
  mine: AccessSets,
  own: (l: LeaseView) => boolean,
): Witness<LeaseView> | null {
  for (const g of [...mine.writes, ...mine.reads]) {
    const hit = index.first(g, own);
    if (hit)
      return {
        kind: mine.writes.includes(g) ? "write/write" : "read/write",
        mine: g,
        theirs: hit.glob,
        with: hit.owner,
      };
  }
  return null;
}

function dependencyWhy(waiting: string[], row: (id: string) => PlanRow): string {
  return waiting
    .map((n) =>
      row(n).state === "VERIFIED"
        ? `${n} is VERIFIED but still holds its lease ${leafStem(n)}`
        : `needs ${n} (${row(n).state})`,
    )
    .join("; ");
}

function conflictWhy(
  w: Witness<string> | null,
  related: { dependent: string } | { dependency: string } | null,
  role: string,
): [string[], string] {
  if (!w) {
    if (related && "dependent" in related)
      return [[related.dependent], `${role} task ${related.dependent} depends on it`];
    const dep = (related as { dependency: string }).dependency;
    return [[dep], `depends on ${role} task ${dep}`];
  }
  const other = w.with;
  const what: Record<string, string> = {
    "write/write": `writes ${w.mine}, ${role} task ${other} writes ${w.theirs}`,
    "write/read": `writes ${w.mine}, ${role} task ${other} reads ${w.theirs}`,
    "read/write": `reads ${w.mine}, ${role} task ${other} writes ${w.theirs}`,
    "resource write/write": `writes resource ${w.mine}, so does ${role} task ${other}`,
    "resource write/read": `writes resource ${w.mine}, ${role} task ${other} reads it`,
    "resource read/write": `reads resource ${w.mine}, ${role} task ${other} writes it`,
  };
  return [[other], what[w.kind]!];
}

export function describeAttention(a: Attention): string {
  const who = a.leaf !== undefined ? ` ${a.leaf}` : a.wave !== undefined ? ` wave ${a.wave}` : "";
  return `${a.reason}${who}${a.gate !== undefined ? ` gate ${a.gate}` : ""}`;
}

/**
 * `orchestrated` iff some pair of tasks (any state) is independent (docs/formats.md#scheduling). Consecutive
 * tasks of a topological order without a direct edge are never on one path, so they are tried
 * first; only if all of those conflict are other pairs searched.
 */
function modeOf(
  order: string[],
  dag: Dag,
  needsOf: (id: string) => readonly string[],
  access: (id: string) => AccessSets,
): "orchestrated" | "solo" {
  let total = true;
  for (let k = 0; k + 1 < order.length; k++) {
    const [a, b] = [order[k]!, order[k + 1]!];
    if (needsOf(b).includes(a)) continue;
    total = false;
    if (!conflicts(access(a), access(b))) return "orchestrated";
  }
  if (total) return "solo";
  for (let i = 0; i < order.length; i++) {
    const related = new RelatedSet(dag);
    related.add(order[i]!);
    for (let j = i + 1; j < order.length; j++) {
      if (!related.has(order[j]!) && !conflicts(access(order[i]!), access(order[j]!))) return "orchestrated";
    }
  }
  return "solo";
}
