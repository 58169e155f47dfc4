// Every test that may touch approvals gets its own private store, never the real home.
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./tmp.ts";

export function privateApprovalDir(): string {
  const dir = tempDir("kbz-approvals-");
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** The environment a checking test runs kbz with: a private store and a short, known PATH. */
export function checkEnv(store = privateApprovalDir(), extra: Record<string, string> = {}): Record<string, string> {
  return { UNLAZY_APPROVAL_DIR: store, PATH: "/usr/bin:/bin", UNLAZY_SHELL: "", HOME: path.join(store, "home"), ...extra };
}
