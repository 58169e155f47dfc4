// Worker handoff helpers (docs/formats.md#structure-reports, docs/formats.md#scheduling, docs/formats.md#handoff): execution attempts, which reports retire
// them, the activity accounting, and checkpoint validation. Shared by the loader, the planner
// and the checker, like the original's lib/handoff.
import type { GateState } from "../ledger/state.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import { fail, isObject, type Checkpoint, type Report, type TaskRow, type WaveRecord } from "./model.ts";
import { leafIdOf } from "../plan/leaf-id.ts";

export interface Attempt {
  task: string;
  wave: string;
  handle: string;
  at: string;
  returnedAt: string | null;
}

/** Every started attempt, per task, in dispatch.json order. */
export function attemptsOf(waves: WaveRecord[]): Map<string, Attempt[]> {
  const out = new Map<string, Attempt[]>();
  for (const w of waves) {
    for (const leaf of w.leaves) {
      const s = w.started[leaf];
      if (!s || leafIdOf(leaf) === null) continue;
      const task = leaf.slice(5);
      const list = out.get(task) ?? [];
      list.push({ task, wave: w.id, handle: s.handle, at: s.at, returnedAt: w.returned[leaf]?.at ?? null });
      out.set(task, list);
    }
  }
  return out;
}

/** An attempt is retired by an applied or resumed report naming it and its exact return. */
export function retiredBy(a: Attempt, reports: readonly Report[]): Report | null {
  for (const r of reports) {
    if (r.state !== "applied" && r.state !== "resumed") continue;
    if (r.parent !== a.task || r.source?.wave !== a.wave || r.source.handle !== a.handle || r.source.startAt !== a.at)
      continue;
    if (a.returnedAt !== null && r.returnedAt === a.returnedAt) return r;
  }
  return null;
}

export function liveAttempts(task: string, attempts: Map<string, Attempt[]>, reports: readonly Report[]): Attempt[] {
  return (attempts.get(task) ?? []).filter((a) => retiredBy(a, reports) === null);
}

/** Active(v) (docs/formats.md#scheduling): IN-FLIGHT, or an unretired attempt unreturned or returned while not VERIFIED. */
export function activeTasks(
  rows: readonly Pick<TaskRow, "id" | "state">[],
  waves: WaveRecord[],
  reports: readonly Report[],
): string[] {
  const attempts = attemptsOf(waves);
  return rows
    .filter(
      (r) =>
        r.state === "IN-FLIGHT" ||
        liveAttempts(r.id, attempts, reports).some((a) => a.returnedAt === null || r.state !== "VERIFIED"),
    )
    .map((r) => r.id);
}

/** Conservative containment (docs/formats.md#ids): `**`, equality, or a wildcard-free `dir/**` prefix. */
export function contains(pattern: string, value: string): boolean {
  const p = pattern.toLowerCase();
  const v = value.toLowerCase();
  if (p === "**" || p === v) return true;
  if (!p.endsWith("/**")) return false;
  const dir = p.slice(0, -3);
  return !/[*?[{]/.test(dir) && (v === dir || v.startsWith(dir + "/"));
}

const HEX64 = /^[0-9a-f]{64}$/;
const ARTIFACT_BAD = /[*?[{<>|]/;

function uniqueStrings(v: unknown, min: number): v is string[] {
  return (
    Array.isArray(v) &&
    v.length >= min &&
    v.every((s) => typeof s === "string" && s.trim() !== "") &&
    new Set(v).size === v.length
  );
}

/**
 * A checkpoint against a parent ledger's gates and ownership (docs/formats.md#structure-reports): completed ∪ remaining
 * partitions the gate ids exactly, completed gates are met, artifacts are literal owned paths.
 */
export function validateCheckpoint(
  cp: unknown,
  gateIds: string[],
  states: Record<string, GateState>,
  owns: string[],
): Checkpoint {
  if (!isObject(cp) || typeof cp.summary !== "string" || cp.summary.trim() === "" || cp.summary.length > 10000)
    fail("invalid checkpoint");
  if (!uniqueStrings(cp.completed, 0) || !uniqueStrings(cp.remaining, 1) || !Array.isArray(cp.artifacts))
    fail("invalid checkpoint");
  const completed = cp.completed as string[];
  const remaining = cp.remaining as string[];
  const all = [...completed, ...remaining];
  if (new Set(all).size !== all.length || all.length !== gateIds.length || !all.every((g) => gateIds.includes(g))) {
    fail("checkpoint must partition every parent Gate");
  }
  if (completed.some((g) => states[g] !== "met")) fail("completed checkpoint Gates need current met evidence");
  const seen = new Set<string>();
  const artifacts: Checkpoint["artifacts"] = [];
  for (const a of cp.artifacts as unknown[]) {
    if (!isObject(a) || typeof a.path !== "string" || typeof a.sha256 !== "string")
      fail("invalid checkpoint artifact path/hash");
    const p = a.path as string;
    const n = normalizeOwnsPath(p);
    if (!n.ok || n.glob !== p || ARTIFACT_BAD.test(p) || !HEX64.test(a.sha256 as string))
      fail("invalid checkpoint artifact path/hash");
    if (seen.has(p)) fail("duplicate checkpoint artifact");
    seen.add(p);
    if (!owns.some((o) => contains(o, p))) fail("checkpoint artifact outside parent ownership");
    artifacts.push({ path: p, sha256: a.sha256 as string });
  }
  return { summary: cp.summary as string, completed: [...completed], remaining: [...remaining], artifacts };
}

/** The root-relative artifact reader the edges provide: sha256 of the UTF-8 text, null when unreadable. */
export type ArtifactHasher = (path: string) => string | null;

export function verifyArtifacts(artifacts: Checkpoint["artifacts"], hash: ArtifactHasher): void {
  for (const a of artifacts) {
    if (hash(a.path) !== a.sha256) fail(`checkpoint artifact changed: ${a.path}`);
  }
}
