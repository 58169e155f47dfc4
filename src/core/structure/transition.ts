// The independent transition checker (docs/formats.md#structure-verification): the after-state must verify, and nothing
// from the before-state may be lost or changed unsafely. Part of the checker: no planner imports.
import { attemptsOf, retiredBy } from "./handoff.ts";
import { canonical, type Report, type StructureState } from "./model.ts";
import { sameGateDefs, verifyStructure, type Issue, type Verdict } from "./verify.ts";
import { leafStem } from "../plan/leaf-id.ts";

const IMMUTABLE: (keyof Report)[] = [
  "id",
  "parent",
  "source",
  "checkpoint",
  "ledger",
  "contract",
  "refinement",
  "reportedTurn",
  "operation",
];

export function verifyTransition(before: StructureState, after: StructureState): Verdict {
  const base = verifyStructure(after);
  const errors: Issue[] = [...base.errors];
  const add = (code: string, id: string) => errors.push({ code, id });
  const leasedBefore = (id: string) =>
    before.leases.some((l) => !l.invalid && l.scope === before.scope && l.leaf === leafStem(id));
  const afterReports = new Map(after.meta.reports.map((r) => [r.id, r]));
  const released = new Set<string>();

  for (const old of before.meta.reports) {
    const now = afterReports.get(old.id);
    const same = now !== undefined && IMMUTABLE.every((k) => canonical(old[k]) === canonical(now[k]));
    if (!same || (old.state !== "pending" && canonical(old) !== canonical(now))) {
      add("changed-handoff-history", old.id);
      continue;
    }
    if (old.state === "pending" && (now.state === "applied" || now.state === "resumed")) {
      const attempts = attemptsOf(before.waves).get(old.parent) ?? [];
      const source = attempts.find(
        (a) => a.wave === old.source.wave && a.handle === old.source.handle && a.at === old.source.startAt,
      );
      const others = attempts.filter((a) => a !== source && retiredBy(a, before.meta.reports) === null);
      const parent = before.rows.find((r) => r.id === old.parent);
      if (
        !source ||
        source.returnedAt === null ||
        source.returnedAt !== now.returnedAt ||
        others.length > 0 ||
        !parent ||
        parent.state === "VERIFIED" ||
        leasedBefore(old.parent)
      ) {
        add("unsafe-handoff-boundary", old.id);
      } else released.add(old.parent);
    }
  }
  const known = new Set(before.meta.reports.map((r) => r.id));
  for (const r of after.meta.reports) if (!known.has(r.id) && r.state !== "pending") add("unreported-resolution", r.id);
  if (after.meta.turn !== before.meta.turn + 1) add("invalid-turn-transition", String(after.meta.turn));
  before.meta.operations.forEach((op, i) => {
    if (canonical(after.meta.operations[i]) !== canonical(op)) add("lost-operation-receipt", op.id);
  });

  const afterRows = new Map(after.rows.map((r) => [r.id, r]));
  for (const r of before.rows) {
    const now = afterRows.get(r.id);
    if (!now) {
      add("removed-original-task", r.id);
      continue;
    }
    for (const n of r.needs) if (!now.needs.includes(n)) add("removed-original-edge", `${n}->${r.id}`);
    if (!sameGateDefs(r.gates, now.gates)) add("changed-original-gates", r.id);
    const acc = (x: typeof r) => canonical([x.owns, x.access.reads, x.access.resourceReads, x.access.resourceWrites]);
    if (acc(r) !== acc(now)) add("changed-original-access", r.id);
  }

  const busyBefore = (id: string) => (before.active.includes(id) && !released.has(id)) || leasedBefore(id);
  const declaredBefore = (id: string) => before.waves.some((w) => w.leaves.includes(leafStem(id)));
  for (const sp of after.meta.splits) {
    const old = before.meta.splits.find((x) => x.parent === sp.parent);
    if (old && canonical(old) === canonical(sp)) continue;
    const handedOff = released.has(sp.parent);
    if (((declaredBefore(sp.parent) || before.active.includes(sp.parent)) && !handedOff) || leasedBefore(sp.parent))
      add("unsafe-live-split", sp.parent);
  }
  const oldGroups = new Set(before.meta.groups.map((g) => canonical(g)));
  for (const g of after.meta.groups) {
    if (oldGroups.has(canonical(g))) continue;
    for (const m of g) if (busyBefore(m)) add("unsafe-live-regroup", m);
  }
  return { ok: errors.length === 0, residual: errors.length, errors };
}
