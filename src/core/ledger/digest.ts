// The definition digest binds evidence to CHECK, EXPECT and the raw CWD text (unlazy §2.7).
import { sha256Hex } from "../util/hash.ts";
import type { Gate } from "./model.ts";
import { isRunnable } from "./model.ts";

export { sha256Hex };

export function definitionDigest(check: string, expect: string, cwd: string | null): string {
  return sha256Hex(JSON.stringify(["unlazy.gate-definition", 1, check, expect, cwd]));
}

export function gateDigest(g: Gate): string | null {
  return isRunnable(g) ? definitionDigest(g.check!, g.expect!, g.cwd) : null;
}
