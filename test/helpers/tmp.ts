// Temporary directories of the test run. The preload (test/preload.ts) gives every run its own
// TMPDIR; a directory made while a test runs is removed after that test, one made at file or
// describe level (shared by several tests) at the end of the run. Anything else left in the
// run's TMPDIR is a leak, and the preload fails the test (or the run) that left it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const perTest = new Set<string>();
const perRun = new Set<string>();
let inTest = false;

export function setInTest(value: boolean): void {
  inTest = value;
}

/** Remember a path to remove: after the current test, or at the end of the run outside a test. */
export function track(p: string): string {
  (inTest ? perTest : perRun).add(p);
  return p;
}

/** A fresh, canonical directory under the run's TMPDIR, removed automatically. */
export function tempDir(prefix = "kbz-test-"): string {
  return track(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix))));
}

function remove(paths: Set<string>): void {
  for (const p of paths) {
    try {
      // A test may leave a read-only tree behind (permission tests); make it removable first.
      fs.rmSync(p, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      chmodTree(p);
      fs.rmSync(p, { recursive: true, force: true });
    }
  }
  paths.clear();
}

function chmodTree(p: string): void {
  try {
    const st = fs.lstatSync(p);
    if (!st.isDirectory()) return;
    fs.chmodSync(p, 0o700);
    for (const name of fs.readdirSync(p)) chmodTree(path.join(p, name));
  } catch {}
}

export function removeTestDirs(): void {
  remove(perTest);
}

export function removeRunDirs(): void {
  remove(perTest);
  remove(perRun);
}

/** Entries of `dir` that no registry still owns. */
export function untracked(dir: string): string[] {
  const owned = new Set([...perRun, ...perTest].map((p) => path.relative(dir, p).split(path.sep)[0]));
  return fs.readdirSync(dir).filter((name) => !owned.has(name));
}
