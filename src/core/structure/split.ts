// kbz's named split (`kbz structure split --scope S 5 --into GLOBS GLOBS`): the request a person
// would write by hand (docs/formats.md#structure-requests), built from the leaf and the globs each
// part owns. Each part becomes a child `<leaf>.N` with the leaf's tier, needs and reads, and a
// ledger like `kbz plan add` writes; the children are independent of each other. Refusals name
// the leaf and what to do (the planner then checks everything again). Pure: the model in, data out.
import { leafLedger } from "../plan/edit.ts";
import { kbz } from "../text/command.ts";
import { conflicts } from "../schedule/conflicts.ts";
import { contains } from "./handoff.ts";
import { fail, type Model, type TaskRow } from "./model.ts";
import { leafStem } from "../plan/leaf-id.ts";

export interface SplitChild {
  id: string;
  owns: string[];
}

export type NamedSplit =
  | { status: "already-applied"; operation: string; parent: string; children: SplitChild[] }
  | { status: "request"; operation: string; parent: string; children: SplitChild[]; request: Record<string, unknown> };

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The named split of `parentId` into `parts` (each a list of OWNS globs), or why it is refused. */
export function namedSplit(model: Model, parentId: string, parts: string[][]): NamedSplit {
  const parent = model.rows.find((r) => r.id === parentId);
  if (!parent)
    fail(`split: unknown task ${parentId} (${kbz("status", { scope: model.scope, all: true })} lists the leaves)`);
  const existing = model.meta.splits.find((s) => s.parent === parentId);
  if (existing) {
    const children = existing.children.map((id) => ({ id, owns: model.rows.find((r) => r.id === id)?.owns ?? [] }));
    const operation =
      model.meta.operations.find((o) => o.id.startsWith(`split-${parentId}-r`))?.id ?? `split-${parentId}`;
    if (children.length === parts.length && children.every((c, i) => same(c.owns, parts[i]!)))
      return { status: "already-applied", operation, parent: parentId, children };
    fail(`split: ${parentId} is already split into ${existing.children.join(", ")}; split a child instead`);
  }
  refuseUnsafe(model, parent);
  for (const part of parts) {
    for (const glob of part)
      if (!parent.owns.some((o) => contains(o, glob)))
        fail(
          `split: ${glob} is not inside ${parentId}'s OWNS (${parent.owns.join(", ")}); each part owns a piece of it`,
        );
  }
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const access = (writes: string[]) => ({ writes, reads: [], resourceReads: [], resourceWrites: [] });
      if (conflicts(access(parts[i]!), access(parts[j]!)))
        fail(
          `split: parts ${i + 1} and ${j + 1} overlap (${parts[i]!.join(", ")} / ${parts[j]!.join(", ")}); parts own disjoint files`,
        );
    }
  }
  const used = new Set(model.rows.map((r) => r.id));
  const children: SplitChild[] = [];
  for (let n = 1; children.length < parts.length; n++) {
    const id = `${parentId}.${n}`;
    if (!used.has(id)) children.push({ id, owns: parts[children.length]! });
  }
  const operation = `split-${parentId}-r${model.revision}`;
  const request = {
    schema: 1,
    operation,
    contractRevision: model.revision,
    refinements: {
      [parentId]: {
        retainsParentGates: true,
        children: children.map((c) => ({
          id: c.id,
          needs: [],
          tier: parent.tier,
          ledger: leafLedger(c.id, c.owns),
          access: {
            complete: true,
            reads: [...parent.access.reads],
            resourceReads: [...parent.access.resourceReads],
            resourceWrites: [],
          },
        })),
      },
    },
  };
  return { status: "request", operation, parent: parentId, children, request };
}

/** Only an unstarted leaf splits by name: never VERIFIED work, never a launched or leased one. */
function refuseUnsafe(model: Model, parent: TaskRow): void {
  const id = parent.id;
  if (parent.state === "VERIFIED") fail(`split never splits VERIFIED work: ${id} is VERIFIED`);
  const leased = model.leases.some((l) => l.scope === model.scope && l.leaf === leafStem(id));
  if (parent.state === "IN-FLIGHT" || model.active.includes(id) || leased) {
    fail(
      `split: ${id} is ${parent.state === "IN-FLIGHT" ? "IN-FLIGHT" : "active or leased"}; its worker reports the parts instead (${kbz("structure report")}, skill/references/structure.md)`,
    );
  }
  if (parent.state !== "READY" && parent.state !== "WAITING")
    fail(`split: ${id} is ${parent.state}; only a READY or WAITING leaf splits`);
  if (model.declared.includes(id))
    fail(
      `split: ${id} was launched in a wave before; a launched leaf splits only through its worker's report (${kbz("structure report")})`,
    );
  if (parent.access.resourceWrites.length > 0) {
    fail(
      `split: ${id} writes resources ${parent.access.resourceWrites.join(", ")}; say which part writes them in a request file (skill/references/structure.md)`,
    );
  }
}
