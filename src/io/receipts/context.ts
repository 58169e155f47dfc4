// The context fingerprint (docs/formats.md#receipts): what a receipt is bound to. The value is one sha256;
// the fingerprint beside it keeps a digest per part so `explain` can name what moved.
import * as fs from "node:fs";
import * as path from "node:path";
import { unfencedLines, contractRevision } from "../../core/plan/table.ts";
import type { Env } from "../run/shell.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import { ReadError } from "../../core/errors.ts";
import { readScopeText } from "../read.ts";
import { VerificationError } from "../../core/receipts/errors.ts";
import { normalizedDefinition, type LedgerRead } from "./ledger.ts";
import { localPath } from "./paths.ts";
import { currentVerifier, type Verifier } from "./verifier.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { expandInputs } from "../inputs/expand.ts";
import { digestFile } from "../inputs/records.ts";
import { gateOracle } from "../oracle/binding.ts";

export interface Policy {
  inputs: string[]; // sorted unique literal relative paths
  env: string[]; // sorted unique extra environment variable names
  closed: boolean;
  /** Present (true) only with --portable: PATH is left out of the runtime binding. */
  portable?: true;
}

export const MAX_FILES = 10_000;
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RUNTIME_ENV = ["ComSpec", "NODE_OPTIONS", "PATH", "UNLAZY_SHELL"];
const SHORT = 16;

/** What a receipt remembers per part; digests only, never environment values themselves. */
export interface Fingerprint {
  definition: string; // sha256 of the normalized definition
  gates: Record<string, string[]>; // id → short digests of [title, CHECK, EXPECT, CWD, ABANDON reason]
  contractRevision: string | null;
  inputs: Record<string, string>; // path → "absent" | "directory" | sha256 of the bytes
  runtime: { platform: string; arch: string; env: Record<string, string | null> }; // env: sha256 of each value
  verifier: Verifier;
  /**
   * Issue 42 item 6: what the ledger's gates depend on beyond the policy: each gate's INPUTS
   * files and its oracle (the files and ENV values its approval binds), by root-relative path
   * (absolute outside the root; `env:NAME` for a value) → digest. Absent in older receipts.
   */
  depends?: Record<string, string>;
}

export interface Context {
  value: string;
  fingerprint: Fingerprint;
}

export interface ContextOptions {
  env: Env;
  verifier?: Verifier;
  /**
   * A ledger's text (by receipt key) from the read the verb already made; undefined: read the
   * file here. A verb that holds its scope's read audits from it instead of opening ledgers again.
   */
  ledgerText?: (key: string) => string | null | undefined;
}

const short = (s: string | null) => sha256Hex(JSON.stringify(s)).slice(0, SHORT);

function gateParts(led: LedgerRead): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const g of led.doc.gates) {
    out[g.id] = [g.title, g.check, g.expect, g.cwd, led.doc.abandons.get(g.id)?.reason ?? null].map(short);
  }
  return out;
}

/** Ledgers under `.unlazy/<scope>/` bind the scope PLAN's contract revision, read fence-aware (docs/formats.md#fixes). */
function scopedRevision(root: string, key: string): string | null {
  const parts = key.split("/");
  if (parts[0] !== ".unlazy" || parts.length < 3) return null;
  const shown = `.unlazy/${parts[1]}/PLAN.md`;
  let text: string | null;
  try {
    text = readScopeText(root, parts[1]!, "PLAN.md");
  } catch (e) {
    if (e instanceof ReadError)
      throw new VerificationError("scope PLAN needs one contract revision", {
        file: shown,
        line: e.line,
        detail: e.message,
      });
    throw e;
  }
  if (text === null) return null;
  const rev = contractRevision(unfencedLines(text));
  if (rev.digits === null)
    throw new VerificationError("scope PLAN needs one contract revision", { file: shown, line: rev.line ?? 1 });
  return rev.digits;
}

/** Refuse inputs that are verification metadata or contain the ledger itself. */
function checkInput(rel: string, key: string, name: string): void {
  if (
    rel === "" ||
    rel === ".unlazy" ||
    rel.startsWith(".unlazy/verification") ||
    rel === ".unlazy/locks" ||
    rel.startsWith(".unlazy/locks/")
  ) {
    throw new VerificationError("declare artifact inputs separately from verification metadata", { path: name });
  }
  if (rel === key || key.startsWith(rel + "/"))
    throw new VerificationError("input must not contain its own ledger", { path: name });
}

/**
 * Every declared path and everything below it: `absent`, `directory` or the sha256 of the file's
 * bytes. Deliberate fixes: binary files are hashed as bytes instead of refused (docs/formats.md#fixes), and
 * the list is in code-unit order, never locale collation (docs/formats.md#fixes).
 */
export function inventory(root: string, names: string[]): Map<string, string> {
  // First the walk (lstat only), so limits fail fast before any byte is hashed.
  const found = new Map<string, string>();
  const files: { abs: string; rel: string; st: fs.Stats }[] = [];
  let bytes = 0;
  const visit = (abs: string, rel: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      found.set(rel, "absent");
      return;
    }
    if (st.isSymbolicLink()) throw new VerificationError("linked snapshot input is unsupported", { path: rel });
    if (st.isDirectory()) {
      found.set(rel, "directory");
      for (const name of fs.readdirSync(abs).sort()) visit(path.join(abs, name), `${rel}/${name}`);
      return;
    }
    if (!st.isFile() || st.nlink !== 1)
      throw new VerificationError("snapshot inputs must be regular single-link files", { path: rel });
    if (files.length >= MAX_FILES) throw new VerificationError("snapshot exceeds 10000 files");
    bytes += st.size;
    if (bytes > MAX_TOTAL_BYTES) throw new VerificationError("snapshot exceeds 64 MiB");
    if (st.size > MAX_FILE_BYTES) throw new VerificationError("snapshot input exceeds 8 MiB", { path: rel });
    found.set(rel, "file");
    files.push({ abs, rel, st });
  };
  for (const name of names) {
    const { abs, rel } = localPath(root, name);
    if (!found.has(rel)) visit(abs, rel);
  }
  for (const f of files) found.set(f.rel, sha256Hex(readInput(f.abs, f.rel, f.st)));
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const sameFile = (a: fs.Stats, b: fs.Stats) =>
  a.dev === b.dev &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeMs === b.mtimeMs &&
  a.ctimeMs === b.ctimeMs &&
  b.nlink === 1 &&
  b.isFile();

/**
 * One input file's bytes, stable: the open file must be the very inode the walk saw inside the
 * root (so a parent swapped for a link afterwards cannot redirect the read) and must not change
 * while it is read. Lighter than the general stable reader: the walk already did the lstat and
 * the containment, and audits of thousands of files are the hot path (bench/verify.ts).
 */
function readInput(abs: string, rel: string, seen: fs.Stats): Buffer {
  const unstable = () =>
    new VerificationError("snapshot inputs must be regular single-link files", {
      path: rel,
      detail: "changed while it was read",
    });
  let fd: number;
  try {
    fd = fs.openSync(abs, OPEN_FLAGS);
  } catch {
    throw unstable();
  }
  try {
    if (!sameFile(seen, fs.fstatSync(fd))) throw unstable();
    const buf = Buffer.allocUnsafe(seen.size + 1);
    let total = 0;
    for (let n; (n = fs.readSync(fd, buf, total, buf.length - total, null)) > 0; ) {
      total += n;
      if (total > seen.size) throw unstable();
    }
    if (total !== seen.size || !sameFile(seen, fs.fstatSync(fd))) throw unstable();
    return buf.subarray(0, total);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runtime names: the shell-shaping variables plus the declared ones; `--portable` drops PATH. */
export function runtimeNames(policy: Policy): string[] {
  const names = new Set([...RUNTIME_ENV, ...policy.env]);
  if (policy.portable) names.delete("PATH");
  return [...names].sort();
}

export function checkPolicy(policy: Policy): void {
  if (!Array.isArray(policy.inputs) || policy.inputs.length === 0)
    throw new VerificationError("verification inputs are required");
  for (const name of policy.env)
    if (!ENV_NAME.test(name)) throw new VerificationError("invalid environment input", { path: name });
}

/**
 * Issue 42 item 6: a receipt depends on at least what its gates depend on, so it is never current
 * while a gate it covers is stale: each gate's INPUTS files (from its CHECK directory: the root,
 * or its CWD, as `verify run` runs it) and the oracle its approval binds (io/oracle/binding.ts:
 * the files the CHECK runs, a package.json's scripts and the files they name, its ORACLE: files,
 * its ENV values). Keys are root-relative paths (absolute outside the root) or `env:NAME`.
 */
export function gateDependencies(root: string, led: LedgerRead, env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  let realRoot = root;
  try {
    realRoot = fs.realpathSync(root);
  } catch {}
  const keyOf = (abs: string) =>
    isInside(realRoot, abs) ? path.relative(realRoot, abs).split(path.sep).join("/") : abs;
  for (const g of led.doc.gates) {
    let cwd = path.resolve(root, g.cwd ?? ".");
    try {
      cwd = fs.realpathSync(cwd);
    } catch {}
    if (g.inputs) {
      const expanded = expandInputs(cwd, g.inputs);
      if (expanded.truncated) out[`${g.id} INPUTS`] = "too-many";
      const dirs = new Map<string, string | null>();
      for (const rel of expanded.files) {
        const abs = path.join(cwd, rel);
        out[keyOf(abs)] = digestFile(realRoot, abs, dirs) ?? "unreadable";
      }
    }
    if (!g.check) continue;
    try {
      const b = gateOracle(root, led.abs, g, { cwd, env });
      for (const [k, d] of Object.entries(b.files)) out[path.isAbsolute(k) ? keyOf(k) : k] = d;
      for (const [n, d] of Object.entries(b.env)) out[`env:${n}`] = d;
    } catch (e) {
      out[`${g.id} oracle`] = `unbindable: ${(e as Error).message}`;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `context(root, file, policy)`: validates the policy and inputs, then fingerprints everything bound. */
export function computeContext(root: string, led: LedgerRead, policy: Policy, opts: ContextOptions): Context {
  checkPolicy(policy);
  for (const name of policy.inputs) checkInput(localPath(root, name).rel, led.key, name);
  const definition = normalizedDefinition(led.text);
  const revision = scopedRevision(root, led.key);
  const input = inventory(root, policy.inputs);
  const names = runtimeNames(policy);
  const envPairs = names.map((n) => [n, opts.env[n] ?? null] as const);
  const verifier = opts.verifier ?? currentVerifier();
  const runtime = [process.platform, process.arch, envPairs];
  const depends = gateDependencies(root, led, opts.env);
  const hasDepends = Object.keys(depends).length > 0;
  const value = sha256Hex(
    JSON.stringify({
      schema: 1,
      key: led.key,
      definition,
      contractRevision: revision,
      policy,
      input: [...input],
      runtime,
      verifier: [verifier.name, verifier.version, verifier.build],
      // Only when there is any: a ledger whose gates bind nothing keeps verify-once's value.
      ...(hasDepends ? { depends } : {}),
    }),
  );
  const envDigests: Record<string, string | null> = {};
  for (const [n, v] of envPairs) envDigests[n] = v === null ? null : sha256Hex(v);
  return {
    value,
    fingerprint: {
      definition: sha256Hex(definition),
      gates: gateParts(led),
      contractRevision: revision,
      inputs: Object.fromEntries(input),
      runtime: { platform: process.platform, arch: process.arch, env: envDigests },
      verifier,
      ...(hasDepends ? { depends } : {}),
    },
  };
}
