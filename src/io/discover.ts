// Root, scope and ledger discovery (docs/formats.md#layout), shared by every command and the hook.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { isValidId, SCOPE_ID_MESSAGE } from "../core/workspace/ids.ts";
import { isInside } from "../core/workspace/inside.ts";
import type { DiscoveryError, Target } from "../core/workspace/target.ts";
import { coordination } from "./coordination/active.ts";

export function canonicalRoot(root: string): string {
  const abs = path.resolve(root);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`--root is not an existing directory: ${abs}`);
  }
  if (!st.isDirectory()) throw new UsageError(`--root is not an existing directory: ${abs}`);
  return fs.realpathSync(abs);
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/** `.unlazy` must itself be a real directory inside the root. */
function unlazyDir(root: string): { dir: string; ok: boolean; exists: boolean } {
  const dir = path.join(root, ".unlazy");
  const st = lstatOrNull(dir);
  if (!st) return { dir, ok: false, exists: false };
  return { dir, ok: st.isDirectory() && !st.isSymbolicLink() && isInside(root, fs.realpathSync(dir)), exists: true };
}

export function listScopes(root: string): string[] {
  const u = unlazyDir(root);
  if (!u.ok) return [];
  const out: string[] = [];
  for (const name of fs.readdirSync(u.dir).sort()) {
    if (name === "locks" || !isValidId(name)) continue;
    const p = path.join(u.dir, name);
    const st = lstatOrNull(p);
    if (!st || !st.isDirectory() || st.isSymbolicLink()) continue;
    if (!isInside(root, fs.realpathSync(p))) continue;
    out.push(name);
  }
  return out;
}

/** GATES.md plus gates/*.md under `dir`, as named entries of any type (the reader rejects non-files). */
function ledgerEntries(root: string, dir: string, errors: DiscoveryError[]): string[] {
  const files: string[] = [];
  const gates = path.join(dir, "GATES.md");
  if (lstatOrNull(gates)) files.push(gates);
  const gdir = path.join(dir, "gates");
  const st = lstatOrNull(gdir);
  if (st) {
    if (!st.isDirectory() || st.isSymbolicLink() || !isInside(root, fs.realpathSync(gdir))) {
      errors.push({ path: gdir, message: "gates directory must be a real directory inside the repository" });
    } else {
      for (const name of fs.readdirSync(gdir).sort()) if (name.endsWith(".md")) files.push(path.join(gdir, name));
    }
  }
  return files;
}

export interface ResolveOptions {
  root: string; // canonical
  files?: string[];
  scope?: string | null; // explicit --scope or UNLAZY_SCOPE
  sessionId?: string | null; // only the hook knows one
  /**
   * With `sessionId`: what the Stop hook saw (io/hook/holds.ts), asked for only when a binding
   * has to be judged (a scope bound to another session, or this session bound among several
   * scopes); absent: nobody is live.
   */
  holds?: () => Holds;
}

/** Who is live on which scope (io/hook/holds.ts readHolds). */
export interface Holds {
  liveOn(scope: string, session: string): boolean;
}

/** A scope the Stop hook does not judge for this session, and the session it is bound to (null: unbound). */
export interface LeftScope {
  scope: string;
  session: string | null;
}

/** The Stop hook's target for one session: what it judges, which scopes that is, which it leaves. */
export interface SessionTarget {
  target: Target;
  /** The scopes judged (their stops are recorded as holds). */
  judged: string[];
  /** The scopes left to other sessions (named in the answer when they are unmet). */
  left: LeftScope[];
}

export function resolveTarget(o: ResolveOptions): Target {
  const root = o.root;
  if (o.files && o.files.length > 0) {
    return {
      root,
      mode: "explicit",
      scope: null,
      files: o.files.map((f) => path.resolve(root, f)),
      discoveryErrors: [],
    };
  }
  const scopes = listScopes(root);
  if (o.scope) {
    if (!isValidId(o.scope)) throw new UsageError(SCOPE_ID_MESSAGE);
    if (scopes.includes(o.scope)) return scopeTarget(root, o.scope);
    const u = unlazyDir(root);
    const named = path.join(u.dir, o.scope);
    if (lstatOrNull(named) || (u.exists && !u.ok)) {
      return {
        root,
        mode: "scope",
        scope: o.scope,
        files: [],
        discoveryErrors: [{ path: named, message: "scope directory must be a real directory inside the repository" }],
      };
    }
    throw new UsageError(
      `no such scope "${o.scope}" under .unlazy/ (have: ${scopes.length ? scopes.join(", ") : "none"})`,
    );
  }
  if (o.sessionId) return sessionTarget(root, scopes, o.sessionId, o.holds).target;
  if (scopes.length === 1) return scopeTarget(root, scopes[0]!);
  if (scopes.length > 1) {
    throw new UsageError(
      `${scopes.length} scopes present (${scopes.join(", ")}); pass --scope <id> or set UNLAZY_SCOPE. Refusing to guess.`,
    );
  }
  return soloTarget(root);
}

/**
 * The Stop hook's target for `sessionId` (no scope pinned): the scopes this session must finish.
 *
 * A binding (`kbz scope bind`, `.unlazy/<scope>/session`) is written by the agent, so it is a
 * claim, never a proof. A scope bound to another session B is left to B (not judged for this
 * session S) only when the hook itself saw both facts, in the approval store where the agent's
 * repository edits do not reach (io/hook/holds.ts): B is live on it (the hook counted a stop of
 * B on that scope in the last 24 h), and S is not (a scope that held S keeps holding S, whatever
 * the binding says later). So a made-up binding hides nothing, a forged `hook-state.json` proves
 * nothing, and a fake Stop payload for a made-up session piped into `kbz hook stop` after S was
 * held cannot release S. What no rule here can tell apart: fake payloads for B sent BEFORE S's
 * first stop, from a real second session (both are the same bytes on stdin from the same user);
 * the hook then leaves the scope to B and says so in its answer when the scope is unmet
 * (docs/formats.md#layout, "session binding").
 *
 * A scope nobody is bound to is every session's: it is judged for each (fixes unlazy bug: a
 * session bound to one of several scopes was judged there only, so binding itself to an empty
 * scope hid the unmet one). A session bound to a scope of its own (unlazy's parallel sessions,
 * each bound to its scope) leaves the scopes bound to other sessions to them, unless it is live on
 * one itself; an unbound session leaves them only once the hook saw that session live there.
 * With one scope: judged unless left to another session (fixes unlazy bug, unlazy issue 38: the
 * hook ignored the binding). The judged scopes: one as the only scope, several together with the
 * solo ledgers (fixes unlazy bug: with several scopes and none bound to the session, the hook did
 * not block at all). None judged: the solo ledgers. The store is read only when a binding is judged.
 */
export function sessionTarget(root: string, scopes: string[], sessionId: string, holds?: () => Holds): SessionTarget {
  const bindings = new Map(scopes.map((s) => [s, coordination(root).session(s)] as const));
  let seen: Holds | null = null;
  const live = (scope: string, session: string) =>
    (seen ??= holds?.() ?? { liveOn: () => false }).liveOn(scope, session);
  const mine = scopes.some((s) => bindings.get(s) === sessionId);
  const leftTo = (s: string): boolean => {
    const bound = bindings.get(s) ?? null;
    if (bound === null || bound === sessionId || live(s, sessionId)) return false;
    return mine || live(s, bound);
  };
  const judged = scopes.filter((s) => !leftTo(s));
  const left = scopes.filter((s) => !judged.includes(s)).map((s) => ({ scope: s, session: bindings.get(s) ?? null }));
  const target =
    judged.length === 1
      ? scopeTarget(root, judged[0]!)
      : judged.length > 1
        ? scopesTarget(root, judged)
        : soloTarget(root);
  return { target, judged, left };
}

function soloTarget(root: string): Target {
  const errors: DiscoveryError[] = [];
  const files = ledgerEntries(root, root, errors);
  if (files.length > 0 || errors.length > 0)
    return { root, mode: "legacy", scope: null, files, discoveryErrors: errors };
  return { root, mode: "none", scope: null, files: [], discoveryErrors: [] };
}

/**
 * A scope's target with the solo ledgers (root `GATES.md`, `gates/*.md`) in front: status and the
 * Stop hook judge them together with the pipeline, always. unlazy's discovery took the scope alone,
 * so a scope created for one task hid an unmet solo gate (fixes unlazy bug: a scope hid the solo ledger).
 */
export function withSoloLedgers(t: Target): Target {
  if (t.mode !== "scope") return t;
  const errors: DiscoveryError[] = [];
  const solo = ledgerEntries(t.root, t.root, errors);
  if (solo.length === 0 && errors.length === 0) return t;
  return { ...t, files: [...solo, ...t.files], discoveryErrors: [...errors, ...t.discoveryErrors] };
}

/** Several scopes judged at once (the Stop hook): their ledgers after the solo ones. */
function scopesTarget(root: string, scopes: string[]): Target {
  const errors: DiscoveryError[] = [];
  const files = [root, ...scopes.map((s) => path.join(root, ".unlazy", s))].flatMap((dir) =>
    ledgerEntries(root, dir, errors),
  );
  return { root, mode: "legacy", scope: null, files, discoveryErrors: errors, scopes };
}

function scopeTarget(root: string, scope: string): Target {
  const errors: DiscoveryError[] = [];
  const files = ledgerEntries(root, path.join(root, ".unlazy", scope), errors);
  return { root, mode: "scope", scope, files, discoveryErrors: errors };
}
