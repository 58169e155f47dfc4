// The oracle digest cache (io/oracle/identity.ts) must never be a way to fake a met gate. Status
// trusts a checker's recorded digest without re-hashing it while the file's identity (device,
// inode, size, mtime, ctime) is the one kbz saw when it hashed it. An agent can restore a file's
// size and mtime (`touch -d`), and even keep its inode, but not its ctime: each write sets it to
// the clock, and no call lets a user set it. Every act below is the agent's, from its own shell:
// no terminal, CLAUDECODE=1, under the default person policy, on the binary. The person approves
// once, through `script -qec` without markers.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree, withLabel } from "../helpers/kbz.ts";
import { checkEnv, personRun } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

// Two gates share one checker; the third runs it through `npm test`.
const LEDGER = [
  "- [ ] G1: two and two make four",
  "  CHECK: node check.mjs",
  "  EXPECT: ADD_OK",
  "",
  "- [ ] G2: the sum is printed once",
  "  CHECK: node check.mjs && printf ONCE",
  "  EXPECT: /ADD_OK\\nONCE/",
  "",
].join("\n");
const CHECKER = 'import { add } from "./add.mjs";\nconsole.log(add(2, 2) === 4 ? "ADD_OK" : "ADD_NO");\n';
// The agent's checker: the same size, byte for byte, and it prints the token whatever add does.
const FAKE = 'import { add } from "./add.mjs";\nconsole.log(add(2, 2) === 5 ? "ADD_NO" : "ADD_OK");\n';
const ADD = "export const add = (a, b) => a + b;\n";

/** Nanosecond mtime as `touch -d` reads it. */
const touchArg = (ns: bigint) => `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;

function workspace() {
  expect(FAKE.length).toBe(CHECKER.length);
  const dir = tempDir();
  writeTree(dir, { "GATES.md": LEDGER, "check.mjs": CHECKER, "add.mjs": ADD });
  // kbz records a file's identity only when its last change is older than the clock's coarsest
  // step it allows for (io/oracle/identity.ts): wait that long, as a checker written earlier is.
  Bun.sleepSync(2_200);
  const env = checkEnv(undefined, { PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` });
  const agentEnv = { ...env, CLAUDECODE: "1" };
  const agent = (...args: string[]) => kbz(args, { cwd: dir, env: agentEnv });
  const status = () => agent("status", "--all");
  const hook = () =>
    kbz(["hook", "stop"], {
      cwd: dir,
      env: agentEnv,
      input: JSON.stringify({ session_id: `s-${Math.random()}`, cwd: dir, hook_event_name: "Stop" }),
    }).stdout;
  expect(personRun(BIN, ["check", "--approve"], { cwd: dir, env }).code).toBe(0);
  const w = { dir, env, agent, status, hook, checker: path.join(dir, "check.mjs") };
  expectDone(w);
  return w;
}
type W = ReturnType<typeof workspace>;

function expectDone(w: Pick<W, "status" | "hook">): void {
  const s = w.status();
  expect(s.stdout.trimEnd().split("\n").pop()).toMatch(/^ALL MET \(2 met\)/);
  expect(s.code).toBe(0);
  expect(w.hook()).toBe("");
}

function expectStale(w: W, gates: Record<string, RegExp>): void {
  const s = w.status();
  expect(s.code).toBe(1);
  expect(s.stdout).not.toContain("ALL MET");
  const h = w.hook();
  expect(JSON.parse(h).decision).toBe("block");
  for (const [gate, reason] of Object.entries(gates)) {
    const line = s.stdout.split("\n").find((l) => l.includes(`GATES:${gate}`));
    expect(line).toBeDefined();
    expect(withLabel(line!)).toMatch(reason);
    expect(h).toContain(`GATES:${gate}`);
  }
}

function oracleRecordFile(w: W): string {
  const dir = path.join(w.dir, ".kbz", "oracles");
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  expect(names.length).toBe(1);
  return path.join(dir, names[0]!);
}

const CHANGED = /STALE \(oracle changed: check\.mjs; needs a person's approval again\)/;

describe("the oracle digest cache never hides a changed checker", () => {
  test("the pass record carries the checker's identity, so status takes the cached path", () => {
    const w = workspace();
    const rec = JSON.parse(fs.readFileSync(oracleRecordFile(w), "utf8"));
    const st = fs.statSync(w.checker, { bigint: true });
    for (const g of ["G1", "G2"]) {
      expect(rec.gates[g].stat["check.mjs"]).toBe(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
      // Its CHECK names only files: the reader may take the recorded set without reading the CHECK again.
      expect(rec.gates[g].filesFrom).toBe(fs.realpathSync(w.dir));
    }
    // Read again and again: nothing changed, nothing is re-judged.
    expectDone(w);
  });

  test("a checker rewritten in place to the same size, its mtime restored with touch -d, is STALE for both gates; the hook blocks", () => {
    const w = workspace();
    const before = fs.statSync(w.checker, { bigint: true });
    fs.writeFileSync(w.checker, FAKE); // in place: the same inode
    expect(spawnSync("touch", ["-m", "-d", touchArg(before.mtimeNs), w.checker]).status).toBe(0);
    const after = fs.statSync(w.checker, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect(after.ctimeNs).not.toBe(before.ctimeNs);
    expectStale(w, { G1: CHANGED, G2: CHANGED });
    // The checker as it was, its mtime restored again: its content is what was approved, so met.
    fs.writeFileSync(w.checker, CHECKER);
    expect(spawnSync("touch", ["-m", "-d", touchArg(before.mtimeNs), w.checker]).status).toBe(0);
    expectDone(w);
  });

  test("a checker replaced by rename with the old size and mtime is STALE", () => {
    const w = workspace();
    const before = fs.statSync(w.checker, { bigint: true });
    const tmp = path.join(w.dir, "check.tmp");
    fs.writeFileSync(tmp, FAKE);
    expect(spawnSync("touch", ["-m", "-d", touchArg(before.mtimeNs), tmp]).status).toBe(0);
    fs.renameSync(tmp, w.checker);
    expectStale(w, { G1: CHANGED, G2: CHANGED });
  });

  test("forging the checker's identity in one gate's pass record fools neither that gate nor the gate that shares the checker", () => {
    const w = workspace();
    const before = fs.statSync(w.checker, { bigint: true });
    fs.writeFileSync(w.checker, FAKE);
    expect(spawnSync("touch", ["-m", "-d", touchArg(before.mtimeNs), w.checker]).status).toBe(0);
    const now = fs.statSync(w.checker, { bigint: true });
    const file = oracleRecordFile(w);
    const rec = JSON.parse(fs.readFileSync(file, "utf8"));
    // G1 comes first in the ledger: its forged record must not vouch for the file G2 reads too.
    rec.gates.G1.stat["check.mjs"] = `${now.dev}:${now.ino}:${now.size}:${now.mtimeNs}:${now.ctimeNs}`;
    fs.writeFileSync(file, JSON.stringify(rec));
    expectStale(w, { G1: /UNATTESTED|STALE \(oracle changed/, G2: CHANGED });
  });

  test("an ORACLE: line added to a met gate after its pass binds its oracle afresh: the new file is a change", () => {
    const w = workspace();
    const ledger = path.join(w.dir, "GATES.md");
    // add.mjs is already bound (check.mjs imports it: the static closure, issue 39): name a file nothing reached.
    fs.writeFileSync(path.join(w.dir, "notes.txt"), "expected sums\n");
    fs.writeFileSync(
      ledger,
      fs.readFileSync(ledger, "utf8").replace("  EXPECT: ADD_OK\n", "  EXPECT: ADD_OK\n  ORACLE: notes.txt\n"),
    );
    expectStale(w, { G1: /STALE \(oracle changed: notes\.txt; needs a person's approval again\)/ });
  });

  test("the checker's directory swapped for a link to a copy with a rewritten checker is STALE", () => {
    const w = workspace();
    // The ledger names the checker through a folder the agent can retarget.
    const lib = path.join(w.dir, "lib");
    fs.mkdirSync(lib);
    fs.renameSync(w.checker, path.join(lib, "check.mjs"));
    fs.writeFileSync(path.join(lib, "add.mjs"), ADD);
    const ledger = path.join(w.dir, "GATES.md");
    fs.writeFileSync(ledger, fs.readFileSync(ledger, "utf8").replaceAll("node check.mjs", "node lib/check.mjs"));
    Bun.sleepSync(2_200);
    expect(personRun(BIN, ["check", "--approve"], { cwd: w.dir, env: w.env }).code).toBe(0);
    expectDone(w);
    const copy = path.join(w.dir, "lib2");
    fs.mkdirSync(copy);
    fs.writeFileSync(path.join(copy, "check.mjs"), FAKE);
    fs.writeFileSync(path.join(copy, "add.mjs"), ADD);
    fs.renameSync(lib, path.join(w.dir, "lib.orig"));
    fs.symlinkSync("lib2", lib);
    expectStale(w, { G1: /STALE \(oracle changed: lib\/check\.mjs/, G2: /STALE \(oracle changed: lib\/check\.mjs/ });
  });

  test("a checker edited and restored within the same second of its last change, before any pass, is hashed (no identity recorded)", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": LEDGER, "check.mjs": CHECKER, "add.mjs": ADD });
    const env = checkEnv(undefined, { PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` });
    expect(personRun(BIN, ["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    // Written a moment ago: its identity could still be shared by a write in the same clock step.
    const rec = JSON.parse(
      fs.readFileSync(path.join(dir, ".kbz", "oracles", fs.readdirSync(path.join(dir, ".kbz", "oracles"))[0]!), "utf8"),
    );
    expect(rec.gates.G1.stat?.["check.mjs"]).toBeUndefined();
    fs.writeFileSync(path.join(dir, "check.mjs"), FAKE);
    const s = kbz(["status"], { cwd: dir, env: { ...env, CLAUDECODE: "1" } });
    expect(s.code).toBe(1);
    expect(s.stdout.split("\n").map(withLabel).join("\n")).toMatch(CHANGED);
  });
});
