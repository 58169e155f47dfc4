// The approved-oracle run (issue 39 part B; docs/checks.md#approved-oracle): when a gate's live
// oracle differs from the one a person approved only in its files, kbz judges the work against the
// approved files instead of stopping at APPROVAL REQUIRED. The view puts back the approved bytes
// kept at approval (io/run/kept.ts) and removes oracle paths that did not exist then
// (io/run/view.ts oracleView); the verdict is recorded against the approved oracle, and the live
// edit is a proposal a person reviews with `kbz approve`.
import * as fs from "node:fs";
import * as path from "node:path";
import type { RuntimeOracle } from "../../core/run/oracle.ts";
import { latestApproval, type ApprovalRecord, type ApprovalStore } from "../run/approval.ts";
import { keptDir, keptEntry, keyPath } from "../run/kept.ts";
import type { Placement } from "../run/view.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import { kbz } from "../../core/text/command.ts";
import { programsHold } from "../oracle/programs.ts";

export interface Judged {
  /** The approval the work is judged against. */
  approval: ApprovalRecord;
  /** The bound keys whose live digest differs from the approved one (or that appeared or went), sorted. */
  edited: string[];
  /** What the view changes: each path's approved bytes, or absent. */
  placements: Placement[];
}

/**
 * The oracle with its bound files left out: what must be equal for the approved files to stand in.
 * With `programs` (issue 39, observe), the PATH string is not part of the oracle and the programs
 * the scripts name follow the scripts: they are compared by what they resolve to (programsHold).
 */
function withoutFiles(o: RuntimeOracle): string {
  const { bound, ...rest } = o;
  const more = bound ? { ...bound, files: undefined } : {};
  if (rest.programs)
    return JSON.stringify({ ...rest, path: undefined, programs: { observer: rest.programs.observer }, bound: more });
  return JSON.stringify({ ...rest, bound: more });
}

/** A bound file as it is now: "<sha256> <mode>", "missing", or null (not a regular file, unreadable). */
function liveState(root: string, rel: string): string | null {
  const abs = path.join(root, rel);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch {
    return "missing";
  }
  if (!st.isFile()) return null;
  try {
    return `${sha256Hex(fs.readFileSync(abs))} ${(st.mode & 0o777).toString(8)}`;
  } catch {
    return null;
  }
}

/**
 * The approval to judge `live` against: the gate's latest approval (io/run/approval.ts
 * latestApproval), when it kept its bytes and differs from `live` in bound files alone. Null when
 * there is none (never approved, or the CHECK, EXPECT, ENV, PATH or sandbox changed: those need a
 * person); `{ why }` when the files cannot be put back.
 */
export function judgedRun(
  store: ApprovalStore,
  root: string,
  file: string,
  gateId: string,
  live: RuntimeOracle,
): Judged | { why: string } | null {
  const sig = latestApproval(store.dir, file, gateId);
  const approval = sig ? store.get(file, gateId, sig) : null;
  if (!approval || !approval.kept || withoutFiles(approval.oracle) !== withoutFiles(live)) return null;
  const programs = approval.oracle.programs;
  if (programs && !programsHold(root, programs, live.path, live.cwd)) return null;
  const before = approval.oracle.bound?.files ?? {};
  const now = live.bound?.files ?? {};
  const edited = [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((k) => before[k] !== now[k]).sort();
  if (edited.length === 0) return null;
  const placements: Placement[] = [];
  const paths = new Set<string>();
  for (const k of [...Object.keys(before), ...Object.keys(now)]) {
    const rel = keyPath(k);
    if (rel !== null) paths.add(rel);
  }
  for (const rel of [...paths].sort()) {
    const target = approval.kept[rel] ?? (Object.keys(before).some((k) => keyPath(k) === rel) ? undefined : "missing");
    if (target === undefined) {
      if (edited.some((k) => keyPath(k) === rel))
        return { why: `${rel} was not kept at approval (not a regular file then)` };
      continue;
    }
    const state = liveState(root, rel);
    if (state === target) continue;
    if (target === "missing") {
      placements.push({ rel, from: null, mode: 0 });
      continue;
    }
    const entry = keptEntry(target);
    if (!entry) return { why: `the kept record of ${rel} is not valid` };
    const from = path.join(keptDir(store.dir), entry.sha);
    if (!fs.existsSync(from)) return { why: `the approved bytes of ${rel} are no longer kept` };
    placements.push({ rel, from, mode: entry.mode });
  }
  // An edit outside the root (an absolute key) cannot be put back.
  const outside = edited.find((k) => keyPath(k) === null);
  if (outside) return { why: `${outside} is outside the root` };
  return { approval, edited, placements };
}

/** The words `kbz check` prints for a gate judged against its approved oracle. */
export function oracleEditedLine(edited: string[], scope: string | null = null): string {
  const shown = edited.length > 3 ? `${edited.slice(0, 3).join(", ")}, +${edited.length - 3} more` : edited.join(", ");
  return `  ORACLE EDITED ${shown}: judged against the approved version; a person reviews the edit with ${kbz("approve", scope ? { scope } : {})}`;
}
