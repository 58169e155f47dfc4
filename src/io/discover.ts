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
  /** With `sessionId`: whether a bound session is live on its scope (io/hook/guard.ts holdsSession); absent: never. */
  held?: (scope: string, session: string) => boolean;
}

export function resolveTarget(o: ResolveOptions): Target {
  const root = o.root;
  if (o.files && o.files.length > 0) {
    return { root, mode: "explicit", scope: null, files: o.files.map((f) => path.resolve(root, f)), discoveryErrors: [] };
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
    throw new UsageError(`no such scope "${o.scope}" under .unlazy/ (have: ${scopes.length ? scopes.join(", ") : "none"})`);
  }
  // The only scope, unless the hook asks for another session than the one bound to it while that
  // session is live (the hook holds it to the scope): then this stop is not the scope's to judge,
  // so only the solo ledgers are (fixes unlazy bug: with one scope the Stop hook ignored the
  // session binding, unlazy issue 38). A binding no live session holds (a made-up one) hides nothing.
  if (scopes.length === 1 && !(o.sessionId && boundElsewhere(root, scopes[0]!, o.sessionId, o.held))) return scopeTarget(root, scopes[0]!);
  if (scopes.length > 1) {
    const bound = o.sessionId ? scopes.filter((s) => coordination(root).session(s) === o.sessionId) : [];
    if (bound.length === 1) return scopeTarget(root, bound[0]!);
    if (!o.sessionId) {
      throw new UsageError(
        `${scopes.length} scopes present (${scopes.join(", ")}); pass --scope <id> or set UNLAZY_SCOPE. Refusing to guess.`,
      );
    }
    // The Stop hook: the scopes no live session of another holds are this session's to finish. One
    // is judged as the only scope; several are judged together with the solo ledgers, so creating a
    // second scope never hides the first (fixes unlazy bug: with several scopes and none bound to
    // the session, the Stop hook did not block at all). None left: the solo ledgers, as below.
    const open = scopes.filter((s) => !boundElsewhere(root, s, o.sessionId!, o.held));
    if (open.length === 1) return scopeTarget(root, open[0]!);
    if (open.length > 1) return scopesTarget(root, open);
  }
  const errors: DiscoveryError[] = [];
  const files = ledgerEntries(root, root, errors);
  if (files.length > 0 || errors.length > 0) return { root, mode: "legacy", scope: null, files, discoveryErrors: errors };
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

function boundElsewhere(root: string, scope: string, sessionId: string, held?: (scope: string, session: string) => boolean): boolean {
  const bound = coordination(root).session(scope);
  return bound !== null && bound !== sessionId && (held?.(scope, bound) ?? false);
}

/** Several scopes judged at once (the Stop hook, none bound to its session): their ledgers after the solo ones. */
function scopesTarget(root: string, scopes: string[]): Target {
  const errors: DiscoveryError[] = [];
  const files = [root, ...scopes.map((s) => path.join(root, ".unlazy", s))].flatMap((dir) => ledgerEntries(root, dir, errors));
  return { root, mode: "legacy", scope: null, files, discoveryErrors: errors };
}

function scopeTarget(root: string, scope: string): Target {
  const errors: DiscoveryError[] = [];
  const files = ledgerEntries(root, path.join(root, ".unlazy", scope), errors);
  return { root, mode: "scope", scope, files, discoveryErrors: errors };
}
