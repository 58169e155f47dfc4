// INPUTS: evidence bound to what the CHECK observed (issue 18; unlazy issue 22).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { reasonOf, stopHook } from "../helpers/hook.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import { gateDigest } from "../../src/core/ledger/digest.ts";
import { INPUTS_DIR } from "../../src/io/inputs/records.ts";

setDefaultTimeout(120_000);

const LEDGER =
  "# Gates: oracle\n\n- [ ] G1: target.txt holds the approved value\n  CHECK: sh oracle.sh\n  EXPECT: ok\n  INPUTS: target.txt\n  EVIDENCE: pending\n";
const ORACLE = "grep -qx good target.txt && echo ok\n";

function repo() {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": LEDGER, "oracle.sh": ORACLE, "target.txt": "good\n" });
  const env = agentEnv();
  return { dir, env, status: () => kbz(["status"], { cwd: dir, env }) };
}

describe("INPUTS", () => {
  test("the unlazy issue-22 reproduction: a changed target.txt makes status exit 1 naming it and the Stop hook block", () => {
    const { dir, env, status } = repo();
    expect(kbz(["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    expect(status().code).toBe(0);
    fs.writeFileSync(path.join(dir, "target.txt"), "bad\n"); // a value the oracle rejects
    const s = status();
    expect(s.code).toBe(1);
    expect(s.stdout).toMatch(/STALE +GATES:G1 \(input changed: target\.txt\)/);
    const json = JSON.parse(kbz(["status", "--json"], { cwd: dir, env }).stdout);
    expect(json.gates[0].reason).toBe("STALE (input changed: target.txt)");
    expect(reasonOf(stopHook({ cwd: dir, session_id: "s22", hook_event_name: "Stop" }, { env }))).toContain(
      "GATES:G1 STALE (input changed: target.txt)",
    );
  });

  test("restoring target.txt makes the gate met again without a re-run only if the digest matches", () => {
    const { dir, env, status } = repo();
    expect(kbz(["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    fs.writeFileSync(path.join(dir, "target.txt"), "good \n"); // close, but not the bytes observed
    expect(status().code).toBe(1);
    fs.writeFileSync(path.join(dir, "target.txt"), "good\n");
    expect(status().code).toBe(0);
    fs.rmSync(path.join(dir, "target.txt"));
    // Issue 39: an INPUTS entry that now covers nothing says so (it was "input changed").
    expect(status().stdout).toMatch(/STALE +GATES:G1 \(.*INPUTS target\.txt matches no regular file/);
  });

  test("the evidence line keeps the original format: the same bytes as for the gate without INPUTS (unlazy reads it unchanged)", () => {
    const { dir, env } = repo();
    expect(kbz(["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    const text = fs.readFileSync(path.join(dir, "GATES.md"), "utf8");
    const evidence = /^  EVIDENCE: (.*)$/m.exec(text)![1]!;
    expect(evidence).toMatch(
      /^automatic-evidence=v1; definition-sha256=[0-9a-f]{64}; exit=0; EXPECT=matched; output-sha256=[0-9a-f]{64}; output-bytes=3; shell=\/bin\/sh; cwd=.*; path=[0-9a-f]{12}\/2 entries$/,
    );
    // What the original sees: the INPUTS line is prose to it, so the gate is the same gate.
    const withoutInputs = text.replace(/^  INPUTS: .*\n/m, "");
    const a = parseLedger(text, "GATES").gates[0]!;
    const b = parseLedger(withoutInputs, "GATES").gates[0]!;
    expect(gateDigest(a)).toBe(gateDigest(b));
    expect(evidence).toContain(`definition-sha256=${gateDigest(b)}`);
    fs.writeFileSync(path.join(dir, "GATES.md"), withoutInputs);
    expect(kbz(["status"], { cwd: dir, env }).code).toBe(0);
    // The digests live in kbz's record files, not in the ledger.
    expect(fs.readdirSync(path.join(dir, INPUTS_DIR)).length).toBe(1);
  });

  test("a gate met without a recorded input digest (evidence written elsewhere) is stale until re-verified", () => {
    const { dir, env, status } = repo();
    expect(kbz(["check", "--approve"], { cwd: dir, env }).code).toBe(0);
    fs.rmSync(path.join(dir, INPUTS_DIR), { recursive: true });
    expect(status().stdout).toMatch(/STALE +GATES:G1 \(no input digest recorded/);
    expect(kbz(["check", "--reverify"], { cwd: dir, env }).code).toBe(0);
    expect(status().code).toBe(0);
  });

  test("INPUTS outside the CHECK directory is a parse error", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": LEDGER.replace("INPUTS: target.txt", "INPUTS: ../secret, /etc/passwd") });
    const r = kbz(["status"], { cwd: dir, env: agentEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("GATES.md:6: INPUTS path must stay inside the CHECK directory: ../secret");
  });
});
