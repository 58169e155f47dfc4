// Sub-agents, tasks and background workers in kbz's terms (pure): a worker is a leaf of the scope's
// plan, started with `kbz wave start <wave> <leaf> --handle <h>`. A sub-agent's or a task's stop is
// matched to its leaf by that handle (the host's agent or task id), or by the leaf id in the task's
// subject ("leaf 1.1", "leaf-1.1"); the leaf's own ledger (gates/leaf-<id>.md) then decides.
import type { Snapshot } from "../snapshot.ts";
import { leafIdOf } from "../plan/leaf-id.ts";

export interface Running {
  wave: string;
  leaf: string;
  handle: string;
}

/** Leaf ids that have a ledger in the snapshot (`gates/leaf-<id>.md`). */
export function leafIds(snap: Snapshot): string[] {
  const ids: string[] = [];
  for (const e of snap.ledgers) {
    const id = leafIdOf(e.stem);
    if (id && /[\\/]gates[\\/][^\\/]+$/.test(e.file)) ids.push(id);
  }
  return ids;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether `text` names `leaf` as a word: "leaf 1.1", "leaf-1.1", "leaf:1.1", "[leaf 1.1]". */
function namesLeaf(text: string, leaf: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9._-])leaf[\\s:_-]*${escapeRe(leaf)}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`, "i").test(
    text,
  );
}

/** The leaf a sub-agent or task works on, or null when it is not one of kbz's workers. */
export function matchLeaf(
  worker: { ids: string[]; text: string[] },
  running: Running[],
  leaves: string[],
): string | null {
  for (const id of worker.ids) {
    const hit = running.find((r) => r.handle === id);
    if (hit) return hit.leaf;
  }
  const text = [...worker.ids, ...worker.text];
  for (const r of running) if (text.some((t) => t.split(/\s+/).includes(r.handle))) return r.leaf;
  // Longest ids first, so "leaf 1.10" is never read as leaf 1.1.
  for (const leaf of [...new Set([...leaves, ...running.map((r) => r.leaf)])].sort((a, b) => b.length - a.length)) {
    if (text.some((t) => namesLeaf(t, leaf))) return leaf;
  }
  return null;
}

/** The snapshot narrowed to one leaf's ledger: its gates alone decide (the waves are the parent's). */
export function leafSnapshot(snap: Snapshot, leaf: string): Snapshot {
  const mine = (file: string) =>
    /[\\/]gates[\\/]leaf-[^\\/]+\.md$/i.test(file) && file.replace(/^.*[\\/]leaf-/, "").replace(/\.md$/i, "") === leaf;
  return {
    ...snap,
    ledgers: snap.ledgers.filter((e) => mine(e.file)),
    gates: snap.gates.filter((g) => mine(g.file)),
    problems: snap.problems.filter((p) => mine(p.file)),
    dispatch: null,
  };
}

/** Running workers of the scope's open waves that the host lists among its background tasks. */
export function waitingOn(running: Running[], background: { id: string | null; words: string[] }[]): Running[] {
  if (background.length === 0) return [];
  return running.filter((r) =>
    background.some(
      (b) =>
        b.id === r.handle ||
        b.words.some((w) => w === r.handle || w.split(/\s+/).includes(r.handle) || namesLeaf(w, r.leaf)),
    ),
  );
}
