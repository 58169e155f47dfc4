// Attestations bind the oracle a pass ran under (issue 27, docs/formats.md#attestations): kbz's
// record of a pass, kept in the approval store outside the repository, carries the digest of the
// oracle pass record (.kbz/oracles/), so an agent with a shell cannot make a rewritten checker
// read as met by deleting or editing what kbz keeps in the repository, nor by deleting kbz's
// records in the store. Every act below is the agent's: no terminal, CLAUDECODE=1, under the
// default person policy; the person approves once, in a pseudo-terminal without markers.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree, withLabel } from "../helpers/kbz.ts";
import { checkEnv, personRun } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

const LEDGER =
  "- [ ] G1: two and two make four\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  WORK: add.mjs\n  EVIDENCE: pending\n\n- [ ] G2: the build prints OK\n  CHECK: printf BUILD_OK\n  EXPECT: BUILD_OK\n  EVIDENCE: pending\n";
const CHECKER = 'import { add } from "./add.mjs";\nconsole.log(add(2, 2) === 4 ? "ADD_OK" : "ADD_WRONG");\n';
const FAKE_CHECKER = 'console.log("ADD_OK");\n';

/** A workspace whose two gates a person approved and kbz passed: ALL MET, attested. */
function approvedWorkspace() {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": LEDGER, "check.mjs": CHECKER, "add.mjs": "export const add = (a, b) => a + b;\n" });
  const env = checkEnv(undefined, { PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` });
  const agentEnv = { ...env, CLAUDECODE: "1" };
  const store = env.UNLAZY_APPROVAL_DIR!;
  const agent = (...args: string[]) => kbz(args, { cwd: dir, env: agentEnv });
  // --all: status lists met gates too (by default it prints what is not met and the counts).
  const status = () => agent("status", "--all");
  const hook = () =>
    kbz(["hook", "stop"], {
      cwd: dir,
      env: agentEnv,
      input: JSON.stringify({ session_id: `s-${Math.random()}`, cwd: dir, hook_event_name: "Stop" }),
    }).stdout;
  const p = personRun(BIN, ["check", "--approve"], { cwd: dir, env });
  expect(p.code).toBe(0);
  const w = { dir, env, store, agent, status, hook };
  expectDone(w);
  return w;
}

type W = ReturnType<typeof approvedWorkspace>;

function expectBlocked(w: W, gate: string, reason: RegExp): void {
  const s = w.status();
  expect(s.code).toBe(1);
  const line = s.stdout.split("\n").find((l) => l.includes(gate));
  expect(line).toBeDefined();
  expect(withLabel(line!)).toMatch(reason);
  expect(s.stdout).not.toContain("ALL MET");
  const h = w.hook();
  expect(JSON.parse(h).decision).toBe("block");
  expect(h).toContain(gate);
}

function expectDone(w: Pick<W, "status" | "hook">): void {
  const s = w.status();
  expect(s.stdout.trimEnd().split("\n").pop()).toMatch(/^ALL MET \(\d+ met\)/);
  expect(s.code).toBe(0);
  expect(w.hook()).toBe("");
}

const oraclesDir = (w: W) => path.join(w.dir, ".kbz", "oracles");
const attestDir = (w: W) => path.join(w.store, "kbz", "attest");
function onlyFile(dir: string): string {
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  expect(names.length).toBe(1);
  return path.join(dir, names[0]!);
}

describe("the attestation binds the oracle pass record", () => {
  test("rewriting the checker and deleting .kbz/oracles/ is UNATTESTED, never met; the Stop hook blocks", () => {
    const w = approvedWorkspace();
    fs.writeFileSync(path.join(w.dir, "check.mjs"), FAKE_CHECKER);
    expectBlocked(w, "GATES:G1", /STALE \(oracle changed: check\.mjs/);
    fs.rmSync(oraclesDir(w), { recursive: true });
    expectBlocked(w, "GATES:G1", /UNATTESTED \(kbz's record of the oracle this pass ran under is missing or altered/);
    // Nothing the agent can run brings it back without the work: kbz check judges it against the
    // approved checker (the rewritten one is a proposal for the person).
    fs.writeFileSync(path.join(w.dir, "add.mjs"), "export const add = (a, b) => a - b;\n");
    const r = w.agent("check", "--reverify");
    expect(r.stdout).toContain("ORACLE EDITED check.mjs: judged against the approved version");
    expect(r.code).toBe(1);
    expectBlocked(w, "GATES:G1", /UNATTESTED|STALE|UNMET|FAILED|APPROVAL/);
  });

  test("deleting only the ledger's oracle pass record is UNATTESTED; an honest kbz check --reverify re-attests it", () => {
    const w = approvedWorkspace();
    fs.rmSync(onlyFile(oraclesDir(w)));
    expectBlocked(w, "GATES:G1", /UNATTESTED/);
    // G2 runs no file: it has no oracle pass record to lose, and stays met.
    expect(w.status().stdout).toMatch(/^\s*MET\s+GATES:G2: /m);
    const r = w.agent("check", "--reverify");
    expect(r.code).toBe(0);
    expectDone(w);
  });

  test("editing the oracle pass record to the rewritten checker's digest is UNATTESTED", () => {
    const w = approvedWorkspace();
    fs.writeFileSync(path.join(w.dir, "check.mjs"), FAKE_CHECKER);
    const file = onlyFile(oraclesDir(w));
    const rec = JSON.parse(fs.readFileSync(file, "utf8"));
    const digest = new Bun.CryptoHasher("sha256").update(FAKE_CHECKER).digest("hex");
    for (const k of Object.keys(rec.gates.G1.files)) if (k.endsWith("check.mjs")) rec.gates.G1.files[k] = digest;
    fs.writeFileSync(file, JSON.stringify(rec));
    // Whatever digest form the store uses, the record no longer matches what kbz attested.
    expectBlocked(w, "GATES:G1", /UNATTESTED|STALE \(oracle changed/);
  });

  test("deleting kbz's attestation records in the approval store is UNATTESTED for every met gate", () => {
    const w = approvedWorkspace();
    fs.rmSync(attestDir(w), { recursive: true });
    expectBlocked(w, "GATES:G1", /UNATTESTED \(kbz has no record of this pass/);
    expectBlocked(w, "GATES:G2", /UNATTESTED \(kbz has no record of this pass/);
  });

  test("an attestation file edited by hand (its MAC no longer verifies) is UNATTESTED", () => {
    const w = approvedWorkspace();
    const file = onlyFile(attestDir(w));
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace(/"G2"/, '"G3"'), { mode: 0o600 });
    expectBlocked(w, "GATES:G1", /UNATTESTED/);
  });

  test("the attestation is compact: a digest per gate, never the evidence text", () => {
    const w = approvedWorkspace();
    const text = fs.readFileSync(onlyFile(attestDir(w)), "utf8");
    const evidence = fs
      .readFileSync(path.join(w.dir, "GATES.md"), "utf8")
      .match(/EVIDENCE: (automatic-evidence=[^\n]*)/)![1]!;
    expect(text).not.toContain(evidence);
    expect(text).not.toContain("check.mjs");
    expect(text.length).toBeLessThan(600);
  });
});
