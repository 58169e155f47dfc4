// The definition digest binds evidence to CHECK, EXPECT and the raw CWD text (docs/formats.md#evidence).
import { sha256Hex } from "../util/hash.ts";
import type { Gate } from "./model.ts";
import { isRunnable } from "./model.ts";

export { sha256Hex };

/** sha256 of JSON.stringify(["unlazy.gate-definition", 1, CHECK, EXPECT, CWD or null]), built by hand. */
export function definitionDigest(check: string, expect: string, cwd: string | null): string {
  const c = cwd === null ? "null" : JSON.stringify(cwd);
  return sha256Hex(`["unlazy.gate-definition",1,${JSON.stringify(check)},${JSON.stringify(expect)},${c}]`);
}

export function gateDigest(g: Gate): string | null {
  return isRunnable(g) ? definitionDigest(g.check!, g.expect!, g.cwd) : null;
}
