// What the graph shows of the structure registry: a split parent's children and the worker
// reports still pending on a leaf (docs/formats.md#handoff). Pure: the scheduler snapshot and advice in.
import type { PlanView } from "../ops/dashboardPlan.ts";

export interface StructureNote {
  children: string[]; // the split's children when this leaf is an integration parent
  pending: { id: string; returned: boolean; leaseReleased: boolean }[];
}

export function structureNote(view: PlanView, id: string): StructureNote | null {
  const children = view.next?.structure?.splits.find((s) => s.parent === id)?.children ?? [];
  const pending = (view.advice?.handoffs?.pending ?? [])
    .filter((p) => p.parent === id)
    .map(({ id, returned, leaseReleased }) => ({ id, returned, leaseReleased }));
  return children.length > 0 || pending.length > 0 ? { children, pending } : null;
}

/** One short phrase for the graph row: `⊃ A.1, A.2` and/or `report r1 pending`. */
export function noteText(note: StructureNote | null): string {
  if (!note) return "";
  const parts: string[] = [];
  if (note.children.length > 0) parts.push(`⊃ ${note.children.join(", ")}`);
  for (const p of note.pending) parts.push(`report ${p.id} pending`);
  return parts.join("  ");
}

/** The detail lines: the split and, per pending report, where the handoff stands. */
export function noteDetail(note: StructureNote | null): { label: string; value: string }[] {
  if (!note) return [];
  const lines: { label: string; value: string }[] = [];
  if (note.children.length > 0) lines.push({ label: "split", value: `integrates ${note.children.join(", ")}` });
  for (const p of note.pending) {
    const steps = [p.returned ? "returned" : "not returned yet", p.leaseReleased ? "lease released" : "lease held"];
    lines.push({
      label: "report",
      value: `${p.id} pending: ${steps.join(", ")}; accept, resume or reject it in a later turn`,
    });
  }
  return lines;
}
