// The dashboard's view op: what its watcher watches, its one cache, one read per event.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { DashCache, DashboardReader } from "../../src/ops/dashboard.ts";
import { isWatchedPath } from "../../src/ops/dashboardWatch.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv } from "../helpers/approvals.ts";

describe("watched paths", () => {
  const root = "/r";
  test("ledgers, gates/ and .unlazy/ are watched; temp files, lock mutexes and other folders are not", () => {
    for (const p of ["/r", "/r/GATES.md", "/r/gates", "/r/gates/a.md", "/r/.unlazy", "/r/.unlazy/s/PLAN.md", "/r/.unlazy/s/gates/leaf-1.md", "/r/.unlazy/locks/abc.lease"]) {
      expect(isWatchedPath(root, p)).toBe(true);
    }
    for (const p of ["/r/src", "/r/node_modules/x", "/r/.unlazy/s/gates/leaf-1.md.123.abc.tmp", "/r/.unlazy/locks/abc.filelock", "/elsewhere/GATES.md", "/r/gates/sub/deep.md"]) {
      expect(isWatchedPath(root, p)).toBe(false);
    }
  });
});

describe("the dashboard's one cache", () => {
  test("an unchanged file is not read again; a rename write and an in-place write of the same size are", () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    fs.writeFileSync(file, "- [ ] G1: one\n  EVIDENCE: pending\n");
    const cache = new DashCache();
    const a = cache.load(file, root, true);
    expect(cache.load(file, root, true)).toBe(a);
    writeAtomic(file, "- [x] G1: one\n  EVIDENCE: reviewed\n");
    const b = cache.load(file, root, true);
    expect(b).not.toBe(a);
    expect(b.ledger!.gates[0]!.checked).toBe(true);
    const st = fs.statSync(file);
    fs.writeFileSync(file, "- [x] G1: two\n  EVIDENCE: reviewed\n");
    fs.utimesSync(file, st.atime, st.mtime);
    const c = cache.load(file, root, true);
    expect(c.ledger!.gates[0]!.title).toBe("two");
  });
  test("an unreadable file is never cached", () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    fs.writeFileSync(file, Buffer.from([0x41, 0xff]));
    const cache = new DashCache();
    expect(cache.load(file, root, true).unreadable).toBe(true);
    fs.writeFileSync(file, "- [ ] G1: ok\n  EVIDENCE: pending\n");
    expect(cache.load(file, root, true).unreadable).toBe(false);
  });
});


describe("the dashboard reader", () => {
  test("a read whose inputs did not change hands back the same view; a change gives a new one", () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": "# G\n\n- [ ] G1: one\n  EVIDENCE: pending\n" });
    const reader = new DashboardReader({ root, scope: null, slots: 4, env: checkEnv() });
    const a = reader.read();
    expect(reader.read()).toBe(a);
    writeAtomic(path.join(root, "GATES.md"), "# G\n\n- [x] G1: one\n  EVIDENCE: reviewed\n");
    const b = reader.read();
    expect(b).not.toBe(a);
    expect(b.kind === "ready" && b.data.report.verdict).toBe("all-met");
  });

  test("the scope it opened stays open when a second scope appears (the scopes are listed, no picker)", () => {
    const root = tempDir();
    const ledger = "# G\n\n- [ ] G1: one\n  EVIDENCE: pending\n";
    writeTree(root, { ".unlazy/web/GATES.md": ledger });
    const reader = new DashboardReader({ root, scope: null, slots: 4, env: checkEnv() });
    const a = reader.read();
    expect(a.kind === "ready" && a.data.snapshot.target.scope).toBe("web");
    writeTree(root, { ".unlazy/api/GATES.md": ledger });
    const b = reader.read();
    expect(b.kind).toBe("ready");
    expect(b.kind === "ready" && b.data.snapshot.target.scope).toBe("web");
    expect(b.kind === "ready" && b.data.scopes).toEqual(["api", "web"]);
    // A fresh reader with no scope chosen asks.
    expect(new DashboardReader({ root, scope: null, slots: 4, env: checkEnv() }).read().kind).toBe("pick");
    void fs;
  });
});
