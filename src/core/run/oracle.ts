// The runtime oracle: every input an approval binds (docs/formats.md#approvals). Its JSON key
// order is part of the signature, so existing approval records keep matching.
import { sha256Hex } from "../ledger/digest.ts";
import { MAX_OUTPUT_BYTES } from "../ledger/evidence.ts";
import type { SandboxProfile } from "./show.ts";

export const REGEX_TIMEOUT_MS = 250;
export const REGEX_STARTUP_TIMEOUT_MS = 5000;
export const MAX_REGEX_WORKERS = 4;

export interface RuntimeOracle {
  schema: 1;
  check: string;
  expect: string;
  cwd: string;
  shell: string;
  timeoutMs: number;
  maxOutputBytes: number;
  regexTimeoutMs: number;
  regexStartupTimeoutMs: number;
  maxRegexWorkers: number;
  platform: string;
  /**
   * The caller's PATH. Signed only in records without `programs` (unlazy's and kbz's before issue
   * 39); with `programs`, it is kept for people to read and the signature leaves it out.
   */
  path: string;
  /** Only for sandboxed runs, so unsandboxed oracles keep unlazy's exact signature. */
  sandbox?: SandboxProfile;
  /**
   * The oracle's files and ENV values (issue 27; docs/formats.md#oracle), last, and only when the
   * CHECK runs files or declares ORACLE:/ENV:, so a CHECK that runs no file keeps unlazy's signature.
   */
  bound?: BoundOracle;
  /**
   * Issue 39: what PATH resolves, not the PATH string: each program the CHECK runs by name, as
   * `<real path> <digest or identity>`, and the PATH folders inside the root (io/oracle/programs.ts).
   */
  programs?: ProgramsOracle;
}

export interface ProgramsOracle {
  /** What found the oracle's files: "strace" (the CHECK's process tree, observed) or "static" (the closure alone; io/oracle/observe.ts). */
  observer: "strace" | "static";
  /** PATH folders inside the root, root-relative, in PATH order. */
  pathInRoot: string[];
  /** Program name → `<real path> <sha256 | dev:ino:size:mtime>` or "not found". */
  resolved: Record<string, string>;
}

/** Digests of what the CHECK runs beyond its text: file key → digest, ENV name → value digest. */
export interface BoundOracle {
  files: Record<string, string>;
  env: Record<string, string>;
}

export interface OracleInput {
  check: string;
  expect: string;
  cwd: string; // resolved
  shell: string; // resolved
  timeoutMs: number;
  path: string; // full PATH
  platform?: string;
  sandbox?: SandboxProfile | null;
  bound?: BoundOracle | null;
  programs?: ProgramsOracle | null;
}

export function runtimeOracle(i: OracleInput): RuntimeOracle {
  const o: RuntimeOracle = {
    schema: 1,
    check: i.check,
    expect: i.expect,
    cwd: i.cwd,
    shell: i.shell,
    timeoutMs: i.timeoutMs,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    regexTimeoutMs: REGEX_TIMEOUT_MS,
    regexStartupTimeoutMs: REGEX_STARTUP_TIMEOUT_MS,
    maxRegexWorkers: MAX_REGEX_WORKERS,
    platform: i.platform ?? process.platform,
    path: i.path,
  };
  if (i.sandbox) o.sandbox = i.sandbox;
  if (i.bound && (Object.keys(i.bound.files).length > 0 || Object.keys(i.bound.env).length > 0)) {
    o.bound = { files: i.bound.files, env: i.bound.env };
  }
  if (i.programs)
    o.programs = { observer: i.programs.observer, pathInRoot: i.programs.pathInRoot, resolved: i.programs.resolved };
  return o;
}

/** The digest an approval binds: the whole oracle, less the PATH string when the programs it resolves are bound instead. */
export function oracleSignature(o: RuntimeOracle): string {
  return sha256Hex(JSON.stringify(o.programs ? { ...o, path: undefined } : o));
}
