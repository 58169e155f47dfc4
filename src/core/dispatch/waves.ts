// Dispatch launch waves (docs/formats.md#dispatch): the dispatch.json model, its validation (on every load
// and every write), the state machine, and the aggregate that scoped verdicts fold in.
import * as path from "node:path";
import { isValidId } from "../workspace/ids.ts";
import { escapeField, escapeUnsafe, hasUnsafe } from "../text/sanitize.ts";
import { KbzError } from "../errors.ts";
import { kbz } from "../text/command.ts";

export type WaveState = "open" | "sealed" | "complete" | "abandoned";

/** A leaf's start in a wave: the agent handle it was started as, and when. */
export interface WaveStart {
  handle: string;
  at: string;
}

export interface WaveReturn {
  at: string;
}

export interface Wave {
  id: string;
  leaves: string[];
  state: WaveState;
  openedAt: string;
  /** Prototype-less maps: ids such as `toString` or `constructor` are ordinary keys. */
  started: Map<string, WaveStart>;
  returned: Map<string, WaveReturn>;
  sealedAt?: string;
  completedAt?: string;
  reason?: string;
  abandonedAt?: string;
  /** Keys we do not interpret, kept in order so a rewrite never drops someone's metadata. */
  extra: [string, unknown][];
}

export interface DispatchState {
  waves: Map<string, Wave>;
  extra: [string, unknown][];
}

/** The file is unreadable or describes an impossible history. `wave` locates the problem. */
export class DispatchStateError extends KbzError {
  declare readonly line: number;
  constructor(
    message: string,
    readonly wave: string | null = null,
    line = 1,
    file?: string,
  ) {
    super(message, {
      code: "dispatch-state",
      file,
      line,
      hint: `fix or remove dispatch.json (${kbz("wave list")} shows the waves)`,
    });
  }
}

/** A requested transition the state machine refuses (the file itself is fine). */
export class DispatchActionError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, { code: "dispatch-refused", file, hint: `${kbz("wave list")} shows each wave's state` });
  }
}

export const MAX_HANDLE = 256;
export const MAX_REASON = 500;
const STATES: readonly WaveState[] = ["open", "sealed", "complete", "abandoned"];
const WAVE_KEYS = new Set([
  "leaves",
  "state",
  "openedAt",
  "started",
  "returned",
  "sealedAt",
  "completedAt",
  "reason",
  "abandonedAt",
]);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function emptyDispatch(): DispatchState {
  return { waves: new Map(), extra: [] };
}

/** Ids quoted in messages are escaped and bounded: the file may be hostile. */
function show(id: string): string {
  return escapeField(id, 80);
}

export function idMessage(kind: "scope" | "wave" | "leaf"): string {
  return `${kind} must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/ and cannot be . or ..`;
}

function isIso(v: unknown): v is string {
  return typeof v === "string" && ISO.test(v) && Number.isFinite(Date.parse(v));
}

function time(v: string): number {
  return Date.parse(v);
}

/** Handles and reasons: trimmed, bounded, printable (no controls, no bidi, no U+2028/2029). */
export function printableProblem(field: "handle" | "reason", v: unknown, max: number): string | null {
  if (typeof v !== "string") return `${field} must be a string`;
  if (hasUnsafe(v)) return `${field} must be printable`;
  if (v.trim() !== v) return `${field} must not have leading or trailing whitespace`;
  if (v.length < 1 || v.length > max) return `${field} must be 1..${max} characters`;
  return null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function ownEntries(o: Record<string, unknown>): [string, unknown][] {
  return Object.keys(o).map((k) => [k, o[k]]);
}

function readWave(id: string, raw: unknown): Wave {
  const fail = (msg: string): never => {
    throw new DispatchStateError(`wave ${show(id)}: ${msg}`, id);
  };
  if (!isValidId(id)) throw new DispatchStateError(`wave id ${show(id)} is invalid: ${idMessage("wave")}`, id);
  if (!isPlainObject(raw)) fail("must be an object");
  const w = raw as Record<string, unknown>;
  const leaves = w.leaves;
  if (!Array.isArray(leaves) || leaves.length === 0) fail("leaves must be a non-empty array");
  const seen = new Set<string>();
  for (const l of leaves as unknown[]) {
    if (typeof l !== "string" || !isValidId(l))
      fail(`leaf ${typeof l === "string" ? show(l) : "(not a string)"} is invalid: ${idMessage("leaf")}`);
    if (seen.has(l as string)) fail(`duplicate leaf ${show(l as string)}`);
    seen.add(l as string);
  }
  if (typeof w.state !== "string" || !STATES.includes(w.state as WaveState))
    fail("state must be open, sealed, complete or abandoned");
  if (!isIso(w.openedAt)) fail("openedAt must be an ISO timestamp");
  const wave: Wave = {
    id,
    leaves: [...(leaves as string[])],
    state: w.state as WaveState,
    openedAt: w.openedAt as string,
    started: new Map(),
    returned: new Map(),
    extra: ownEntries(w).filter(([k]) => !WAVE_KEYS.has(k)),
  };
  for (const key of ["sealedAt", "completedAt", "abandonedAt"] as const) {
    if (!Object.hasOwn(w, key)) continue;
    if (!isIso(w[key])) fail(`${key} must be an ISO timestamp`);
    wave[key] = w[key] as string;
  }
  if (Object.hasOwn(w, "reason")) {
    if (typeof w.reason !== "string") fail("reason must be a string");
    wave.reason = w.reason as string;
  }
  if (!isPlainObject(w.started)) fail("started must be an object");
  for (const [leaf, s] of ownEntries(w.started as Record<string, unknown>)) {
    if (!seen.has(leaf)) fail(`started leaf ${show(leaf)} is not declared`);
    if (!isPlainObject(s)) fail(`start of ${show(leaf)} must be an object`);
    const start = s as Record<string, unknown>;
    const bad = printableProblem("handle", start.handle, MAX_HANDLE);
    if (bad) fail(`start of ${show(leaf)}: ${bad}`);
    if (!isIso(start.at)) fail(`start of ${show(leaf)}: at must be an ISO timestamp`);
    wave.started.set(leaf, { handle: start.handle as string, at: start.at as string });
  }
  if (!isPlainObject(w.returned)) fail("returned must be an object");
  for (const [leaf, r] of ownEntries(w.returned as Record<string, unknown>)) {
    if (!seen.has(leaf)) fail(`returned leaf ${show(leaf)} is not declared`);
    if (!isPlainObject(r)) fail(`return of ${show(leaf)} must be an object`);
    const at = (r as Record<string, unknown>).at;
    if (!isIso(at)) fail(`return of ${show(leaf)}: at must be an ISO timestamp`);
    wave.returned.set(leaf, { at: at as string });
  }
  checkHistory(wave);
  return wave;
}

/** The ordering and per-state rules: a wave must describe a history the state machine can produce. */
function checkHistory(w: Wave): void {
  const fail = (msg: string): never => {
    throw new DispatchStateError(`wave ${show(w.id)}: ${msg}`, w.id);
  };
  const opened = time(w.openedAt);
  const handles = new Map<string, string>();
  let latestStart = opened;
  for (const [leaf, s] of w.started) {
    const other = handles.get(s.handle);
    if (other !== undefined) fail(`handle ${show(s.handle)} is assigned to both ${show(other)} and ${show(leaf)}`);
    handles.set(s.handle, leaf);
    if (time(s.at) < opened) fail(`start of ${show(leaf)} is earlier than openedAt`);
    latestStart = Math.max(latestStart, time(s.at));
  }
  let latestReturn = -Infinity;
  for (const [leaf, r] of w.returned) {
    const s = w.started.get(leaf);
    if (!s) fail(`leaf ${show(leaf)} returned without being started`);
    if (time(r.at) < time(s!.at)) fail(`return of ${show(leaf)} is earlier than its start`);
    latestReturn = Math.max(latestReturn, time(r.at));
  }
  const allStarted = w.leaves.every((l) => w.started.has(l));
  const allReturned = w.leaves.every((l) => w.returned.has(l));
  const needsSeal = w.state === "sealed" || w.state === "complete";
  if (needsSeal && w.sealedAt === undefined) fail(`sealedAt must be an ISO timestamp (required when ${w.state})`);
  if (w.returned.size > 0 && w.sealedAt === undefined) fail("contains returns without being sealed");
  if (w.sealedAt !== undefined) {
    if (!needsSeal && w.state !== "abandoned") fail(`an ${w.state} wave must not have sealedAt`);
    if (!allStarted)
      fail(
        `sealed with missing starts for ${w.leaves
          .filter((l) => !w.started.has(l))
          .map(show)
          .join(", ")}`,
      );
    if (time(w.sealedAt) < latestStart) fail("sealedAt is earlier than a start");
  }
  for (const [leaf, r] of w.returned) {
    if (w.sealedAt !== undefined && time(r.at) < time(w.sealedAt))
      fail(`return of ${show(leaf)} is earlier than sealedAt`);
  }
  if (w.state === "sealed" && allReturned) fail("a sealed wave cannot have every leaf returned (it is complete)");
  if (w.state === "complete") {
    if (!allReturned) fail("a complete wave needs every leaf returned");
    if (w.completedAt === undefined) fail("completedAt must be an ISO timestamp (required when complete)");
    if (time(w.completedAt!) < Math.max(time(w.sealedAt!), latestReturn))
      fail("completedAt is earlier than the seal or a return");
  } else if (w.completedAt !== undefined) {
    fail(`a ${w.state} wave must not have completedAt`);
  }
  if (w.state === "abandoned") {
    if (w.abandonedAt === undefined) fail("abandonedAt must be an ISO timestamp (required when abandoned)");
    if (w.reason === undefined) fail("reason must be a string (required when abandoned)");
    const bad = printableProblem("reason", w.reason, MAX_REASON);
    if (bad) fail(bad);
    const prior = Math.max(latestStart, latestReturn, w.sealedAt !== undefined ? time(w.sealedAt) : opened);
    if (time(w.abandonedAt!) < prior) fail("abandonedAt is earlier than an earlier transition");
    if (allReturned) fail("an abandoned wave cannot have every leaf returned");
  } else if (w.abandonedAt !== undefined || w.reason !== undefined) {
    fail(`a ${w.state} wave must not carry abandonment metadata`);
  }
}

/** Validate a parsed dispatch.json value. Throws DispatchStateError naming the wave and the rule. */
export function validateDispatch(raw: unknown): DispatchState {
  if (!isPlainObject(raw)) throw new DispatchStateError("top level must be an object");
  if (raw.schema !== 1) throw new DispatchStateError("schema must be 1");
  if (!isPlainObject(raw.waves)) throw new DispatchStateError("waves must be an object");
  const waves = new Map<string, Wave>();
  for (const [id, w] of ownEntries(raw.waves)) waves.set(id, readWave(id, w));
  return { waves, extra: ownEntries(raw).filter(([k]) => k !== "schema" && k !== "waves") };
}

export function parseDispatch(text: string): DispatchState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new DispatchStateError(`not valid JSON (${(e as Error).message})`);
  }
  return validateDispatch(raw);
}

function waveObject(w: Wave): Record<string, unknown> {
  const o: [string, unknown][] = [
    ["leaves", w.leaves],
    ["state", w.state],
    ["openedAt", w.openedAt],
    ["started", Object.fromEntries([...w.started].map(([k, s]) => [k, { handle: s.handle, at: s.at }]))],
    ["returned", Object.fromEntries([...w.returned].map(([k, r]) => [k, { at: r.at }]))],
  ];
  for (const key of ["sealedAt", "completedAt", "reason", "abandonedAt"] as const)
    if (w[key] !== undefined) o.push([key, w[key]]);
  return Object.fromEntries([...o, ...w.extra]);
}

/** Pretty JSON in unlazy's field order; the result always re-validates. */
export function serializeDispatch(s: DispatchState): string {
  const waves = Object.fromEntries([...s.waves].map(([id, w]) => [id, waveObject(w)]));
  return JSON.stringify(Object.fromEntries([["schema", 1], ["waves", waves], ...s.extra]), null, 2) + "\n";
}

export function dispatchPath(root: string, scope: string): string {
  return path.join(root, ".unlazy", scope, "dispatch.json");
}

/** 1-based line of the wave's key in the file text, for `<file>:<line>:` messages. */
export function waveLine(text: string, wave: string | null): number {
  if (wave === null) return 1;
  const at = text.indexOf(JSON.stringify(wave) + ":");
  if (at < 0) return 1;
  let line = 1;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

// ---- transitions ------------------------------------------------------------------------

export type DispatchAction =
  | { kind: "open"; wave: string; leaves: string[] }
  | { kind: "start"; wave: string; leaf: string; handle: string }
  | { kind: "seal"; wave: string }
  | { kind: "return"; wave: string; leaf: string }
  | { kind: "abandon"; wave: string; reason: string };

export interface Transition {
  state: DispatchState;
  wave: Wave;
  /** The status.log event, without the timestamp. */
  event: string;
  /** The transcript line (`OPEN w1 (0/2 started, 0/2 returned)` …). */
  line: string;
}

function latestTime(w: Wave): number {
  const times = [
    w.openedAt,
    w.sealedAt,
    w.completedAt,
    w.abandonedAt,
    ...[...w.started.values()].map((s) => s.at),
    ...[...w.returned.values()].map((r) => r.at),
  ];
  return Math.max(...times.filter((t): t is string => t !== undefined).map(time));
}

/** Never earlier than the wave's last transition, so a clock step backwards cannot corrupt the history. */
function stamp(now: Date, w?: Wave): string {
  const t = Math.max(now.getTime(), w ? latestTime(w) : -Infinity);
  return new Date(t).toISOString();
}

function cloneWave(w: Wave): Wave {
  return {
    ...w,
    leaves: [...w.leaves],
    started: new Map(w.started),
    returned: new Map(w.returned),
    extra: [...w.extra],
  };
}

function counts(w: Wave): { s: number; r: number; n: number } {
  return { s: w.started.size, r: w.returned.size, n: w.leaves.length };
}

/** The one-line summary `kbz wave status` prints for a wave in any state. */
export function waveSummary(w: Wave): string {
  const { s, r, n } = counts(w);
  if (w.state === "complete") return `COMPLETE ${w.id} (${r}/${n} returned)`;
  if (w.state === "abandoned")
    return `ABANDONED ${w.id} (${s}/${n} started, ${r}/${n} returned): ${escapeUnsafe(w.reason ?? "")}`;
  return `${w.state.toUpperCase()} ${w.id} (${s}/${n} started, ${r}/${n} returned)`;
}

function checkIds(a: DispatchAction): void {
  if (!isValidId(a.wave)) throw new DispatchActionError(idMessage("wave"));
  const leaves = a.kind === "open" ? a.leaves : a.kind === "start" || a.kind === "return" ? [a.leaf] : [];
  for (const l of leaves) if (!isValidId(l)) throw new DispatchActionError(`${idMessage("leaf")}: ${show(l)}`);
}

/** Apply one action to a state (pure). Throws DispatchActionError when the machine refuses it. */
export function applyDispatch(state: DispatchState, a: DispatchAction, now: Date): Transition {
  checkIds(a);
  const waves = new Map(state.waves);
  const existing = waves.get(a.wave);
  const need = (): Wave => {
    if (!existing) throw new DispatchActionError(`unknown wave ${a.wave}`);
    return cloneWave(existing);
  };
  let w: Wave;
  let event: string;
  let line: string;
  switch (a.kind) {
    case "open": {
      if (existing) throw new DispatchActionError(`wave ${a.wave} already exists`);
      if (a.leaves.length === 0) throw new DispatchActionError("open needs at least one --leaf");
      const seen = new Set<string>();
      for (const l of a.leaves) {
        if (seen.has(l)) throw new DispatchActionError(`duplicate leaf ${l}`);
        seen.add(l);
      }
      w = {
        id: a.wave,
        leaves: [...a.leaves],
        state: "open",
        openedAt: stamp(now),
        started: new Map(),
        returned: new Map(),
        extra: [],
      };
      event = `dispatch ${a.wave} opened: ${a.leaves.join(", ")}`;
      line = waveSummary(w);
      break;
    }
    case "start": {
      w = need();
      if (w.state !== "open") throw new DispatchActionError(`start requires an open wave; ${a.wave} is ${w.state}`);
      if (!w.leaves.includes(a.leaf)) throw new DispatchActionError(`unknown leaf ${a.leaf} in wave ${a.wave}`);
      if (w.started.has(a.leaf)) throw new DispatchActionError(`leaf ${a.leaf} already started`);
      const handle = typeof a.handle === "string" ? a.handle.trim() : a.handle;
      const bad = printableProblem("handle", handle, MAX_HANDLE);
      if (bad) throw new DispatchActionError(bad);
      const owner = [...w.started].find(([, s]) => s.handle === handle);
      if (owner) throw new DispatchActionError(`handle is already assigned to ${owner[0]}`);
      w.started.set(a.leaf, { handle, at: stamp(now, w) });
      event = `dispatch ${a.wave} started ${a.leaf} as ${handle}`;
      line = `STARTED ${a.wave} ${a.leaf} (${w.started.size}/${w.leaves.length} started)`;
      break;
    }
    case "seal": {
      w = need();
      if (w.state !== "open") throw new DispatchActionError(`seal requires an open wave; ${a.wave} is ${w.state}`);
      const missing = w.leaves.filter((l) => !w.started.has(l));
      if (missing.length > 0)
        throw new DispatchActionError(`cannot seal ${a.wave}: missing starts for ${missing.join(", ")}`);
      w.sealedAt = stamp(now, w);
      w.state = "sealed";
      event = `dispatch ${a.wave} sealed`;
      line = `SEALED ${a.wave} (${w.started.size}/${w.leaves.length} started)`;
      break;
    }
    case "return": {
      w = need();
      if (w.state !== "sealed") throw new DispatchActionError(`return requires a sealed wave; ${a.wave} is ${w.state}`);
      if (!w.leaves.includes(a.leaf)) throw new DispatchActionError(`unknown leaf ${a.leaf} in wave ${a.wave}`);
      if (w.returned.has(a.leaf)) throw new DispatchActionError(`leaf ${a.leaf} already returned`);
      const at = stamp(now, w);
      w.returned.set(a.leaf, { at });
      event = `dispatch ${a.wave} returned ${a.leaf}`;
      if (w.leaves.every((l) => w.returned.has(l))) {
        w.state = "complete";
        w.completedAt = at;
        line = `COMPLETE ${a.wave} (${w.returned.size}/${w.leaves.length} returned)`;
      } else {
        line = `RETURNED ${a.wave} ${a.leaf} (${w.returned.size}/${w.leaves.length} returned)`;
      }
      break;
    }
    case "abandon": {
      w = need();
      if (w.state !== "open" && w.state !== "sealed") {
        throw new DispatchActionError(`${a.wave} is ${w.state}; abandon requires an open or sealed wave`);
      }
      const reason = typeof a.reason === "string" ? a.reason.trim() : a.reason;
      const bad = printableProblem("reason", reason, MAX_REASON);
      if (bad) throw new DispatchActionError(bad);
      w.state = "abandoned";
      w.reason = reason;
      w.abandonedAt = stamp(now, w);
      event = `dispatch ${a.wave} abandoned: ${reason}`;
      line = waveSummary(w);
      break;
    }
  }
  waves.set(a.wave, w);
  const next: DispatchState = { waves, extra: state.extra };
  // Every write is validated exactly like a load: the machine can never persist an impossible history.
  validateDispatch(JSON.parse(serializeDispatch(next)));
  return { state: next, wave: w, event, line };
}

/**
 * Several actions applied in order as one transition (`kbz next --launch`: open, every start,
 * seal): the state after the last one, and one status.log event per action. Refuses as a whole.
 */
export function applyDispatchAll(
  state: DispatchState,
  actions: DispatchAction[],
  now: Date,
): Transition & { events: string[] } {
  if (actions.length === 0) throw new DispatchActionError("no dispatch action to apply");
  let t: Transition | null = null;
  const events: string[] = [];
  for (const a of actions) {
    t = applyDispatch(t ? t.state : state, a, now);
    events.push(t.event);
  }
  return { ...t!, events };
}

// ---- aggregate --------------------------------------------------------------------------

export interface DispatchAggregate {
  /** `dispatch:<id>=<state>;started=<s>/<n>;returned=<r>/<n>`: semantic only, for progress hashing. */
  resolved: string[];
  /** Open or sealed waves, e.g. `dispatch:w1 open (2/2 started)`. */
  blocking: string[];
  /** Abandoned waves as handoff ids, e.g. `dispatch:w2`. */
  abandoned: string[];
  /** Sanitised, ≤ 500 characters; null when the state is valid. */
  error: string | null;
  /** Leaves of open or sealed waves started and not yet returned, with the handle they were started as (the Stop hook's "waiting on wave"). */
  running?: { wave: string; leaf: string; handle: string }[];
  /** 1-based line of dispatch.json the error points at (the offending wave's key), when invalid. */
  errorLine?: number;
}

/** Fold a valid state into the aggregate (pure). Waves are sorted by id. */
export function aggregateDispatch(s: DispatchState): DispatchAggregate {
  const agg: DispatchAggregate = { resolved: [], blocking: [], abandoned: [], error: null, running: [] };
  for (const id of [...s.waves.keys()].sort()) {
    const w = s.waves.get(id)!;
    const { s: st, r, n } = counts(w);
    if (w.state === "open" || w.state === "sealed") {
      for (const [leaf, start] of w.started)
        if (!w.returned.has(leaf)) agg.running!.push({ wave: id, leaf, handle: start.handle });
    }
    agg.resolved.push(`dispatch:${id}=${w.state};started=${st}/${n};returned=${r}/${n}`);
    if (w.state === "open") agg.blocking.push(`dispatch:${id} open (${st}/${n} started)`);
    else if (w.state === "sealed") agg.blocking.push(`dispatch:${id} sealed (${r}/${n} returned)`);
    else if (w.state === "abandoned") agg.abandoned.push(`dispatch:${id}`);
  }
  return agg;
}

export function invalidAggregate(message: string, line = 1): DispatchAggregate {
  return {
    resolved: ["dispatch:PARSE=invalid"],
    blocking: ["dispatch:PARSE invalid dispatch state"],
    abandoned: [],
    error: escapeField(message, MAX_REASON),
    errorLine: line,
  };
}
