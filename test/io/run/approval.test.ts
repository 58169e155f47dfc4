import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { ApprovalStore, ApprovalStoreError, assertStoreOutside, approvalDirFor } from "../../../src/io/run/approval.ts";
import { runtimeOracle } from "../../../src/core/run/oracle.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/kbz.ts";
import { privateApprovalDir } from "../../helpers/approvals.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
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

describe("approval store", () => {
  test("a recorded oracle is approved; any other oracle, gate or ledger is not", async () => {
    const store = new ApprovalStore(privateApprovalDir(), tempDir());
    expect(store.isApproved(LEDGER, "G1", oracle)).toBe(false);
    const rec = await store.record(LEDGER, "G1", oracle);
    expect(store.isApproved(LEDGER, "G1", oracle)).toBe(true);
    expect(store.isApproved(LEDGER, "G2", oracle)).toBe(false);
    expect(store.isApproved("/w/other.md", "G1", oracle)).toBe(false);
    expect(store.isApproved(LEDGER, "G1", { ...oracle, timeoutMs: 121000 })).toBe(false);
    const value = JSON.parse(fs.readFileSync(rec, "utf8"));
    expect(Object.keys(value)).toEqual(["schema", "file", "gate", "signature", "oracle", "approvedAt"]);
    expect(value.oracle).toEqual(oracle);
    expect(fs.statSync(rec).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${rec}.lock`)).toBe(false);
  });

  test("a missing store means not approved and is not created by reading", () => {
    const dir = path.join(tempDir(), "never-made");
    expect(new ApprovalStore(dir, null).isApproved(LEDGER, "G1", oracle)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  });

  test("recording creates the store with mode 0700", async () => {
    const dir = path.join(tempDir(), "deep", "approved");
    await new ApprovalStore(dir, null).record(LEDGER, "G1", oracle);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("a record whose fields do not match (edited by hand) is not an approval", async () => {
    const store = new ApprovalStore(privateApprovalDir(), null);
    const rec = await store.record(LEDGER, "G1", oracle);
    const v = JSON.parse(fs.readFileSync(rec, "utf8"));
    fs.writeFileSync(rec, JSON.stringify({ ...v, gate: "G9" }));
    expect(store.isApproved(LEDGER, "G1", oracle)).toBe(false);
    fs.writeFileSync(rec, "{not json");
    expect(store.isApproved(LEDGER, "G1", oracle)).toBe(false);
  });

  test("a store that grants group or other permissions is refused", () => {
    const dir = privateApprovalDir();
    fs.chmodSync(dir, 0o755);
    expect(() => new ApprovalStore(dir, null).isApproved(LEDGER, "G1", oracle)).toThrow(
      "must not grant group or other permissions",
    );
  });

  test("a symlinked store is refused", () => {
    const real = privateApprovalDir();
    const link = path.join(tempDir(), "link");
    fs.symlinkSync(real, link);
    expect(() => new ApprovalStore(link, null).isApproved(LEDGER, "G1", oracle)).toThrow("must be a real directory");
  });

  test("a store that resolves inside the repository root is refused", () => {
    const repo = tempDir();
    const inside = path.join(repo, "approved");
    fs.mkdirSync(inside, { mode: 0o700 });
    const alias = path.join(tempDir(), "alias");
    fs.symlinkSync(repo, alias);
    expect(() => new ApprovalStore(path.join(alias, "approved"), repo).isApproved(LEDGER, "G1", oracle)).toThrow(
      "approval directory resolves inside the repository root",
    );
  });

  test("the lexical check: UNLAZY_APPROVAL_DIR inside the root is a usage error", () => {
    expect(() => assertStoreOutside("/repo/.approvals", ["/repo"])).toThrow(UsageError);
    expect(() => assertStoreOutside("/elsewhere", ["/repo"])).not.toThrow();
    expect(approvalDirFor({ UNLAZY_APPROVAL_DIR: "rel/dir" })).toBe(path.resolve("rel/dir"));
  });

  test("a hard-linked record is refused and left unchanged", async () => {
    const dir = privateApprovalDir();
    const store = new ApprovalStore(dir, null);
    const rec = await store.record(LEDGER, "G1", oracle);
    const twin = path.join(dir, "twin");
    fs.linkSync(rec, twin);
    const before = fs.readFileSync(rec);
    expect(() => store.isApproved(LEDGER, "G1", oracle)).toThrow(ApprovalStoreError);
    expect(fs.readFileSync(rec)).toEqual(before);
  });

  test("a symlinked record is refused", async () => {
    const dir = privateApprovalDir();
    const store = new ApprovalStore(dir, null);
    const rec = await store.record(LEDGER, "G1", oracle);
    const elsewhere = path.join(tempDir(), "real.json");
    fs.renameSync(rec, elsewhere);
    fs.symlinkSync(elsewhere, rec);
    expect(() => store.isApproved(LEDGER, "G1", oracle)).toThrow("refusing linked or replaced approval record");
  });

  test("a record replaced by a FIFO is refused without blocking", async () => {
    const dir = privateApprovalDir();
    const store = new ApprovalStore(dir, null);
    const rec = await store.record(LEDGER, "G1", oracle);
    fs.unlinkSync(rec);
    expect(spawnSync("mkfifo", ["-m", "600", rec]).status).toBe(0);
    const t0 = Date.now();
    expect(() => store.isApproved(LEDGER, "G1", oracle)).toThrow("must be a real file");
    expect(Date.now() - t0).toBeLessThan(10_000); // a blocking open would never return
  });

  test("recording fails cleanly when the store's parent is a regular file", async () => {
    const parent = path.join(tempDir(), "file");
    fs.writeFileSync(parent, "x");
    await expect(new ApprovalStore(path.join(parent, "approved"), null).record(LEDGER, "G1", oracle)).rejects.toThrow(
      ApprovalStoreError,
    );
  });

  test("an approval lock held by someone else is never stolen", async () => {
    const dir = privateApprovalDir();
    const store = new ApprovalStore(dir, null);
    const rec = await store.record(LEDGER, "G1", oracle);
    fs.writeFileSync(`${rec}.lock`, JSON.stringify({ owner: "other", pid: 1, at: 0 }));
    const lock = fs.readFileSync(`${rec}.lock`, "utf8");
    // Shrink the wait by racing a timer: the lock must still be there and untouched.
    const pending = store.record(LEDGER, "G1", oracle).catch((e) => e);
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.readFileSync(`${rec}.lock`, "utf8")).toBe(lock);
    fs.unlinkSync(`${rec}.lock`);
    expect(await pending).toBe(rec);
  });

  test("list shows every record, and unreadable ones with their problem; remove deletes by name", async () => {
    const dir = privateApprovalDir();
    const store = new ApprovalStore(dir, null);
    const a = await store.record(LEDGER, "G1", oracle);
    await store.record(LEDGER, "G2", oracle);
    fs.writeFileSync(path.join(dir, "f".repeat(64) + ".json"), "garbage", { mode: 0o600 });
    const all = store.list();
    expect(all.map((x) => x.record?.gate ?? x.problem)).toContain("not a valid approval record");
    expect(
      all
        .filter((x) => x.record)
        .map((x) => x.record!.gate)
        .sort(),
    ).toEqual(["G1", "G2"]);
    expect(store.remove([path.basename(a)])).toEqual([path.basename(a)]);
    expect(store.isApproved(LEDGER, "G1", oracle)).toBe(false);
    expect(store.isApproved(LEDGER, "G2", oracle)).toBe(true);
  });
});
