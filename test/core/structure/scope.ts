// Builders for structure tests: a scope on disk (PLAN, ACCESS, ledgers), requests, dispatch
// waves and leases, and small edits the driver would make (mark VERIFIED, meet a ledger).
import * as fs from "node:fs";
import * as path from "node:path";
import { leaseFileName } from "../../../src/core/dispatch/lease-record.ts";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { StructureError } from "../../../src/core/structure/model.ts";
import { sha256Hex } from "../../../src/core/util/hash.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";

export const SCOPE = "s";

export interface TaskSpec {
  id: string;
  owns?: string[];
  needs?: string[];
  state?: "WAITING" | "READY" | "IN-FLIGHT" | "VERIFIED" | "ABANDONED";
  tier?: "judgment" | "mechanical";
  reads?: string[];
  resourceReads?: string[];
  resourceWrites?: string[];
  gates?: string[]; // gate ids, default [G<id>]
  met?: boolean;
}

export function dir(root: string): string {
  return path.join(root, ".unlazy", SCOPE);
}

export function ledgerText(owns: string[], gates: string[], met = false): string {
  const lines = [`OWNS: ${owns.join(", ")}`];
  for (const g of gates)
    lines.push(
      met ? `- [x] ${g}: outcome ${g}` : `- [ ] ${g}: outcome ${g}`,
      met ? "  EVIDENCE: reviewed by hand" : "  EVIDENCE: pending",
    );
  return lines.join("\n") + "\n";
}

export function ownsOf(t: TaskSpec): string[] {
  return t.owns ?? [`src/${t.id}/**`];
}

export interface ScopeOptions {
  root?: string;
  revision?: number;
  gatesMd?: string;
  extra?: Record<string, string>; // scope-relative files
  planPrefix?: string;
}

export function makeScope(tasks: TaskSpec[], o: ScopeOptions = {}): string {
  const root = o.root ?? tempDir("kbz-structure-");
  const rev = o.revision ?? 1;
  const wave = new Map<string, number>();
  const waveOf = (t: TaskSpec): number => {
    if (!wave.has(t.id))
      wave.set(t.id, 1 + Math.max(0, ...(t.needs ?? []).map((n) => waveOf(tasks.find((x) => x.id === n)!))));
    return wave.get(t.id)!;
  };
  const rows = tasks.map(
    (t) =>
      `| ${t.id} | ${ownsOf(t).join(", ")} | ${(t.needs ?? []).join(", ") || "-"} | ${t.tier ?? "judgment"} | ${waveOf(t)} | ${t.state ?? ((t.needs ?? []).length ? "WAITING" : "READY")} |`,
  );
  const plan = `${o.planPrefix ?? ""}# Plan: test\nContract revision: ${rev}.\n\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n`;
  const leaves: Record<string, unknown> = {};
  for (const t of tasks)
    leaves[t.id] = {
      complete: true,
      reads: t.reads ?? [],
      resourceReads: t.resourceReads ?? [],
      resourceWrites: t.resourceWrites ?? [],
    };
  const files: Record<string, string> = {
    [`.unlazy/${SCOPE}/PLAN.md`]: plan,
    [`.unlazy/${SCOPE}/ACCESS.json`]: JSON.stringify({ schema: 1, contractRevision: rev, leaves }),
    [`.unlazy/${SCOPE}/GATES.md`]: o.gatesMd ?? "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending\n",
  };
  for (const t of tasks)
    files[`.unlazy/${SCOPE}/gates/leaf-${t.id}.md`] = ledgerText(
      ownsOf(t),
      t.gates ?? [`G${t.id}`],
      t.met ?? t.state === "VERIFIED",
    );
  for (const [rel, text] of Object.entries(o.extra ?? {})) files[`.unlazy/${SCOPE}/${rel}`] = text;
  writeTree(root, files);
  return root;
}

export interface ChildOptions {
  needs?: string[];
  owns?: string[];
  reads?: string[];
  resourceReads?: string[];
  resourceWrites?: string[];
  gate?: string;
  ledger?: string;
  complete?: boolean;
  tier?: string;
  refinement?: unknown;
}

/** A child `<parent>.<suffix>` owning `src/<parent>/<suffix>/**` by default. */
export function child(parent: string, suffix: string, o: ChildOptions = {}): Record<string, unknown> {
  const id = `${parent}.${suffix}`;
  const owns = o.owns ?? [`src/${parent}/${suffix}/**`];
  const c: Record<string, unknown> = {
    id,
    needs: o.needs ?? [],
    tier: o.tier ?? "mechanical",
    ledger: o.ledger ?? ledgerText(owns, [o.gate ?? "C1"]),
    access: {
      complete: o.complete ?? true,
      reads: o.reads ?? [],
      resourceReads: o.resourceReads ?? [],
      resourceWrites: o.resourceWrites ?? [],
    },
  };
  if (o.refinement !== undefined) c.refinement = o.refinement;
  return c;
}

export function refinement(children: unknown[]): Record<string, unknown> {
  return { retainsParentGates: true, children };
}

export function request(
  operation: string,
  revision: number,
  refinements: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { schema: 1, operation, contractRevision: revision, refinements, ...extra };
}

export function readScope(root: string, rel: string): string {
  return fs.readFileSync(path.join(dir(root), rel), "utf8");
}

export function writeScope(root: string, rel: string, text: string): void {
  fs.writeFileSync(path.join(dir(root), rel), text);
}

export function revisionOf(root: string): number {
  const all = [...readScope(root, "PLAN.md").matchAll(/^Contract revision: ([0-9]+)/gm)];
  return Number(all[all.length - 1]![1]); // the live line follows any fenced example
}

export function planRow(root: string, id: string): string[] {
  const line = readScope(root, "PLAN.md")
    .split("\n")
    .find((l) => l.startsWith(`| ${id} |`))!;
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

/** Set a PLAN row's state, as the driver does by hand. */
export function setState(root: string, id: string, state: string): void {
  const text = readScope(root, "PLAN.md").replace(
    new RegExp(`^(\\| ${id.replace(/\./g, "\\.")} \\|.*\\| )[A-Z-]+( \\|)$`, "m"),
    `$1${state}$2`,
  );
  writeScope(root, "PLAN.md", text);
}

/** Check every gate of a ledger with manual evidence. */
export function meet(root: string, rel: string): void {
  writeScope(
    root,
    rel,
    readScope(root, rel)
      .replace(/- \[ \]/g, "- [x]")
      .replace(/EVIDENCE: pending/g, "EVIDENCE: reviewed by hand"),
  );
}

export function verify(root: string, id: string): void {
  meet(root, `gates/leaf-${id}.md`);
  setState(root, id, "VERIFIED");
}

export interface WaveSpec {
  state: "open" | "sealed" | "complete" | "abandoned";
  leaves: string[]; // bare ids
  started?: Record<string, string>; // id → handle
  returned?: string[];
}

export const T0 = "2026-09-23T10:00:00.000Z";

export function at(n: number): string {
  return new Date(Date.parse(T0) + n * 1000).toISOString();
}

export function writeDispatch(root: string, waves: Record<string, WaveSpec>): void {
  const out: Record<string, unknown> = {};
  let tick = 0;
  for (const [id, w] of Object.entries(waves)) {
    const started: Record<string, unknown> = {};
    const returned: Record<string, unknown> = {};
    for (const [leaf, handle] of Object.entries(w.started ?? {})) started[`leaf-${leaf}`] = { handle, at: at(++tick) };
    for (const leaf of w.returned ?? []) returned[`leaf-${leaf}`] = { at: at(100 + ++tick) };
    const wave: Record<string, unknown> = {
      leaves: w.leaves.map((l) => `leaf-${l}`),
      state: w.state,
      openedAt: at(0),
      started,
      returned,
    };
    if (w.state === "sealed" || w.state === "complete") wave.sealedAt = at(50);
    if (w.state === "complete") wave.completedAt = at(300);
    if (w.state === "abandoned") Object.assign(wave, { abandonedAt: at(300), reason: "test" });
    out[id] = wave;
  }
  writeScope(root, "dispatch.json", JSON.stringify({ schema: 1, waves: out }, null, 2));
}

export function lease(root: string, leaf: string, globs: string[], scope = SCOPE): string {
  const file = path.join(root, ".unlazy", "locks", leaseFileName(scope, `leaf-${leaf}`));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ scope, leaf: `leaf-${leaf}`, globs, pid: 1 }));
  return file;
}

export function textHash(text: string): string {
  return sha256Hex(text);
}

/** Apply and return the error message, or null when it succeeded. */
export async function applyError(root: string, req: unknown): Promise<string | null> {
  try {
    await applyStructure(root, SCOPE, req);
    return null;
  } catch (e) {
    if (e instanceof StructureError) return e.message;
    throw e;
  }
}

/** Recover and return the error message, or null when it succeeded. */
export async function recoverError(root: string): Promise<string | null> {
  try {
    await recoverStructure(root, SCOPE);
    return null;
  } catch (e) {
    if (e instanceof StructureError) return e.message;
    throw e;
  }
}

export function errorOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof StructureError) return e.message;
    throw e;
  }
}
