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
  path: string;
  /** Only for sandboxed runs, so unsandboxed oracles keep unlazy's exact signature. */
  sandbox?: SandboxProfile;
  /**
   * The oracle's files and ENV values (issue 27; docs/formats.md#oracle), last, and only when the
   * CHECK runs files or declares ORACLE:/ENV:, so a CHECK that runs no file keeps unlazy's signature.
   */
  bound?: BoundOracle;
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
  if (i.bound && (Object.keys(i.bound.files).length > 0 || Object.keys(i.bound.env).length > 0))
    o.bound = { files: i.bound.files, env: i.bound.env };
  return o;
}

export function oracleSignature(o: RuntimeOracle): string {
  return sha256Hex(JSON.stringify(o));
}
