import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";
import { agentEnv, approvalRecords } from "../helpers/approvals.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const gate = (id: string, check: string) =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ok\n  EVIDENCE: pending\n`;

async function approved() {
  const dir = tempDir();
  writeTree(dir, {
    "GATES.md": [gate("G1", "printf ok"), gate("G2", "printf ok # two")].join("\n"),
    "other.md": gate("G1", "printf ok"),
  });
  const env = agentEnv();
  expect((await runCli(["check", "--approve"], { cwd: dir, env })).code).toBe(0);
  expect((await runCli(["check", "--approve", "other.md"], { cwd: dir, env })).code).toBe(0);
  const run = async (...args: string[]) => await runCli(["approvals", ...args], { cwd: dir, env });
  return { dir, env, run, store: env.UNLAZY_APPROVAL_DIR! };
}

describe("kbz approvals", () => {
  test("list shows file, gate, check, approval time and the bindings (issue 20.8); --json gives one object", async () => {
    const { dir, run } = await approved();
    const r = await run("list");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  ${path.join(dir, "GATES.md")} G1: printf ok  (approved `);
    expect(r.stdout.trimEnd().split("\n").pop()).toMatch(/^3 approval record\(s\) in /);
    const j = JSON.parse((await run("list", "--json")).stdout);
    expect(j.schema).toBe(1);
    expect(j.records.map((x: any) => `${path.basename(x.file)}:${x.gate}`).sort()).toEqual([
      "GATES.md:G1",
      "GATES.md:G2",
      "other.md:G1",
    ]);
    expect(Object.keys(j.records[0])).toEqual([
      "name",
      "file",
      "gate",
      "check",
      "expect",
      "cwd",
      "shell",
      "path",
      "timeoutMs",
      "platform",
      "sandbox",
      "oracleFiles",
      "env",
      "approvedAt",
      "problem",
    ]);
  });

  test("list sanitizes control characters from records", async () => {
    const { store, run } = await approved();
    const [name] = approvalRecords(store);
    const rec = JSON.parse(fs.readFileSync(path.join(store, name!), "utf8"));
    rec.approvedAt = "2026\u001b[2J";
    fs.writeFileSync(path.join(store, name!), JSON.stringify(rec));
    expect((await run("list")).stdout).not.toContain("\u001b");
  });

  test("revoke by ledger and gate removes only that record, and the gate needs approval again", async () => {
    const { dir, env, run, store } = await approved();
    const r = await run("revoke", "GATES.md", "G2");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("revoked 1 approval record(s)");
    expect(approvalRecords(store).length).toBe(2);
    expect((await runCli(["check", "--reverify"], { cwd: dir, env })).stdout).toContain("APPROVAL REQUIRED GATES:G2");
  });

  test("revoke by record name, and revoking nothing exits 1", async () => {
    const { run, store } = await approved();
    const [name] = approvalRecords(store);
    expect((await run("revoke", "--record", name!.replace(/\.json$/, ""))).code).toBe(0);
    expect(fs.existsSync(path.join(store, name!))).toBe(false);
    expect((await run("revoke", "missing.md")).code).toBe(1);
  });

  test("prune removes records whose ledger is gone or whose oracle changed, and keeps the rest", async () => {
    const { dir, run, store } = await approved();
    fs.rmSync(path.join(dir, "other.md"));
    const file = path.join(dir, "GATES.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("printf ok # two", "printf ok # changed"));
    const j = JSON.parse((await run("prune", "--json")).stdout);
    expect(j.pruned.map((x: any) => `${path.basename(x.file)}:${x.gate}:${x.reason}`).sort()).toEqual([
      "GATES.md:G2:oracle changed",
      "other.md:G1:ledger no longer exists",
    ]);
    expect(approvalRecords(store).length).toBe(1);
  });

  test("an unsafe store is reported with exit 2", async () => {
    const { run, store } = await approved();
    fs.chmodSync(store, 0o755);
    const r = await run("list");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("must not grant group or other permissions");
  });

  test("bad arguments are usage errors", async () => {
    const { run } = await approved();
    expect((await run("revoke")).code).toBe(2);
    expect((await run("list", "extra")).code).toBe(2);
    expect((await run("explode")).code).toBe(2);
  });
});
