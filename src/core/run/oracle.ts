// The runtime oracle: every input an approval binds (docs/formats.md#approvals). Its JSON key
// order is part of the signature, so existing approval records keep matching.
import { sha256Hex } from "../ledger/digest.ts";
import { MAX_OUTPUT_BYTES } from "../ledger/evidence.ts";
import type { SandboxProfile } from "../../io/run/sandbox.ts";

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
  /** Only for sandboxed runs, last, so unsandboxed oracles keep unlazy's exact signature. */
  sandbox?: SandboxProfile;
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
  return o;
}

export function oracleSignature(o: RuntimeOracle): string {
  return sha256Hex(JSON.stringify(o));
}
