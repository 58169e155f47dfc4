// Runs before every test file (bunfig.toml). The run gets a private TMPDIR, inherited by every
// process the tests start; after each test the directories it made are removed and the private
// TMPDIR must hold nothing else, or that test fails naming what it left. At the end the private
// TMPDIR is removed, and the run fails if anything was left in it.
import { afterAll, afterEach, beforeEach } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { removeRunDirs, removeTestDirs, setInTest, track, untracked } from "./helpers/tmp.ts";
import { writePolicy } from "../src/io/run/personal.ts";

const outer = fs.realpathSync(os.tmpdir());
const RUN_DIR = fs.mkdtempSync(path.join(outer, "kbz-test-run-"));
process.env.TMPDIR = RUN_DIR;
process.env.KBZ_TEST_OUTER_TMPDIR = outer;

// Tests that name no approval store get one of the run's own, under the agent policy (unlazy's
// consent model, test/helpers/approvals.ts), never the real ~/.unlazy/approved.
const AGENT_STORE_BASE = track(fs.mkdtempSync(path.join(RUN_DIR, "kbz-agent-approvals-")));
fs.chmodSync(AGENT_STORE_BASE, 0o700);
const AGENT_STORE = path.join(AGENT_STORE_BASE, "store");
fs.mkdirSync(AGENT_STORE, { mode: 0o700 });
writePolicy(AGENT_STORE, "agent", "terminal");
process.env.UNLAZY_APPROVAL_DIR = AGENT_STORE;

function leftovers(): string[] {
  return untracked(RUN_DIR);
}

function clear(names: string[]): void {
  for (const n of names) fs.rmSync(path.join(RUN_DIR, n), { recursive: true, force: true });
}

beforeEach(() => setInTest(true));

afterEach(() => {
  setInTest(false);
  removeTestDirs();
  const left = leftovers();
  if (left.length === 0) return;
  clear(left);
  throw new Error(
    `this test left ${left.length} entr${left.length === 1 ? "y" : "ies"} in TMPDIR: ${left.slice(0, 5).join(", ")} (use tempDir() from test/helpers/tmp.ts, or remove what you create)`,
  );
});

afterAll(() => {
  removeRunDirs();
  const left = fs.existsSync(RUN_DIR) ? fs.readdirSync(RUN_DIR) : [];
  fs.rmSync(RUN_DIR, { recursive: true, force: true });
  if (left.length > 0)
    throw new Error(`the test run left ${left.length} entries in TMPDIR: ${left.slice(0, 5).join(", ")}`);
  if (fs.existsSync(RUN_DIR)) throw new Error(`could not remove the run's TMPDIR ${RUN_DIR}`);
});
