// Every test that may touch approvals gets its own private store, never the real home.
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./tmp.ts";

/** `<tmp>/kbz-approvals-X/store`: its parent also holds the test's HOME (and so its run cache). */
export function privateApprovalDir(): string {
  const base = tempDir("kbz-approvals-");
  fs.chmodSync(base, 0o700);
  const dir = path.join(base, "store");
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** The environment a checking test runs kbz with: a private store and a short, known PATH. */
export function checkEnv(store = privateApprovalDir(), extra: Record<string, string> = {}): Record<string, string> {
  // HOME sits beside the store, never inside it: the store holds approval records only.
  return { UNLAZY_APPROVAL_DIR: store, PATH: "/usr/bin:/bin", UNLAZY_SHELL: "", HOME: path.join(path.dirname(store), "home"), ...extra };
}
