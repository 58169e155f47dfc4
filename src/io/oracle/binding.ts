// The oracle binding of one gate (issue 27; docs/formats.md#oracle): the digests of every file the
// CHECK runs as its oracle (files named in the command, package.json scripts and the files they
// name, the gate's ORACLE: globs) and of the values of its ENV: names, with one signature over
// them. Approvals bind it (core/run/oracle.ts `bound`), passes record it, `kbz approvals explain`
// compares it, and attestations (issue 27's person half) carry its signature.
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../../core/errors.ts";
import type { Gate } from "../../core/ledger/model.ts";
import { oracleRefs, type OracleRef } from "../../core/run/oracle-files.ts";
import { sha256Hex } from "../../core/util/hash.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { expandInputs, MAX_INPUT_FILES } from "../inputs/expand.ts";
import {
  globRegex,
  isBookkeeping,
  isConfigFile,
  isOracleByConvention,
  matchesAny,
} from "../../core/run/conventions.ts";
import { configsFor, reachedFrom } from "./closure.ts";
import type { Env } from "../run/shell.ts";
import { digestText, fileDigest, MAX_ORACLE_FILE_BYTES } from "./digest.ts";
import { boundEnv } from "./env.ts";

/** One bound item, for people: what it is, where it came from and its digest. */
export interface OracleItem {
  /** Root-relative path (absolute outside the root); a script is `<package.json>#scripts.<name>`. */
  key: string;
  digest: string;
  /** How the CHECK reaches it: `node`, `bash`, `npm test`, `ORACLE`, `<`, … */
  via: string;
  /** The file read (the package.json for a script), absolute. */
  abs: string;
}

export interface OracleBinding {
  /** key → digest (sha256 hex, or missing / directory / special / unreadable), sorted by key. */
  files: Record<string, string>;
  /** ENV name → sha256 of `NAME=value`, or "unset" (plus kbz's UNLAZY_SCOPE / KBZ_COORDINATOR when set). */
  env: Record<string, string>;
  /** sha256 of `{"files":…,"env":…}`: what an approval, a pass and an attestation bind. */
  signature: string;
  items: OracleItem[];
  /** Test runners the CHECK calls (lint asks for ORACLE: when there is none). */
  runners: string[];
  /** Programs the CHECK runs by name (io/oracle/programs.ts binds what PATH resolves them to). */
  programs: string[];
  /**
   * Files the CHECK runs or reaches that are bound as oracle only because nothing is declared and
   * no convention says they are tests or configs (a checker outside test folders, a helper beside
   * it): lint and the approve screen ask "the work or the oracle?".
   */
  unsure: string[];
  /** Files left out as the work (declared by WORK:/OWNS:, or application code a test imports). */
  work: string[];
}

/** An ORACLE: entry kbz will not bind (a directory, FIFO, huge file, a path outside the root). */
export class OracleError extends KbzError {
  constructor(message: string, file: string, line: number) {
    super(message, {
      code: "oracle",
      file,
      line,
      hint: "name regular files inside the repository (at most 8 MiB each) in ORACLE:, e.g. ORACLE: test/**, vitest.config.ts",
    });
  }
}

export interface BindingRequest {
  root: string; // canonical
  /** The ledger as shown in errors (root-relative). */
  display: string;
  gate: Gate;
  /** The real CHECK directory (the oracle's cwd). */
  cwd: string;
  env: Env;
  /**
   * A digest cache (io/trace.ts DigestWalk: each file hashed once per read); `compute` hashes the
   * file, `key` is how the binding names it.
   */
  digestOf?: (abs: string, compute: () => string, key: string) => string;
  /** package.json scripts by file, shared by the bindings of one read (each file parsed once). */
  packages?: Map<string, Record<string, unknown> | null>;
  /**
   * Root-relative files bound beyond the static closure: those the tracer saw the CHECK read at its
   * approval (io/oracle/observe.ts), or those a pass record holds (status re-binds its keys).
   */
  observed?: readonly string[];
  /** The ledger's OWNS: (a leaf's files, root-relative): the work of its gates. */
  owns?: readonly string[];
}

/** Files bound at most (the closure and the observed set together); over it, the rest is left out and lint says so. */
export const MAX_ORACLE_FILES = 4096;

const MAX_SCRIPT_DEPTH = 4;

function keyOf(root: string, abs: string): string {
  return isInside(root, abs) && abs !== root ? path.relative(root, abs).split(path.sep).join("/") : abs;
}

function expandHome(p: string, env: Env): string {
  return p === "~" || p.startsWith("~/") ? path.join(env.HOME ?? "/", p.slice(1)) : p;
}

/** The package.json a script of `dir` comes from: the nearest one up to the root. */
function packageJsonFor(root: string, dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, "package.json");
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {}
    if (d === root || !isInside(root, d) || path.dirname(d) === d) return path.join(dir, "package.json");
  }
}

function readScripts(file: string, cache: Map<string, Record<string, unknown> | null>): Record<string, unknown> | null {
  if (cache.has(file)) return cache.get(file)!;
  let scripts: Record<string, unknown> | null = null;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const st = fs.fstatSync(fd);
      if (st.isFile() && st.size <= MAX_ORACLE_FILE_BYTES) {
        const v = JSON.parse(fs.readFileSync(fd, "utf8"));
        scripts = v && typeof v === "object" && v.scripts && typeof v.scripts === "object" ? v.scripts : {};
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  cache.set(file, scripts);
  return scripts;
}

/** The gate's ORACLE: globs, checked and expanded (regular files inside the root, ≤ 8 MiB). */
function declaredFiles(req: BindingRequest, add: (abs: string, via: string) => void): void {
  const globs = req.gate.oracle;
  if (!globs) return;
  const line = (req.gate.attrIndex.ORACLE ?? req.gate.line - 1) + 1;
  const fail = (message: string) => {
    throw new OracleError(message, req.display, line);
  };
  for (const glob of globs) {
    const wild = /[*?]/.test(glob);
    if (!wild) {
      const abs = path.resolve(req.cwd, glob);
      let st: fs.Stats | null = null;
      try {
        st = fs.lstatSync(abs);
      } catch {}
      if (st?.isSymbolicLink()) {
        let real = abs;
        try {
          real = fs.realpathSync(abs);
        } catch {
          fail(`ORACLE ${glob} is a link to nothing; name the file itself`);
        }
        if (!isInside(req.root, real)) fail(`ORACLE ${glob} resolves outside the root (${real})`);
        st = fs.statSync(real);
      }
      if (st?.isDirectory()) fail(`ORACLE ${glob} is a directory; name its files (${glob.replace(/\/+$/, "")}/**)`);
      if (st && !st.isFile()) fail(`ORACLE ${glob} is a FIFO, socket or device, not a regular file`);
      if (st && st.size > MAX_ORACLE_FILE_BYTES)
        fail(`ORACLE ${glob} is over 8 MiB (${st.size} bytes); name the files the test reads, not data`);
      if (!isInside(req.root, abs)) fail(`ORACLE ${glob} is outside the root`);
      add(abs, "ORACLE");
      continue;
    }
    const found = expandInputs(req.cwd, [glob]);
    if (found.truncated) fail(`ORACLE ${glob} matches more than ${MAX_INPUT_FILES} files; narrow it`);
    for (const rel of found.files) {
      const abs = path.join(req.cwd, rel);
      const size = fs.lstatSync(abs).size;
      if (size > MAX_ORACLE_FILE_BYTES)
        fail(`ORACLE ${glob} matches ${rel}, over 8 MiB (${size} bytes); narrow the glob`);
      add(abs, "ORACLE");
    }
  }
}

/** Every file, script and value the gate's CHECK depends on as its oracle, with one signature. */
export function oracleBinding(req: BindingRequest): OracleBinding {
  const { files, items, runners, programs, unsure, work } = boundFiles(req);
  const env = boundEnv(req.env, req.gate.env);
  return { files, env, signature: bindingSignature(files, env), items, runners, programs, unsure, work };
}

/** The bound files alone (key → digest), for readers that compare them with a pass record. */
export function oracleFiles(req: BindingRequest): Record<string, string> {
  return boundFiles(req).files;
}

/** The gate's declared work (WORK: against the CHECK directory, the ledger's OWNS: against the root) as root-relative patterns. */
export function workPatterns(req: Pick<BindingRequest, "root" | "cwd" | "gate" | "owns">): RegExp[] {
  const out: RegExp[] = [];
  const rel = path.relative(req.root, req.cwd).split(path.sep).join("/");
  for (const w of req.gate.work ?? [])
    out.push(globRegex(rel && !rel.startsWith("..") ? `${rel}/${w.replace(/^\.\//, "")}` : w));
  for (const o of req.owns ?? []) out.push(globRegex(o));
  return out;
}

function boundFiles(
  req: BindingRequest,
): Pick<OracleBinding, "files" | "items" | "runners" | "programs" | "unsure" | "work"> {
  const items = new Map<string, OracleItem>();
  const runners = new Set<string>();
  const programs = new Set<string>();
  const unsure = new Set<string>();
  const work = new Set<string>();
  const packages = req.packages ?? new Map<string, Record<string, unknown> | null>();
  const workGlobs = workPatterns(req);
  let hasScripts = false;
  /** Files to follow (their imports, sources, config paths), with whether the importer is a test by convention. */
  const queue: { abs: string; fromTest: boolean }[] = [];
  const isWork = (key: string) => workGlobs.length > 0 && !path.isAbsolute(key) && matchesAny(key, workGlobs);
  const addFile = (abs: string, via: string, declared = false) => {
    const key = keyOf(req.root, abs);
    if (items.has(key)) return;
    if (!declared && isWork(key)) {
      work.add(key);
      return;
    }
    if (items.size >= MAX_ORACLE_FILES) return;
    const compute = () => digestText(fileDigest(abs));
    items.set(key, { key, digest: req.digestOf ? req.digestOf(abs, compute, key) : compute(), via, abs });
    if (!path.isAbsolute(key)) queue.push({ abs, fromTest: isOracleByConvention(key) && !isConfigFile(key) });
  };
  const visit = (command: string, dir: string, depth: number) => {
    const found = oracleRefs(command, dir);
    for (const r of found.runners) runners.add(r);
    for (const p of found.programs) programs.add(p);
    for (const ref of found.refs) visitRef(ref, depth);
  };
  const visitRef = (ref: OracleRef, depth: number) => {
    if (ref.kind === "file" || ref.kind === "config") {
      const abs = path.resolve(req.cwd, expandHome(ref.path, req.env));
      const key = keyOf(req.root, abs);
      // A file the CHECK names, outside the runners' conventions: the oracle until declared (lint asks).
      if (
        ref.kind === "file" &&
        !path.isAbsolute(key) &&
        !isOracleByConvention(key) &&
        !isWork(key) &&
        !(req.gate.oracle ?? []).length
      )
        unsure.add(key);
      addFile(abs, ref.via);
      return;
    }
    hasScripts = true;
    const pkg = packageJsonFor(req.root, path.resolve(req.cwd, ref.dir));
    const scripts = readScripts(pkg, packages);
    const via = ref.manager === "npm" && ref.name === "test" ? "npm test" : `${ref.manager} run ${ref.name}`;
    for (const name of [`pre${ref.name}`, ref.name, `post${ref.name}`]) {
      const key = `${keyOf(req.root, pkg)}#scripts.${name}`;
      if (items.has(key)) continue;
      const text = scripts?.[name];
      const digest =
        scripts === null ? digestText(fileDigest(pkg)) : typeof text === "string" ? sha256Hex(text) : "missing";
      items.set(key, { key, digest, via, abs: pkg });
      if (typeof text === "string" && depth < MAX_SCRIPT_DEPTH) visit(text, path.dirname(pkg), depth + 1);
    }
  };
  if (req.gate.check) visit(req.gate.check, req.cwd, 0);
  declaredFiles(req, (abs, via) => addFile(abs, via, true));
  for (const c of configsFor([...programs], [...runners], hasScripts, req.cwd, req.root)) addFile(c, "config");
  for (const key of req.observed ?? []) {
    if (key.includes("#scripts.") || path.isAbsolute(key) || key.startsWith("..")) continue;
    addFile(path.join(req.root, key), "observed");
  }
  // The static closure: what the bound files import, source or name as their configs.
  for (let i = 0; i < queue.length && items.size < MAX_ORACLE_FILES; i++) {
    const { abs, fromTest } = queue[i]!;
    for (const next of reachedFrom(abs, req.root, req.cwd)) {
      const key = keyOf(req.root, next);
      if (items.has(key) || isBookkeeping(key)) continue;
      // Application code a test imports is the work; what a checker outside test folders reaches is the oracle, and unsure.
      if (!isOracleByConvention(key)) {
        if (fromTest) {
          work.add(key);
          continue;
        }
        if (!isWork(key)) unsure.add(key);
      }
      addFile(next, "import");
    }
  }
  const sorted = [...items.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const files: Record<string, string> = {};
  for (const i of sorted) files[i.key] = i.digest;
  for (const k of work) if (items.has(k)) work.delete(k);
  return {
    files,
    items: sorted,
    runners: [...runners],
    programs: [...programs],
    unsure: [...unsure].filter((k) => items.has(k) && items.get(k)!.digest !== "missing").sort(),
    work: [...work].sort(),
  };
}

export function bindingSignature(files: Record<string, string>, env: Record<string, string>): string {
  return sha256Hex(JSON.stringify({ files, env }));
}

/** True when the binding holds nothing: the oracle is the CHECK text alone (unlazy's approval). */
export function isEmptyBinding(b: Pick<OracleBinding, "files" | "env">): boolean {
  return Object.keys(b.files).length === 0 && Object.keys(b.env).length === 0;
}

/**
 * The oracle binding of `gate` of `ledgerFile` (for callers outside `kbz check`: attestations,
 * `kbz approve`, the dashboard). `cwd` is the real CHECK directory; without it, the gate's CWD
 * against the root, which is right for discovered and scope ledgers (an explicit ledger outside a
 * scope runs from its own folder: pass `task.oracle.cwd` there). `env` defaults to this process's.
 */
export function gateOracle(
  root: string,
  ledgerFile: string,
  gate: Gate,
  opts: { cwd?: string; env?: Env } = {},
): OracleBinding {
  let cwd = opts.cwd ?? path.resolve(root, gate.cwd ?? ".");
  try {
    cwd = fs.realpathSync(cwd);
  } catch {}
  const display = isInside(root, ledgerFile) ? path.relative(root, ledgerFile) : ledgerFile;
  return oracleBinding({ root, display, gate, cwd, env: opts.env ?? process.env });
}
