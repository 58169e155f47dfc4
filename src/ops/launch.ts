// `kbz next --launch` as a use case: the leaves `kbz next` would launch, claimed, opened, started
// (each with a handle, given or generated), sealed and marked IN-FLIGHT in one call. All or
// nothing: every leaf is checked before anything is written; a refused claim or dispatch step
// releases the leases this call took and leaves dispatch.json and PLAN.md as they were.
import * as fs from "node:fs";
import { kbz } from "../core/text/command.ts";
import * as path from "node:path";
import type { Advice } from "../core/schedule/advise.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { MAX_HANDLE, printableProblem, type DispatchAction } from "../core/dispatch/waves.ts";
import { transitionProblem } from "../core/plan/transition.ts";
import type { ClaimConflict } from "../io/dispatch/leases.ts";
import { scopeDir } from "../io/plan/write.ts";
import { sweepLockDirOnce } from "../io/lock.ts";
import { loadLedgerFile } from "../io/read.ts";
import { coordinationFor } from "../io/coordination/active.ts";
import { logEvent } from "../io/coordination/events.ts";
import { nextAdvice, type NextRequest } from "./next.ts";
import { setLeafStates } from "./plan.ts";
import { infra, RefusedError } from "./refused.ts";
import { leafLedgerName, leafStem } from "../core/plan/leaf-id.ts";

export interface LaunchRequest extends NextRequest {
  /** Handles the host gave, by PLAN leaf id (`1.2`); the others are generated. */
  handles?: Map<string, string>;
  /** The wave id (default: the next `wN`). */
  wave?: string;
}

/** What a worker needs to do its leaf and come back. */
export interface LaunchedLeaf {
  id: string; // PLAN leaf id
  leaf: string; // the wave's spelling (leaf-1.2)
  handle: string;
  generated: boolean;
  ledger: string; // root-relative
  owns: string[];
  reads: string[];
  gates: { id: string; title: string; manual: boolean }[];
  /** The leaf this one continues and the handle it ran under, when the plan says so. */
  continues: { after: string; handle: string | null } | null;
}

export interface Launch {
  snap: NextSnapshot;
  advice: Advice;
  /** null when the advice launches nothing (the caller prints the advice instead). */
  wave: string | null;
  launched: LaunchedLeaf[];
  /** Leases this call took (leaves already holding theirs are not counted). */
  claimed: string[];
  warnings: string[];
}

/** The wave id after the highest `wN` of the scope. */
export function nextWaveId(snap: NextSnapshot): string {
  let n = 0;
  for (const w of snap.waves) {
    const m = /^w([0-9]+)$/.exec(w.id);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `w${n + 1}`;
}

function conflictText(c: ClaimConflict): string {
  if (c.kind === "identity") return `${c.holder.scope}/${c.holder.leaf} already holds a live lease`;
  return `${c.glob} overlaps ${c.theirGlob} held by ${c.holder.scope}/${c.holder.leaf}`;
}

/**
 * Issue 42 item 4: the leaves of a launch that was killed after its wave was committed (leases
 * claimed, the wave opened, each leaf started, sealed) but before PLAN.md marked them IN-FLIGHT:
 * started and not returned in a sealed wave, and READY in the plan. PLAN.md is written last, so
 * this is the only half a killed launch can leave (a launch killed before its wave committed left
 * leases only, which the next launch reuses: they count as already claimed).
 */
export function halfLaunched(snap: NextSnapshot): { wave: string; ids: string[] }[] {
  const out: { wave: string; ids: string[] }[] = [];
  for (const w of snap.waves) {
    if (w.state !== "sealed") continue;
    const ids = w.leaves
      .filter((leaf) => w.started.has(leaf) && !w.returned.has(leaf))
      .map((leaf) => leaf.replace(/^leaf-/, ""))
      .filter((id) => snap.plan.byId.get(id)?.state === "READY");
    if (ids.length > 0 && ids.length === w.leaves.length) out.push({ wave: w.id, ids });
  }
  return out;
}

export async function launchNext(o: LaunchRequest): Promise<Launch> {
  // The lock folder a launch writes under: what a killed launch left there goes first (issue 42 item 4).
  sweepLockDirOnce(path.join(o.root, ".unlazy", "locks"));
  let { snap, advice } = nextAdvice(o);
  const warnings: string[] = [];
  // A launch killed between its wave and its PLAN.md edit is finished first: all or nothing.
  const half = halfLaunched(snap);
  for (const h of half) {
    warnings.push(
      ...(await setLeafStates(o.root, o.scope, h.ids, "IN-FLIGHT", `launch ${h.wave} (finished: it was interrupted)`))
        .warnings,
      `kbz: note: wave ${h.wave} was launched but its PLAN.md rows were not marked (the launch was interrupted); marked ${h.ids.join(", ")} IN-FLIGHT`,
    );
  }
  if (half.length > 0) ({ snap, advice } = nextAdvice(o));
  if (advice.action !== "dispatch" || advice.launch.length === 0)
    return { snap, advice, wave: null, launched: [], claimed: [], warnings };
  const wave = o.wave ?? nextWaveId(snap);
  if (snap.waves.some((w) => w.id === wave))
    throw new RefusedError(`wave ${wave} already exists`, { hint: "leave out --wave: kbz picks the next free id" });
  const handles = o.handles ?? new Map<string, string>();
  for (const id of handles.keys()) {
    if (!advice.launch.includes(id))
      throw new RefusedError(`--handle names ${id}, which this launch does not start`, {
        hint: `this launch starts ${advice.launch.join(", ")}`,
      });
  }
  const dir = scopeDir(o.root, o.scope);
  const launched: LaunchedLeaf[] = [];
  const used = new Set<string>();
  for (const id of advice.launch) {
    const problem = transitionProblem(snap.plan, id, "IN-FLIGHT", { ledgerMet: true });
    if (problem) throw new RefusedError(`${problem}; nothing was recorded`);
    const file = path.join(dir, "gates", leafLedgerName(id));
    const entry = loadLedgerFile(file, o.root, true);
    if (entry.problems.length > 0 || !entry.ledger)
      throw new RefusedError(
        entry.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join("; ") || `${entry.display}: unreadable`,
      );
    if (entry.ledger.owns.length === 0)
      throw new RefusedError(`${entry.display}:1: declares no OWNS paths; add an OWNS: line before the first gate`);
    const given = handles.get(id);
    const handle = given ?? `${o.scope}-${wave}-${leafStem(id)}`;
    const bad = printableProblem("handle", handle, MAX_HANDLE);
    if (bad) throw new RefusedError(`--handle ${id}=…: ${bad}`);
    if (used.has(handle)) throw new RefusedError(`handle ${handle} is given to two leaves; each leaf needs its own`);
    used.add(handle);
    const c = advice.continuations.find((x) => x.leaf === id);
    launched.push({
      id,
      leaf: fs.existsSync(file) ? leafStem(id) : id,
      handle,
      generated: given === undefined,
      ledger: path.relative(o.root, file),
      owns: entry.ledger.owns,
      reads: snap.tasks.get(id)?.access.reads ?? [],
      gates: entry.ledger.gates
        .filter((g) => !entry.ledger!.abandons.has(g.id))
        .map((g) => ({ id: g.id, title: g.title, manual: !g.check })),
      continues: c ? { after: c.after, handle: c.handle } : null,
    });
  }

  const coord = coordinationFor(o.root);
  const claimed: string[] = [];
  const undo = async () => {
    for (const leaf of claimed) {
      try {
        await coord.release(o.scope, leaf);
      } catch {
        warnings.push(
          `could not release the lease of ${leaf} after the refusal; run ${kbz("scope release", { scope: o.scope, leaf })}`,
        );
      }
    }
  };
  try {
    for (const l of launched) {
      if (advice.alreadyClaimed.includes(l.id)) continue;
      const r = await infra(() => coord.claim(o.scope, l.leaf, l.owns));
      warnings.push(...r.notes);
      if (!r.ok)
        throw new RefusedError(
          `cannot claim ${l.leaf}: ${r.conflicts.map(conflictText).join("; ")}; nothing was launched`,
          { hint: "wait for the holder to finish, or release its lease" },
        );
      claimed.push(l.leaf);
    }
    const actions: DispatchAction[] = [
      { kind: "open", wave, leaves: launched.map((l) => l.leaf) },
      ...launched.map((l): DispatchAction => ({ kind: "start", wave, leaf: l.leaf, handle: l.handle })),
      { kind: "seal", wave },
    ];
    const t = await infra(() => coord.commitDispatch(o.scope, actions));
    warnings.push(...t.notes);
    if (t.auditWarning) warnings.push(`kbz: warning: ${t.auditWarning}`);
  } catch (e) {
    await undo();
    throw e;
  }
  for (const leaf of claimed) {
    const w = await logEvent(
      coord,
      o.scope,
      `claim ${leaf}: ${launched.find((l) => l.leaf === leaf)!.owns.join(", ")}`,
    );
    if (w) warnings.push(w);
  }
  try {
    warnings.push(
      ...(
        await setLeafStates(
          o.root,
          o.scope,
          launched.map((l) => l.id),
          "IN-FLIGHT",
          `launch ${wave}`,
        )
      ).warnings,
    );
  } catch (e) {
    // PLAN.md changed under this call: take the wave and the leases back.
    await infra(() =>
      coord.commitDispatch(o.scope, {
        kind: "abandon",
        wave,
        reason: `launch refused: ${(e as Error).message}`.slice(0, 400),
      }),
    ).catch(() => undefined);
    await undo();
    throw e;
  }
  return { snap, advice, wave, launched, claimed, warnings };
}
