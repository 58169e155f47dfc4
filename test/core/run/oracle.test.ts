import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { oracleSignature, runtimeOracle } from "../../../src/core/run/oracle.ts";
import { recordName } from "../../../src/io/run/approval.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const base = {
  check: "echo ok",
  expect: "ok",
  cwd: "/repo/packages/api",
  shell: "/bin/bash",
  timeoutMs: 120000,
  path: "/usr/bin:/bin",
  platform: "darwin",
};

describe("runtime oracle", () => {
  test("keys come in unlazy's order, so signatures of existing approvals still match", () => {
    expect(Object.keys(runtimeOracle(base))).toEqual([
      "schema",
      "check",
      "expect",
      "cwd",
      "shell",
      "timeoutMs",
      "maxOutputBytes",
      "regexTimeoutMs",
      "regexStartupTimeoutMs",
      "maxRegexWorkers",
      "platform",
      "path",
    ]);
    const literal =
      '{"schema":1,"check":"echo ok","expect":"ok","cwd":"/repo/packages/api","shell":"/bin/bash","timeoutMs":120000,' +
      '"maxOutputBytes":1048576,"regexTimeoutMs":250,"regexStartupTimeoutMs":5000,"maxRegexWorkers":4,"platform":"darwin","path":"/usr/bin:/bin"}';
    expect(oracleSignature(runtimeOracle(base))).toBe(sha(literal));
  });

  test("every bound input changes the signature; nothing else is in it", () => {
    const sig = oracleSignature(runtimeOracle(base));
    for (const change of [
      { check: "echo ko" },
      { expect: "ko" },
      { cwd: "/repo" },
      { shell: "/bin/sh" },
      { timeoutMs: 121000 },
      { path: "/bin" },
      { platform: "linux" },
    ]) {
      expect(oracleSignature(runtimeOracle({ ...base, ...change }))).not.toBe(sig);
    }
  });

  test("the record name is sha256(absolute ledger path NUL gate id NUL signature).json", () => {
    const sig = oracleSignature(runtimeOracle(base));
    expect(recordName("/repo/GATES.md", "G1", sig)).toBe(`${sha(`/repo/GATES.md\0G1\0${sig}`)}.json`);
    expect(recordName("/repo/GATES.md", "G2", sig)).not.toBe(recordName("/repo/GATES.md", "G1", sig));
  });
});
