// Issue 39's WORK: declaration, from the agent's side: declaring the approved checker as work after
// the approval never makes the gate met. On the binary; the agent has CLAUDECODE=1 and no terminal,
// the person approves in script -qec with the hosts' markers removed.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv, personRun } from "../helpers/approvals.ts";

const CHECKER = "import { add } from './add.mjs';\nconsole.log(add(2, 2) === 4 ? 'ADD_OK' : 'ADD_WRONG');\n";
const gate = (work: string) => `- [ ] G1: add adds\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  WORK: ${work}\n`;

describe("the agent declares the approved checker as its work", () => {
  test("WORK: check.mjs added after the approval, the checker rewritten to print ADD_OK: not met, status 1", () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md": gate("add.mjs"),
      "check.mjs": CHECKER,
      "add.mjs": "export const add = (a, b) => a - b;\n",
    });
    const env = agentEnv();
    expect(personRun(BIN, ["check", "--approve"], { cwd: dir, env }).output).toContain("APPROVED GATES:G1");
    fs.writeFileSync(path.join(dir, "check.mjs"), "console.log('ADD_OK');\n");
    fs.writeFileSync(path.join(dir, "GATES.md"), gate("add.mjs, check.mjs"));
    const agent = { ...env, CLAUDECODE: "1" };
    const ch = kbz(["check"], { cwd: dir, env: agent });
    expect(ch.code).toBe(1);
    expect(ch.stdout).toContain("oracle file no longer run: check.mjs");
    expect(ch.stdout).not.toContain("ALL MET");
    expect(kbz(["status"], { cwd: dir, env: agent }).code).toBe(1);
  });
});
