// The scheduler's own reader of dispatch.json and lease records (kill §2.4, §2.5), kept small
// and separate so it can give way to the dispatch modules' loaders. It validates what the
// advice relies on: wave shape, leaf ids, handles and timestamps, lease identity and globs.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ScheduleInputError } from "../plan/errors.ts";
import { isValidId } from "../workspace/discover.ts";
import { normalizeOwnsPath } from "../workspace/paths.ts";
import { isInside, readStable, ReadError } from "../workspace/read.ts";
import type { LeaseView, WaveState, WaveView } from "./snapshot.ts";

const WAVE_STATES = new Set<WaveState>(["open", "sealed", "complete", "abandoned"]);
const MAX_LEASE_BYTES = 64 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isoTime(v: unknown): v is string {
  return typeof v === "string" && !Number.isNaN(Date.parse(v));
}

/** Parse dispatch.json text (null = no file = no waves). */
export function parseWaves(text: string | null): WaveView[] {
  if (text === null) return [];
  const bad = (m: string): never => {
    throw new ScheduleInputError(`invalid dispatch state: ${m}`, "dispatch.json");
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    bad(`invalid JSON: ${(e as Error).message}`);
  }
  if (!isObject(value) || value.schema !== 1 || !isObject(value.waves)) bad("expected {\"schema\":1,\"waves\":{…}}");
  const waves: WaveView[] = [];
  for (const [id, w] of Object.entries((value as { waves: Record<string, unknown> }).waves)) {
    if (!isValidId(id)) bad(`invalid wave id ${JSON.stringify(id)}`);
    if (!isObject(w)) bad(`wave ${id} must be an object`);
    const wave = w as Record<string, unknown>;
    const leaves = wave.leaves;
    if (!Array.isArray(leaves) || leaves.length === 0 || leaves.some((l) => typeof l !== "string" || !isValidId(l))) {
      bad(`wave ${id} leaves must be a non-empty array of valid ids`);
    }
    const list = leaves as string[];
    if (new Set(list).size !== list.length) bad(`wave ${id} has duplicate leaves`);
    if (!WAVE_STATES.has(wave.state as WaveState)) bad(`wave ${id} has an unknown state ${JSON.stringify(wave.state)}`);
    const started = wave.started ?? {};
    const returned = wave.returned ?? {};
    if (!isObject(started) || !isObject(returned)) bad(`wave ${id} started/returned must be objects`);
    const handles = new Set<string>();
    for (const [leaf, s] of Object.entries(started as Record<string, unknown>)) {
      if (!list.includes(leaf)) bad(`wave ${id} started undeclared leaf ${leaf}`);
      if (!isObject(s) || typeof s.handle !== "string" || s.handle.trim() === "" || !isoTime(s.at)) bad(`wave ${id} start of ${leaf} needs a handle and an ISO time`);
      const handle = (s as { handle: string }).handle;
      if (handles.has(handle)) bad(`wave ${id} reuses handle ${handle}`);
      handles.add(handle);
    }
    for (const [leaf, r] of Object.entries(returned as Record<string, unknown>)) {
      if (!Object.hasOwn(started as object, leaf)) bad(`wave ${id} returned ${leaf} that never started`);
      if (!isObject(r) || !isoTime(r.at)) bad(`wave ${id} return of ${leaf} needs an ISO time`);
    }
    waves.push({
      id,
      state: wave.state as WaveState,
      leaves: list,
      started: started as WaveView["started"],
      returned: returned as WaveView["returned"],
    });
  }
  return waves;
}

export function leaseFileName(scope: string, leaf: string): string {
  return createHash("sha256").update(`${scope}::${leaf}`).digest("hex").slice(0, 24) + ".lease";
}

function invalidLease(name: string): LeaseView {
  return { scope: "(invalid)", leaf: name, globs: ["**"], invalid: true };
}

function leaseRecord(file: string, root: string): LeaseView {
  const name = path.basename(file);
  let value: unknown;
  try {
    value = JSON.parse(readStable(file, { label: "lease", maxBytes: MAX_LEASE_BYTES, root }).toString("utf8"));
  } catch (e) {
    if (e instanceof ReadError || e instanceof SyntaxError) return invalidLease(name);
    throw e;
  }
  if (!isObject(value)) return invalidLease(name);
  const { scope, leaf, globs } = value;
  if (typeof scope !== "string" || typeof leaf !== "string" || !isValidId(scope) || !isValidId(leaf)) return invalidLease(name);
  if (!Array.isArray(globs) || globs.length === 0) return invalidLease(name);
  if (globs.some((g) => typeof g !== "string" || normalizeOwnsPath(g).ok === false || (normalizeOwnsPath(g) as { glob: string }).glob !== g)) {
    return invalidLease(name);
  }
  if (leaseFileName(scope, leaf) !== name) return invalidLease(name);
  return { scope, leaf, globs: globs as string[], invalid: false };
}

/** Every lease under `.unlazy/locks/`, sorted by file name; unusable records read as invalid `**`. */
export function readLeases(root: string): LeaseView[] {
  const dir = path.join(root, ".unlazy", "locks");
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return [];
  }
  if (!st.isDirectory() || !isInside(root, fs.realpathSync(dir))) return [invalidLease("locks")];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".lease"))
    .sort()
    .map((n) => leaseRecord(path.join(dir, n), root));
}

/** The lease part of the snapshot fingerprint (kill §4.10 step 12). */
export function leaseSignature(leases: LeaseView[]): string {
  return JSON.stringify(leases.map((l) => [l.scope, l.leaf, l.globs, l.invalid]));
}
