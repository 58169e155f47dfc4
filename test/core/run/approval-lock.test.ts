// Approval store locks (issue 15): recovered like workspace locks, litter removed, errors name
// the file and the holder.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { ApprovalStore, recordName } from "../../../src/io/run/approval.ts";
import { oracleSignature, runtimeOracle } from "../../../src/core/run/oracle.ts";
import { tempDir } from "../../helpers/kbz.ts";
import { privateApprovalDir } from "../../helpers/approvals.ts";

setDefaultTimeout(120_000);

const oracle = runtimeOracle({
  check: "echo ok",
  expect: "ok",
  cwd: "/w",
  shell: "/bin/sh",
  timeoutMs: 120000,
  path: "/usr/bin:/bin",
});
const LEDGER = "/w/GATES.md";
/** A pid that was alive a moment ago and is not now. */
const deadPid = () => spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();
const owner = (pid: number | string, host = os.hostname()) =>
  JSON.stringify({ token: "a".repeat(24), pid: Number(pid), host, target: "t", at: "2026-01-01T00:00:00.000Z" });

describe("approval store locks", () => {
  test("a lock left by a holder that is gone (same host) is recovered at once", async () => {
    const dir = privateApprovalDir();
    const rec = path.join(dir, recordName(LEDGER, "G1", oracleSignature(oracle)));
    fs.writeFileSync(`${rec}.lock`, owner(deadPid()), { mode: 0o600 });
    const store = new ApprovalStore(dir, tempDir());
    expect(await store.record(LEDGER, "G1", oracle)).toBe(rec);
    // kbz/ holds the kept oracle bytes (io/run/kept.ts), not a lock or a temp.
    expect(fs.readdirSync(dir).filter((f) => f !== "kbz")).toEqual([path.basename(rec)]);
  });

  test("stray temp files and staged lock records of crashed writers are removed; a live writer's are kept", async () => {
    const dir = privateApprovalDir();
    const name = recordName(LEDGER, "G1", oracleSignature(oracle));
    const dead = deadPid();
    const strays = [`${name}.${dead}.0123456789abcdef.tmp`, `${name}.lock.${dead}-${"b".repeat(24)}.new`];
    fs.writeFileSync(path.join(dir, strays[0]!), "{", { mode: 0o600 });
    fs.writeFileSync(path.join(dir, strays[1]!), owner(dead), { mode: 0o600 });
    const live = `${name}.${process.pid}.fedcba9876543210.tmp`;
    fs.writeFileSync(path.join(dir, live), "{", { mode: 0o600 });
    await new ApprovalStore(dir, tempDir()).record(LEDGER, "G1", oracle);
    expect(
      fs
        .readdirSync(dir)
        .filter((f) => f !== "kbz")
        .sort(),
    ).toEqual([name, live].sort());
  });

  test("a live holder's lock is never stolen, and the timeout names the file and the holder", async () => {
    const dir = privateApprovalDir();
    const rec = path.join(dir, recordName(LEDGER, "G1", oracleSignature(oracle)));
    fs.writeFileSync(`${rec}.lock`, owner(process.pid === 1 ? 2 : 1), { mode: 0o600 });
    const store = new ApprovalStore(dir, tempDir());
    const err = await store.record(LEDGER, "G1", oracle).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain(`${rec}.lock`);
    expect(err?.message).toMatch(/held by pid 1 on host .* \(alive\)/);
    expect(fs.readFileSync(`${rec}.lock`, "utf8")).toBe(owner(1));
  });

  test("approvals prune clears a gone holder's lock and stray temps", async () => {
    const dir = privateApprovalDir();
    const name = recordName(LEDGER, "G1", oracleSignature(oracle));
    fs.writeFileSync(path.join(dir, `${name}.lock`), owner(deadPid()), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, `${name}.${deadPid()}.0123456789abcdef.tmp`), "", { mode: 0o600 });
    expect(new ApprovalStore(dir, tempDir()).sweepLitter().length).toBe(2);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
