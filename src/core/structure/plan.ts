// Planning one structure event (docs/formats.md#structure-events): reports, resolutions, expansions, normalization,
// regrouping to a fixed point and the registry update. A pure function of the loaded model and
// the request; the only outside look is the artifact hasher the edge passes in.
import { parseLedger } from "../ledger/parse.ts";
import { kahnOrder } from "../plan/graph.ts";
import { conflicts } from "../schedule/conflicts.ts";
import { isValidId } from "../workspace/ids.ts";
import {
  attemptsOf,
  contains,
  liveAttempts,
  validateCheckpoint,
  verifyArtifacts,
  type ArtifactHasher,
} from "./handoff.ts";
import { gateDefs, gateStatesOf, validateAccess } from "./build.ts";
import { demoteLedger } from "./materialize.ts";
import {
  canonical,
  clone,
  cmp,
  fail,
  hashOf,
  isObject,
  sortIds,
  STRUCTURE_GATE,
  STRUCTURE_EXPECT,
  STRUCTURE_TITLE,
  structureCheckCommand,
  type Checkpoint,
  type Integration,
  type Model,
  type Refinement,
  type Registry,
  type Report,
  type StructureState,
  type TaskRow,
} from "./model.ts";
import { regroup } from "./regroup.ts";
import { verifyTransition } from "./transition.ts";
import { verifyStructure, type Verdict } from "./verify.ts";
import { leafIdOf, leafStem } from "../plan/leaf-id.ts";

export type Action =
  | { action: "expand"; parent: string; children: string[] }
  | { action: "group"; members: string[] }
  | { action: "report"; id: string; parent: string }
  | { action: "accept-report"; id: string; parent: string }
  | { action: "resume-report"; id: string; parent: string }
  | { action: "reject-report"; id: string };

export interface Complexity {
  groups: number;
  boundaryEdges: number;
  depth: number;
}

export interface Planned {
  alreadyApplied: false;
  requestHash: string;
  operation: string;
  baseHash: string;
  revision: number; // the new contract revision
  next: StructureState;
  actions: Action[];
  check: Verdict;
  artifactChecks: Checkpoint["artifacts"];
  complexity: Complexity;
}

export type Calculation = Planned | { alreadyApplied: true; requestHash: string; operation: string };

const UNFINISHED = new Set(["READY", "WAITING", "IN-FLIGHT"]);
const LISTS = ["reports", "acceptReports", "resumeReports", "rejectReports"] as const;

export function sortGroups(groups: string[][]): string[][] {
  return groups.map((g) => sortIds(g)).sort((a, b) => cmp(a.join("\0"), b.join("\0")));
}

function blank(v: unknown): boolean {
  return typeof v !== "string" || v.trim() === "";
}

export function calculateStructure(model: Model, request: unknown, hashArtifact: ArtifactHasher): Calculation {
  // 1. Shape.
  // Each malformed field is named with what is expected (skill/references/structure-request.schema.json).
  if (!isObject(request)) fail("invalid structure request: expected a JSON object");
  if (request.schema !== 1) fail("invalid structure request: schema must be 1");
  if (typeof request.operation !== "string" || !isValidId(request.operation))
    fail("invalid structure request: operation must be a new id (letters, digits, . _ -), e.g. split-2");
  if (
    request.regroup !== undefined &&
    (!Array.isArray(request.regroup) ||
      request.regroup.length < 2 ||
      request.regroup.some((x) => typeof x !== "string"))
  ) {
    fail('invalid structure request: regroup must list at least two task ids, e.g. ["2.3", "3.1"]');
  }
  if (!isObject(request.refinements))
    fail(
      "invalid structure request: refinements must be an object of parent leaf id -> refinement ({} when there is none)",
    );
  for (const k of LISTS)
    if (request[k] !== undefined && !Array.isArray(request[k])) fail(`invalid ${k}: expected an array`);
  const operation = request.operation;
  const requestHash = hashOf(request);

  // 2. Base validity.
  const base = verifyStructure(model);
  if (!base.ok) fail(`base structure invalid: ${JSON.stringify(base.errors)}`);

  // 3. Idempotence.
  const previous = model.meta.operations.find((o) => o.id === operation);
  if (previous) {
    if (previous.requestHash !== requestHash) fail("operation id reused with different request");
    return { alreadyApplied: true, requestHash, operation };
  }

  // 4. Freshness and quiescence.
  if (request.contractRevision !== model.revision) fail("stale request contractRevision");
  const abandonedGate = (states: Record<string, string>) => Object.values(states).includes("abandoned");
  if (
    model.waves.some((w) => w.state === "abandoned") ||
    model.integrations.some((i) => abandonedGate(i.gateStates)) ||
    model.rows.some((r) => r.state === "ABANDONED" || abandonedGate(r.gateStates))
  ) {
    fail("unresolved handoff");
  }
  if (model.leases.some((l) => l.scope !== model.scope)) fail("external lease requires review");
  if (model.waves.some((w) => w.state === "open")) fail("open launch wave: finish or review it first");

  // 5. Turn.
  const turn = model.meta.turn + 1;
  if (!Number.isSafeInteger(turn)) fail("turn counter overflow");

  const p = new Planner(model, turn, operation, request, hashArtifact);
  p.reports((request.reports as unknown[]) ?? []);
  const accepted = p.resolutions();
  for (const parent of sortIds(Object.keys(request.refinements))) p.expand(parent, request.refinements[parent], false);
  for (const r of accepted.sort((a, b) => cmp(a.parent, b.parent))) p.expand(r.parent, r.refinement, true);
  p.normalize();
  // kbz's addition: `regroup: [ids…]` merges exactly the named tasks' groups (kbz structure
  // regroup S 2.3 3.1) instead of regrouping to a fixed point, and never merges VERIFIED work.
  if (request.regroup !== undefined) p.regroupNamed(request.regroup);
  else p.regroup();
  const next = p.finish(requestHash);

  const check = verifyTransition(model, next);
  if (!check.ok) fail(`calculated structure failed independent check: ${JSON.stringify(check.errors)}`);
  return {
    alreadyApplied: false,
    requestHash,
    operation,
    baseHash: model.hash,
    revision: model.revision + 1,
    next,
    actions: p.actions,
    check,
    artifactChecks: p.artifactChecks,
    complexity: complexityOf(next),
  };
}

class Planner {
  readonly rows: Map<string, TaskRow>;
  readonly meta: Registry;
  readonly active: Set<string>;
  readonly actions: Action[] = [];
  readonly artifactChecks: Checkpoint["artifacts"] = [];
  private groups: string[][];
  private readonly originalReports: Set<string>;
  private readonly leased: Set<string>;
  private readonly attempts;

  constructor(
    private readonly model: Model,
    private readonly turn: number,
    private readonly operation: string,
    private readonly request: Record<string, unknown>,
    private readonly hashArtifact: ArtifactHasher,
  ) {
    this.rows = new Map(clone(model.rows).map((r) => [r.id, r]));
    this.meta = clone(model.meta);
    this.active = new Set(model.active);
    this.groups = sortGroups(this.meta.groups);
    this.originalReports = new Set(model.meta.reports.map((r) => r.id));
    this.leased = new Set(
      model.leases.flatMap((l) => {
        const id = leafIdOf(l.leaf);
        return l.scope === model.scope && id !== null ? [id] : [];
      }),
    );
    this.attempts = attemptsOf(model.waves);
  }

  private busy(id: string): boolean {
    return this.active.has(id) || this.leased.has(id);
  }

  private pendingFor(parent: string): Report | undefined {
    return this.meta.reports.find((r) => r.parent === parent && r.state === "pending");
  }

  /** 6. Worker reports, recorded as pending obligations. */
  reports(list: unknown[]): void {
    for (const p of list) {
      if (!isObject(p) || typeof p.id !== "string" || !isValidId(p.id) || this.meta.reports.some((r) => r.id === p.id))
        fail("invalid or reused report id");
      const parent = typeof p.parent === "string" ? this.rows.get(p.parent) : undefined;
      if (!parent || !UNFINISHED.has(parent.state)) fail("report requires unfinished parent");
      if (this.pendingFor(parent.id)) fail("parent already has a pending report");
      const src = p.source;
      const wave = isObject(src) ? this.model.waves.find((w) => w.id === src.wave) : undefined;
      const attempt = isObject(src)
        ? liveAttempts(parent.id, this.attempts, this.meta.reports).find(
            (a) => a.wave === src.wave && a.handle === src.handle,
          )
        : undefined;
      if (!wave || !attempt || (wave.state !== "sealed" && wave.state !== "complete"))
        fail("report source must be a current sealed execution attempt");
      const ref = p.refinement;
      if (
        !isObject(ref) ||
        ref.retainsParentGates !== true ||
        !Array.isArray(ref.children) ||
        ref.children.length < 2
      ) {
        fail("report needs explicit refinement candidates");
      }
      const checkpoint = validateCheckpoint(
        p.checkpoint,
        parent.gates.map((g) => g.id),
        parent.gateStates,
        parent.owns,
      );
      verifyArtifacts(checkpoint.artifacts, this.hashArtifact);
      this.artifactChecks.push(...checkpoint.artifacts);
      this.meta.reports.push({
        id: p.id,
        parent: parent.id,
        source: { wave: attempt.wave, handle: attempt.handle, startAt: attempt.at },
        checkpoint,
        ledger: parent.ledger,
        contract: contractOf(parent),
        refinement: clone(ref) as unknown as Refinement,
        reportedTurn: this.turn,
        operation: this.operation,
        state: "pending",
      });
      this.actions.push({ action: "report", id: p.id, parent: parent.id });
    }
  }

  /** 7. Accept, resume, reject: existing pending reports only, in a later turn. */
  resolutions(): Report[] {
    const accepted: Report[] = [];
    const kinds: [string, "applied" | "resumed" | "rejected"][] = [
      ["acceptReports", "applied"],
      ["resumeReports", "resumed"],
      ["rejectReports", "rejected"],
    ];
    for (const [key, state] of kinds) {
      for (const entry of (this.request[key] as unknown[]) ?? []) {
        const r = isObject(entry) ? this.meta.reports.find((x) => x.id === entry.id) : undefined;
        if (!r || !this.originalReports.has(r.id) || r.state !== "pending" || r.reportedTurn >= this.turn)
          fail("resolve one existing pending report in a later turn");
        const e = entry as Record<string, unknown>;
        if (state === "rejected") {
          if (blank(e.reason)) fail("report rejection needs a reason");
          Object.assign(r, { state, resolvedTurn: this.turn, resolutionOperation: this.operation, reason: e.reason });
          this.actions.push({ action: "reject-report", id: r.id });
          continue;
        }
        const returnedAt = this.handoffBoundary(r, e);
        Object.assign(r, {
          state,
          resolvedTurn: this.turn,
          resolutionOperation: this.operation,
          returnedAt,
          stopped: true,
          reviewed: true,
          stopEvidence: e.stopEvidence,
          reviewEvidence: e.reviewEvidence,
        });
        this.active.delete(r.parent);
        this.rows.get(r.parent)!.state = "WAITING";
        this.actions.push({
          action: state === "applied" ? "accept-report" : "resume-report",
          id: r.id,
          parent: r.parent,
        });
        if (state === "applied") accepted.push(r);
      }
    }
    return accepted;
  }

  /** The eligibility of docs/formats.md#handoff, in the spec's order; returns the source's return time. */
  private handoffBoundary(r: Report, e: Record<string, unknown>): string {
    if (e.stopped !== true || e.reviewed !== true || blank(e.stopEvidence) || blank(e.reviewEvidence))
      fail("explicit stop and parent review evidence required");
    const parent = this.rows.get(r.parent);
    const attempts = this.attempts.get(r.parent) ?? [];
    const source = attempts.find(
      (a) => a.wave === r.source.wave && a.handle === r.source.handle && a.at === r.source.startAt,
    );
    if (!parent || !UNFINISHED.has(parent.state) || !source || source.returnedAt === null)
      fail("reported execution must have returned before handoff");
    if (this.leased.has(r.parent)) fail("parent lease must be released before handoff");
    if (liveAttempts(r.parent, this.attempts, this.meta.reports).some((a) => a !== source))
      fail("another execution attempt needs reconciliation");
    const recorded = parseLedger(r.ledger, leafStem(r.parent));
    if (canonical(gateDefs(recorded)) !== canonical(parent.gates)) fail("parent Gate definitions changed since report");
    if (canonical(contractOf(parent)) !== canonical(r.contract)) fail("parent contract changed since report");
    validateCheckpoint(
      r.checkpoint,
      parent.gates.map((g) => g.id),
      parent.gateStates,
      parent.owns,
    );
    verifyArtifacts(r.checkpoint.artifacts, this.hashArtifact);
    this.artifactChecks.push(...r.checkpoint.artifacts);
    if (Object.hasOwn(this.request.refinements as object, r.parent)) fail("reported refinement cannot be overridden");
    return source.returnedAt;
  }

  /** 8. Expansion of one parent into ≥2 children with at least one independent pair. */
  expand(parentId: string, refinement: unknown, accepted: boolean): void {
    if (
      !isObject(refinement) ||
      refinement.retainsParentGates !== true ||
      !Array.isArray(refinement.children) ||
      refinement.children.length < 2
    ) {
      fail(
        `refinement requires children and retained parent gates (refinements.${parentId}: retainsParentGates: true and children, an array of at least 2)`,
      );
    }
    const definitionHash = hashOf(refinement);
    const existing = this.meta.splits.find((s) => s.parent === parentId);
    if (existing && !accepted) {
      if (existing.definitionHash === definitionHash) return;
      fail("parent already expanded differently");
    }
    const parent = this.rows.get(parentId);
    if (!parent) fail("unknown refinement parent");
    if (this.pendingFor(parentId)) fail("pending report must be resolved first");
    const declared = this.model.declared.includes(parentId);
    if ((parent.state !== "READY" && parent.state !== "WAITING") || (declared && !accepted) || this.busy(parentId)) {
      fail("parent is not an unstarted safe boundary or accepted handoff");
    }
    const group = this.groups.find((g) => g.includes(parentId)) ?? [parentId];
    if (group.some((m) => this.busy(m))) fail("parent group has active ownership");

    const children: TaskRow[] = [];
    const seen = new Set<string>();
    const specs = refinement.children as unknown[];
    for (const c of specs) children.push(this.child(parent, c, specs, seen));
    this.requireIndependentPair(children);

    const ids = children.map((c) => c.id);
    for (const c of children) {
      c.needs = sortIds(new Set([...parent.needs, ...c.needs]));
      this.rows.set(c.id, c);
    }
    parent.needs = sortIds(new Set([...parent.needs, ...ids]));
    parent.state = "WAITING";
    parent.ledger = demoteLedger(parent.ledger);
    parent.gateStates = gateStatesOf(parseLedger(parent.ledger, leafStem(parent.id)));
    this.groups = sortGroups([
      ...this.groups.filter((g) => g !== group),
      ...group.map((m) => [m]),
      ...ids.map((id) => [id]),
    ]);
    this.meta.expected.push(...ids);
    for (const c of children) this.meta.requiredGates[c.id] = c.gates.map((g) => g.id);
    if (existing) {
      existing.children = sortIds([...existing.children, ...ids]);
      existing.definitionHash = definitionHash;
    } else this.meta.splits.push({ parent: parentId, children: sortIds(ids), definitionHash });
    this.actions.push({ action: "expand", parent: parentId, children: sortIds(ids) });
    const nested = specs.filter((c) => isObject((c as Record<string, unknown>).refinement)) as {
      id: string;
      refinement: unknown;
    }[];
    for (const c of nested.sort((a, b) => cmp(a.id, b.id))) this.expand(c.id, c.refinement, false);
  }

  private child(parent: TaskRow, c: unknown, specs: unknown[], seen: Set<string>): TaskRow {
    const spec = isObject(c) ? c : {};
    const id = spec.id;
    if (typeof id === "string" && seen.has(id)) fail(`duplicate child id (${id})`);
    if (
      typeof id !== "string" ||
      !id.startsWith(parent.id + ".") ||
      id.length === parent.id.length + 1 ||
      !isValidId(id) ||
      this.rows.has(id)
    ) {
      fail(`invalid or reused child id (children[].id ${JSON.stringify(id)}: a new id starting with "${parent.id}.")`);
    }
    seen.add(id);
    const siblings = specs.map((s) => (isObject(s) ? s.id : undefined));
    const needs = spec.needs;
    if (
      !Array.isArray(needs) ||
      new Set(needs).size !== needs.length ||
      needs.some((n) => n === id || typeof n !== "string" || !siblings.includes(n))
    ) {
      fail(
        `child needs must reference siblings (children[${JSON.stringify(id)}].needs: an array of sibling ids, [] for none)`,
      );
    }
    if (typeof spec.ledger !== "string")
      fail(
        `child ledger required (children[${JSON.stringify(id)}].ledger: the leaf ledger text with OWNS and unticked gates)`,
      );
    const ledger = parseLedger(spec.ledger, leafStem(id));
    if (
      ledger.errors.length > 0 ||
      ledger.owns.length === 0 ||
      ledger.abandons.size > 0 ||
      ledger.gates.some((g) => g.checked)
    ) {
      fail("invalid or pre-certified child ledger");
    }
    const access = validateAccess(spec.access);
    if (!ledger.owns.every((o) => parent.owns.some((p) => contains(p, o))))
      fail("child writes escape parent ownership");
    if (!access.reads.every((r) => [...parent.owns, ...parent.access.reads].some((p) => contains(p, r))))
      fail("child reads escape parent declaration");
    const pa = parent.access;
    if (
      !access.resourceWrites.every((r) => pa.resourceWrites.includes(r)) ||
      !access.resourceReads.every((r) => pa.resourceReads.includes(r) || pa.resourceWrites.includes(r))
    ) {
      fail("child resource access escapes parent declaration");
    }
    if (spec.tier !== "mechanical" && spec.tier !== "judgment")
      fail(`child tier required (children[${JSON.stringify(id)}].tier: "judgment" or "mechanical")`);
    return {
      id,
      owns: [...ledger.owns],
      needs: [...(needs as string[])],
      tier: spec.tier,
      wave: 1,
      state: "WAITING",
      access,
      ledger: spec.ledger,
      gates: gateDefs(ledger),
      gateStates: gateStatesOf(ledger),
    };
  }

  private requireIndependentPair(children: TaskRow[]): void {
    const ids = children.map((c) => c.id);
    const byId = new Map(children.map((c) => [c.id, c]));
    const anc = ancestors(ids, (id) => byId.get(id)!.needs);
    for (let i = 0; i < children.length; i++) {
      for (let j = i + 1; j < children.length; j++) {
        const [a, b] = [children[i]!, children[j]!];
        if (!anc.get(a.id)!.has(b.id) && !anc.get(b.id)!.has(a.id) && !conflicting(a, b)) return;
      }
    }
    fail("no independent child pair; keep sequential work together");
  }

  /** 9. Planned waves and READY/WAITING. Hand-chosen waves that still respect every need are kept (fixes docs/formats.md#fixes). */
  normalize(): void {
    const order = this.order();
    for (const id of order) {
      const r = this.rows.get(id)!;
      const floor = 1 + Math.max(0, ...r.needs.map((n) => this.rows.get(n)!.wave));
      if (r.wave < floor) r.wave = floor;
      if (r.state === "READY" || r.state === "WAITING") {
        r.state = r.needs.every((n) => this.rows.get(n)!.state === "VERIFIED" && !this.busy(n)) ? "READY" : "WAITING";
      }
    }
  }

  private order(): string[] {
    const ids = sortIds(this.rows.keys());
    const succ = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const id of ids) {
      for (const n of this.rows.get(id)!.needs) {
        if (!succ.has(n)) fail("unknown dependency");
        succ.get(n)!.push(id);
      }
    }
    const k = kahnOrder(
      ids,
      (id) => this.rows.get(id)!.needs,
      (id) => sortIds(succ.get(id)!),
      cmp,
    );
    if (!k.ok) fail("dependency cycle");
    return k.order;
  }

  /**
   * kbz's named regroup: one group from the groups holding `ids`. Refused (nothing written) when a
   * member is VERIFIED (its verification boundary stays its own), busy (active or leased), or
   * when the unfinished members are not one dependency chain (independent work stays parallel);
   * a group cycle is refused by the independent check.
   */
  regroupNamed(ids: string[]): void {
    for (const id of ids) if (!this.rows.has(id)) fail(`regroup: unknown task ${id}`);
    const parts = this.groups.filter((g) => g.some((m) => ids.includes(m)));
    if (parts.length < 2) fail(`regroup: ${ids.join(", ")} are already one group`);
    const members = sortIds(parts.flat());
    const verified = members.filter((m) => this.rows.get(m)!.state === "VERIFIED");
    if (verified.length > 0)
      fail(
        `regroup never merges VERIFIED work: ${verified.join(", ")} ${verified.length === 1 ? "is" : "are"} VERIFIED`,
      );
    const busy = members.filter((m) => this.busy(m));
    if (busy.length > 0)
      fail(`regroup: ${busy.join(", ")} ${busy.length === 1 ? "is" : "are"} active or leased; finish or release first`);
    const reach = (from: string, to: string): boolean => {
      const seen = new Set<string>();
      const stack = [to];
      while (stack.length > 0) {
        const x = stack.pop()!;
        if (x === from) return true;
        if (seen.has(x)) continue;
        seen.add(x);
        stack.push(...this.rows.get(x)!.needs);
      }
      return false;
    };
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const [a, b] = [members[i]!, members[j]!];
        if (!reach(a, b) && !reach(b, a))
          fail(
            `regroup: ${a} and ${b} are independent (neither needs the other); a group runs its members one after another, so independent work stays in separate groups`,
          );
      }
    }
    this.groups = sortGroups([...this.groups.filter((g) => !parts.includes(g)), members]);
    this.actions.push({ action: "group", members } as Action);
  }

  /** 10. Merge groups whose unfinished work is one dependency chain, to a fixed point (regroup.ts). */
  regroup(): void {
    const result = regroup({
      order: this.order(),
      needsOf: (id) => this.rows.get(id)!.needs,
      open: (id) => this.rows.get(id)!.state !== "VERIFIED",
      busy: (id) => this.busy(id),
      groups: this.groups,
    });
    // Each action lists its members when read (regroup.ts MergedMembers): the same JSON, the
    // same fields, without holding every list at once.
    for (const merged of result.merges) {
      this.actions.push(
        Object.defineProperty({ action: "group" }, "members", { get: () => merged.list(), enumerable: true }) as Action,
      );
    }
    this.groups = result.groups;
  }

  /** 11. The registry and the state the checker sees after the event. */
  finish(requestHash: string): StructureState {
    const rows = sortIds(this.rows.keys()).map((id) => this.rows.get(id)!);
    const m = this.meta;
    m.groups = this.groups;
    m.expected = sortIds(m.expected);
    m.requiredEdges = rows.flatMap((r) => r.needs.map((n): [string, string] => [n, r.id]));
    // Gates added after initialisation are protected from now on (fixes docs/formats.md#fixes).
    for (const r of rows)
      m.requiredGates[r.id] = union(
        m.requiredGates[r.id] ?? [],
        r.gates.map((g) => g.id),
      );
    for (const i of this.model.integrations) {
      const ids = i.gates.map((g) => g.id).filter((g) => !(i.file === "GATES.md" && g === STRUCTURE_GATE));
      m.requiredIntegrations[i.file] = union(m.requiredIntegrations[i.file] ?? [], ids);
    }
    m.operations.push({ id: this.operation, requestHash, turn: this.turn });
    m.turn = this.turn;
    return {
      scope: this.model.scope,
      rows,
      integrations: demotedIntegrations(this.model.integrations, this.model.scope),
      waves: this.model.waves,
      leases: this.model.leases,
      meta: m,
      registryInitialized: true,
      active: sortIds(this.active),
    };
  }
}

function union(a: string[], b: string[]): string[] {
  return [...a, ...b.filter((x) => !a.includes(x))];
}

function contractOf(r: TaskRow): Report["contract"] {
  return {
    needs: [...r.needs],
    owns: [...r.owns],
    reads: [...r.access.reads],
    resourceReads: [...r.access.resourceReads],
    resourceWrites: [...r.access.resourceWrites],
  };
}

/** Integration ledgers after materialization: every gate demoted, S_STRUCTURE present in GATES.md. */
function demotedIntegrations(list: Integration[], scope: string): Integration[] {
  return list.map((i) => {
    const gates = [...i.gates];
    if (i.file === "GATES.md" && !gates.some((g) => g.id === STRUCTURE_GATE)) {
      gates.push({
        id: STRUCTURE_GATE,
        title: STRUCTURE_TITLE,
        check: structureCheckCommand(scope),
        expect: STRUCTURE_EXPECT,
        cwd: null,
      });
    }
    const gateStates: Integration["gateStates"] = {};
    for (const g of gates) gateStates[g.id] = "unmet";
    return { ...i, gates, gateStates };
  });
}

/** Ancestor sets accumulated along a topological order (docs/formats.md#scheduling). */
function ancestors(ids: string[], needsOf: (id: string) => string[]): Map<string, Set<string>> {
  const anc = new Map<string, Set<string>>();
  const visit = (id: string, stack: Set<string>): Set<string> => {
    const known = anc.get(id);
    if (known) return known;
    if (stack.has(id)) fail("dependency cycle");
    stack.add(id);
    const out = new Set<string>();
    for (const n of needsOf(id)) {
      out.add(n);
      for (const x of visit(n, stack)) out.add(x);
    }
    stack.delete(id);
    anc.set(id, out);
    return out;
  };
  for (const id of ids) visit(id, new Set());
  return anc;
}

/** Bernstein conflict (docs/formats.md#scheduling-conflicts): the scheduler's predicate, with OWNS as the writes. */
function conflicting(a: TaskRow, b: TaskRow): boolean {
  return conflicts({ writes: a.owns, ...a.access }, { writes: b.owns, ...b.access });
}

/** 13. (groups, boundary edges, depth); purely descriptive. */
export function complexityOf(s: StructureState): Complexity {
  const groupOf = new Map<string, number>();
  s.meta.groups.forEach((g, i) => g.forEach((m) => groupOf.set(m, i)));
  const pairs = new Set<string>();
  for (const r of s.rows)
    for (const n of r.needs)
      if (groupOf.get(n) !== groupOf.get(r.id)) pairs.add(`${groupOf.get(n)}>${groupOf.get(r.id)}`);
  const children = new Map(s.meta.splits.map((sp) => [sp.parent, sp.children]));
  const depth = (t: string): number => {
    const cs = children.get(t);
    return cs ? 1 + Math.max(...cs.map(depth)) : 0;
  };
  return { groups: s.meta.groups.length, boundaryEdges: pairs.size, depth: Math.max(0, ...s.meta.initial.map(depth)) };
}
