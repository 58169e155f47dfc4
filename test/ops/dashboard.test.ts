// The dashboard's view op: what its watcher watches, its one cache, one read per event.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { DashCache, DashboardReader } from "../../src/ops/dashboard.ts";
import { isWatchedPath, watchWorkspace, workspaceFolders, type Changed } from "../../src/ops/dashboardWatch.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { resolveTarget } from "../../src/io/discover.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv } from "../helpers/approvals.ts";

describe("watched paths", () => {
  const root = "/r";
  test("ledgers, gates/ and .unlazy/ are watched; temp files, lock mutexes and other folders are not", () => {
    for (const p of [
      "/r",
      "/r/GATES.md",
      "/r/gates",
      "/r/gates/a.md",
      "/r/.unlazy",
      "/r/.unlazy/s/PLAN.md",
      "/r/.unlazy/s/gates/leaf-1.md",
      "/r/.unlazy/locks/abc.lease",
    ]) {
      expect(isWatchedPath(root, p)).toBe(true);
    }
    for (const p of ["/r/.kbz", "/r/.kbz/failures", "/r/.kbz/failures/0123.json"])
      expect(isWatchedPath(root, p)).toBe(true);
    for (const p of ["/r/.kbz/inputs/0123.json", "/r/.kbz/failures/x/y"]) expect(isWatchedPath(root, p)).toBe(false);
    for (const p of [
      "/r/src",
      "/r/node_modules/x",
      "/r/.unlazy/s/gates/leaf-1.md.123.abc.tmp",
      "/r/.unlazy/locks/abc.filelock",
      "/elsewhere/GATES.md",
      "/r/gates/sub/deep.md",
    ]) {
      expect(isWatchedPath(root, p)).toBe(false);
    }
  });
});

/** Collect the watcher's bursts; `next` waits for the first burst after it is called. */
function bursts(root: string) {
  const seen: Changed[] = [];
  let wake: (() => void) | null = null;
  const w = watchWorkspace(root, (c) => {
    seen.push(c);
    wake?.();
  });
  const next = async (act: () => void): Promise<Changed> => {
    const n = seen.length;
    const arrived = new Promise<void>((r) => (wake = r));
    act();
    await Promise.race([arrived, Bun.sleep(5000)]);
    await Bun.sleep(150); // the rest of the burst
    expect(seen.length).toBeGreaterThan(n);
    const all = seen.slice(n);
    return all.includes(null) ? null : new Set(all.flatMap((c) => [...c!]));
  };
  return { w, next, seen };
}

describe("the watcher names what changed", () => {
  test("the folders it watches: the root, gates/, .unlazy/, each scope and each folder in a scope (never a ledger folder's contents)", () => {
    const root = tempDir();
    writeTree(root, {
      "GATES.md": "x",
      "gates/a.md": "x",
      ".unlazy/web/gates/leaf-1.md": "x",
      ".unlazy/web/PLAN.md": "x",
      "src/deep/x.ts": "x",
      ".kbz/failures/a.json": "{}",
      ".kbz/inputs/a.json": "{}",
    });
    expect(
      workspaceFolders(root)
        .map((d) => path.relative(root, d) || ".")
        .sort(),
    ).toEqual([".", ".kbz", ".kbz/failures", ".unlazy", ".unlazy/web", ".unlazy/web/gates", "gates"]);
  });

  test("a rename write of a ledger names that ledger; a new scope folder means read everything; an unwatched file raises nothing", async () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/web/gates/leaf-1.md": "a", ".unlazy/web/gates/leaf-2.md": "b", "src/x.ts": "x" });
    const { w, next, seen } = bursts(root);
    try {
      const ledger = path.join(root, ".unlazy/web/gates/leaf-1.md");
      const named = await next(() => writeAtomic(ledger, "changed"));
      expect(named && [...named]).toEqual([ledger]);
      // A new scope: its files were never named, so the whole view is read again.
      expect(await next(() => fs.mkdirSync(path.join(root, ".unlazy/api")))).toBeNull();
      // ...and from then on it is watched.
      const inApi = path.join(root, ".unlazy/api/GATES.md");
      const named2 = await next(() => fs.writeFileSync(inApi, "x"));
      expect(named2 && [...named2]).toEqual([inApi]);
      const before = seen.length;
      fs.writeFileSync(path.join(root, "src/x.ts"), "y");
      await Bun.sleep(300);
      expect(seen.length).toBe(before);
    } finally {
      await w.close();
    }
  });

  test("followed oracle files (a checker script, package.json) are named when they change, the files beside them are not", async () => {
    const root = tempDir();
    writeTree(root, {
      "GATES.md": "x",
      "scripts/check.sh": "echo OK\n",
      "scripts/other.sh": "x",
      "package.json": "{}",
    });
    const { w, next, seen } = bursts(root);
    try {
      const checker = path.join(root, "scripts/check.sh");
      w.follow([checker, path.join(root, "package.json")]);
      const named = await next(() => fs.writeFileSync(checker, "echo CHANGED\n"));
      expect(named && [...named]).toEqual([checker]);
      const pkg = await next(() => writeAtomic(path.join(root, "package.json"), '{"scripts":{}}'));
      expect(pkg && [...pkg]).toEqual([path.join(root, "package.json")]);
      const before = seen.length;
      fs.writeFileSync(path.join(root, "scripts/other.sh"), "y");
      await Bun.sleep(300);
      expect(seen.length).toBe(before);
      // Following nothing drops the folder's watch.
      w.follow([]);
      fs.writeFileSync(checker, "echo AGAIN\n");
      await Bun.sleep(300);
      expect(seen.length).toBe(before);
    } finally {
      await w.close();
    }
  });
});

describe("the dashboard's one cache", () => {
  test("a named reload re-reads the named ledgers only; a full reload checks every file", () => {
    const root = tempDir();
    const a = path.join(root, "gates/a.md");
    const b = path.join(root, "gates/b.md");
    writeTree(root, {
      "gates/a.md": "- [ ] A1: one\n  EVIDENCE: pending\n",
      "gates/b.md": "- [ ] B1: one\n  EVIDENCE: pending\n",
    });
    const cache = new DashCache();
    cache.expect(null);
    const a1 = cache.load(a, root, true);
    const b1 = cache.load(b, root, true);
    writeAtomic(a, "- [x] A1: one\n  EVIDENCE: reviewed\n");
    writeAtomic(b, "- [x] B1: one\n  EVIDENCE: reviewed\n");
    cache.expect(new Set([a]));
    expect(cache.load(a, root, true).ledger!.gates[0]!.checked).toBe(true);
    // b was not named: taken as last read (the watcher would have named it; the idle check reads it).
    expect(cache.load(b, root, true)).toBe(b1);
    cache.expect(null);
    expect(cache.load(b, root, true).ledger!.gates[0]!.checked).toBe(true);
    expect(a1.ledger!.gates[0]!.checked).toBe(false);
  });

  test("a named reload keeps the list of ledgers unless a named file adds or removes one", () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/web/gates/leaf-1.md": "x", ".unlazy/web/PLAN.md": "x" });
    const dir = path.join(root, ".unlazy/web");
    const cache = new DashCache();
    let resolved = 0;
    const resolve = () => (resolved++, resolveTarget({ root, scope: "web" }));
    cache.expect(null);
    const t1 = cache.target(root, "web", resolve);
    cache.expect(new Set([path.join(dir, "PLAN.md"), path.join(dir, "gates/leaf-1.md"), path.join(dir, "status.log")]));
    expect(cache.target(root, "web", resolve)).toBe(t1);
    fs.writeFileSync(path.join(dir, "gates/leaf-2.md"), "x");
    cache.expect(new Set([path.join(dir, "gates/leaf-2.md")]));
    const t2 = cache.target(root, "web", resolve);
    expect(t2.files.map((f) => path.basename(f))).toEqual(["leaf-1.md", "leaf-2.md"]);
    fs.rmSync(path.join(dir, "gates/leaf-1.md"));
    cache.expect(new Set([path.join(dir, "gates/leaf-1.md")]));
    expect(cache.target(root, "web", resolve).files.map((f) => path.basename(f))).toEqual(["leaf-2.md"]);
    // A read that is not an event's always lists again.
    cache.expect(null);
    cache.target(root, "web", resolve);
    expect(resolved).toBe(4);
  });

  test("the same bytes written again keep their entry (no new frame for a rewrite)", () => {
    const root = tempDir();
    const file = path.join(root, "GATES.md");
    fs.writeFileSync(file, "- [ ] G1: one\n  EVIDENCE: pending\n");
    const cache = new DashCache();
    const a = cache.load(file, root, true);
    writeAtomic(file, "- [ ] G1: one\n  EVIDENCE: pending\n");
    cache.expect(new Set([file]));
    expect(cache.load(file, root, true)).toBe(a);
    expect(cache.token(a)).toBe(cache.token(a));
  });

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
    expect(b.kind === "ready" && b.data.reduction.verdict).toBe("all-met");
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

  test("without the plan side the read keeps the last one (the panels on screen do not show it); with it, it is read again", async () => {
    const { writeDemoFolder } = await import("../../src/demo/scope.ts");
    const demo = writeDemoFolder(tempDir());
    const reader = new DashboardReader({ root: demo.root, scope: null, slots: 3, env: checkEnv() });
    const a = reader.read();
    if (a.kind !== "ready") throw new Error(a.kind);
    expect(a.data.planKept).toBe(false);
    const ledger = path.join(demo.root, ".unlazy/checkout/gates/leaf-1.1.md");
    writeAtomic(ledger, fs.readFileSync(ledger, "utf8").replace("# Gates", "# Gates (edited)"));
    const b = reader.read({ plan: false });
    if (b.kind !== "ready") throw new Error(b.kind);
    expect(b).not.toBe(a);
    expect(b.data.planKept).toBe(true);
    expect(b.data.plan).toBe(a.data.plan);
    const c = reader.read();
    if (c.kind !== "ready") throw new Error(c.kind);
    expect(c.data.planKept).toBe(false);
    expect(c.data.plan).not.toBe(a.data.plan);
  });
});
