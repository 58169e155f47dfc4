import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import {
  claimConflicts,
  claimLease,
  registryTarget,
  releaseLeases,
  removeInvalidLeases,
  type ClaimResult,
} from "../../../src/io/dispatch/leases.ts";
import { leaseFileName } from "../../../src/core/dispatch/lease-record.ts";
import { readLeaseRecords } from "../../../src/io/read.ts";
import { sha256Hex } from "../../../src/core/ledger/digest.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { WriteError } from "../../../src/io/fs.ts";
import { lockPath } from "../../../src/io/lock.ts";
import { hashTree, REPO, tempDir, writeTree } from "../../helpers/kbz.ts";

function repo(): string {
  const root = tempDir();
  writeTree(root, { ".unlazy/api/GATES.md": "- [ ] G1: x\n", ".unlazy/web/GATES.md": "- [ ] G1: y\n" });
  return root;
}

function refused(r: ClaimResult): string[] {
  if (r.ok) throw new Error("claim was granted");
  return r.conflicts.map((c) =>
    c.kind === "identity"
      ? `identity ${c.holder.scope}/${c.holder.leaf}`
      : `${c.glob} vs ${c.theirGlob} (${c.holder.scope}/${c.holder.leaf})`,
  );
}

const locks = (root: string) => path.join(root, ".unlazy", "locks");

describe("lease records", () => {
  test("a claim writes {scope, leaf, globs, pid} as pretty JSON at sha256(scope::leaf)[0:24].lease", async () => {
    const root = repo();
    const r = await claimLease(root, "api", "leaf-1", ["./src/api/**", "tests\\api/**", "src/api/**"]);
    expect(r.ok).toBe(true);
    const name = sha256Hex("api::leaf-1").slice(0, 24) + ".lease";
    expect(leaseFileName("api", "leaf-1")).toBe(name);
    const text = fs.readFileSync(path.join(locks(root), name), "utf8");
    expect(JSON.parse(text)).toEqual({
      scope: "api",
      leaf: "leaf-1",
      globs: ["src/api/**", "tests/api/**"],
      pid: process.pid,
    });
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + "\n");
  });

  test("a lease written by unlazy is read back as the same owner", () => {
    const root = repo();
    const name = leaseFileName("web", "leaf-2.2");
    writeTree(root, {
      [`.unlazy/locks/${name}`]: JSON.stringify(
        { scope: "web", leaf: "leaf-2.2", globs: ["web/pay/**"], pid: 1234 },
        null,
        2,
      ),
    });
    expect(readLeaseRecords(root)).toEqual([
      {
        invalid: false,
        scope: "web",
        leaf: "leaf-2.2",
        globs: ["web/pay/**"],
        pid: 1234,
        file: path.join(locks(root), name),
      },
    ]);
  });
});

describe("claim conflicts", () => {
  test("src/a*.js and src/ab*.js conflict because a wildcard shares the segment", async () => {
    const root = repo();
    expect((await claimLease(root, "api", "leaf-1", ["src/a*.js"])).ok).toBe(true);
    expect(refused(await claimLease(root, "api", "leaf-2", ["src/ab*.js"]))).toEqual([
      "src/ab*.js vs src/a*.js (api/leaf-1)",
    ]);
  });

  test("src/./same.js is normalised and conflicts with src/same.js", async () => {
    const root = repo();
    expect((await claimLease(root, "api", "leaf-1", ["src/./same.js"])).ok).toBe(true);
    expect(refused(await claimLease(root, "web", "leaf-1", ["src/same.js"]))).toEqual([
      "src/same.js vs src/same.js (api/leaf-1)",
    ]);
  });

  test("a directory owns its descendants: src/api conflicts with src/api/**", async () => {
    const root = repo();
    expect((await claimLease(root, "api", "leaf-1", ["src/api"])).ok).toBe(true);
    expect(refused(await claimLease(root, "api", "leaf-2", ["src/api/**"]))).toEqual([
      "src/api/** vs src/api (api/leaf-1)",
    ]);
  });

  test("disjoint literal segments do not conflict across scopes", async () => {
    const root = repo();
    expect((await claimLease(root, "api", "leaf-1", ["src/api/**"])).ok).toBe(true);
    expect((await claimLease(root, "web", "leaf-1", ["src/web/**"])).ok).toBe(true);
  });

  test("traversal, absolute, drive-letter, NUL and blank globs are usage errors that change nothing", async () => {
    const root = repo();
    const before = hashTree(root);
    for (const [glob, msg] of [
      ["../outside/**", "cannot contain traversal"],
      ["/etc/passwd", "must be relative"],
      ["C:/x", "must be relative"],
      ["src/\0x", "cannot contain traversal"],
      ["  ", "OWNS path is blank"],
      ["./.", "implicit root"],
    ]) {
      await expect(claimLease(root, "api", "leaf-1", [glob!])).rejects.toThrow(msg!);
    }
    expect(hashTree(root)).toBe(before);
  });

  test("invalid scope and leaf ids are refused: '..', slashes, 65 characters, controls", async () => {
    const root = repo();
    const before = hashTree(root);
    for (const id of ["..", "a/b", "x".repeat(65), "a\u001b[31m", "."]) {
      await expect(claimLease(root, id, "leaf-1", ["src/**"])).rejects.toBeInstanceOf(UsageError);
      await expect(claimLease(root, "api", id, ["src/**"])).rejects.toBeInstanceOf(UsageError);
      await expect(releaseLeases(root, id, null)).rejects.toBeInstanceOf(UsageError);
    }
    expect(hashTree(root)).toBe(before);
  });

  test("re-claiming the same owner with disjoint paths is an identity conflict and never rewrites the lease", async () => {
    const root = repo();
    expect((await claimLease(root, "api", "leaf-1", ["src/a/**"])).ok).toBe(true);
    const file = path.join(locks(root), leaseFileName("api", "leaf-1"));
    const bytes = fs.readFileSync(file);
    expect(refused(await claimLease(root, "api", "leaf-1", ["src/b/**"]))).toEqual(["identity api/leaf-1"]);
    expect(fs.readFileSync(file)).toEqual(bytes);
    expect(refused(await claimLease(root, "web", "leaf-9", ["src/a/x.ts"]))).toEqual([
      "src/a/x.ts vs src/a/** (api/leaf-1)",
    ]);
    expect((await releaseLeases(root, "api", "leaf-1")).released.length).toBe(1);
    expect((await claimLease(root, "api", "leaf-1", ["src/b/**"])).ok).toBe(true);
  });

  test("the conflict test is pure and reports every overlapping pair", () => {
    const held = [
      { invalid: false as const, scope: "a", leaf: "l", globs: ["src/**", "docs/x.md"], pid: 1, file: "/f" },
    ];
    expect(
      claimConflicts("b", "m", ["src/x.ts", "docs/**", "lib/y"], held).map((c) =>
        c.kind === "glob" ? `${c.glob}~${c.theirGlob}` : c.kind,
      ),
    ).toEqual(["src/x.ts~src/**", "docs/**~docs/x.md"]);
  });
});

describe("invalid lease records block every claim until removed explicitly", () => {
  const poison = (root: string, outside: string): Record<string, () => void> => ({
    "hard link": () => fs.linkSync(path.join(outside, "victim"), path.join(locks(root), leaseFileName("x", "hard"))),
    symlink: () => fs.symlinkSync(path.join(outside, "victim"), path.join(locks(root), leaseFileName("x", "sym"))),
    FIFO: () => spawnSync("mkfifo", [path.join(locks(root), leaseFileName("x", "fifo"))]),
    "empty globs with a correct name": () =>
      fs.writeFileSync(
        path.join(locks(root), leaseFileName("x", "empty")),
        JSON.stringify({ scope: "x", leaf: "empty", globs: [], pid: 1 }),
      ),
    "a name that does not match the owner": () =>
      fs.writeFileSync(
        path.join(locks(root), "000000000000000000000000.lease"),
        JSON.stringify({ scope: "x", leaf: "y", globs: ["a/**"], pid: 1 }),
      ),
    "a glob that is not normalised": () =>
      fs.writeFileSync(
        path.join(locks(root), leaseFileName("x", "raw")),
        JSON.stringify({ scope: "x", leaf: "raw", globs: ["./a/**"], pid: 1 }),
      ),
    "truncated JSON": () => fs.writeFileSync(path.join(locks(root), leaseFileName("x", "trunc")), '{"scope": "x", "le'),
  });

  for (const kind of [
    "hard link",
    "symlink",
    "FIFO",
    "empty globs with a correct name",
    "a name that does not match the owner",
    "a glob that is not normalised",
    "truncated JSON",
  ]) {
    test(`${kind}: the claim is refused promptly, the victim untouched, and --invalid removal frees the registry`, async () => {
      const root = repo();
      const outside = tempDir();
      fs.writeFileSync(
        path.join(outside, "victim"),
        JSON.stringify({ scope: "x", leaf: "hard", globs: ["a/**"], pid: 1 }),
      );
      fs.mkdirSync(locks(root), { recursive: true });
      poison(root, outside)[kind]!();
      const victim = hashTree(outside);
      const t = Date.now();
      const r = await claimLease(root, "fresh", "leaf", ["unrelated/**"]);
      expect(Date.now() - t).toBeLessThan(10_000);
      const conflicts = refused(r);
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatch(/^unrelated\/\*\* vs \*\* \(\(invalid\)\/.+\.lease\)$/);
      expect((await releaseLeases(root, "x", null)).released).toHaveLength(0);
      expect(readLeaseRecords(root).filter((l) => l.invalid)).toHaveLength(1);
      const { removed } = await removeInvalidLeases(root);
      expect(removed).toHaveLength(1);
      expect(hashTree(outside)).toBe(victim);
      expect((await claimLease(root, "fresh", "leaf", ["unrelated/**"])).ok).toBe(true);
    });
  }

  test("a directory named like a lease blocks claims and is not removed by --invalid, which names it", async () => {
    const root = repo();
    const odd = path.join(locks(root), leaseFileName("x", "dir"));
    fs.mkdirSync(odd, { recursive: true });
    expect(refused(await claimLease(root, "fresh", "leaf", ["a/**"]))[0]).toContain("(invalid)/");
    await expect(removeInvalidLeases(root)).rejects.toMatchObject({
      message: "cannot remove invalid lease record: EISDIR",
      file: odd,
    });
    expect(fs.statSync(odd).isDirectory()).toBe(true);
  });

  test("a locks directory that is a symlink is refused with a clear error and no file changes", async () => {
    const root = repo();
    const outside = tempDir();
    fs.symlinkSync(outside, locks(root));
    const before = hashTree(root);
    const outsideBefore = hashTree(outside);
    await expect(claimLease(root, "api", "leaf-1", ["src/**"])).rejects.toBeInstanceOf(WriteError);
    await expect(releaseLeases(root, "api", null)).rejects.toBeInstanceOf(WriteError);
    expect(readLeaseRecords(root)).toMatchObject([
      { invalid: true, problem: "the locks directory must be a real directory inside the repository" },
    ]);
    expect(hashTree(root)).toBe(before);
    expect(hashTree(outside)).toBe(outsideBefore);
  });
});

describe("release", () => {
  test("an orphan lease is released after its scope directory is gone", async () => {
    const root = repo();
    writeTree(root, { ".unlazy/gone/GATES.md": "- [ ] G1: x\n" });
    expect((await claimLease(root, "gone", "leaf-gone", ["gone/**"])).ok).toBe(true);
    fs.rmSync(path.join(root, ".unlazy/gone"), { recursive: true });
    const { released } = await releaseLeases(root, "gone", null);
    expect(released.map((l) => `${l.scope}/${l.leaf}`)).toEqual(["gone/leaf-gone"]);
  });

  test("a scoped release removes only that scope's (and leaf's) valid leases", async () => {
    const root = repo();
    for (const [s, l, g] of [
      ["api", "leaf-1", "a/**"],
      ["api", "leaf-2", "b/**"],
      ["web", "leaf-1", "c/**"],
    ] as const) {
      expect((await claimLease(root, s, l, [g])).ok).toBe(true);
    }
    expect((await releaseLeases(root, "api", "leaf-2")).released.map((l) => l.leaf)).toEqual(["leaf-2"]);
    expect((await releaseLeases(root, "api", null)).released.map((l) => l.leaf)).toEqual(["leaf-1"]);
    expect(readLeaseRecords(root).map((l) => `${l.scope}/${l.leaf}`)).toEqual(["web/leaf-1"]);
  });

  test("release in a repository without a locks directory creates nothing", async () => {
    const root = repo();
    const before = hashTree(root);
    expect((await releaseLeases(root, "api", null)).released).toEqual([]);
    expect(hashTree(root)).toBe(before);
  });
});

describe("registry lock", () => {
  test("a registry lock left by a SIGKILLed process is recovered by the next claim and logged", async () => {
    const root = repo();
    const holder = spawn(
      path.join(REPO, "node_modules/.bin/bun"),
      [
        "-e",
        `import { withFileLock } from ${JSON.stringify(path.join(REPO, "src/io/lock.ts"))};
         await withFileLock(${JSON.stringify(root)}, ${JSON.stringify(registryTarget(root))}, async () => {
           console.log("held"); await new Promise(() => setInterval(() => {}, 1000));
         });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout!.on("data", () => resolve()));
    const lockFile = lockPath(root, registryTarget(root));
    expect(fs.existsSync(lockFile)).toBe(true);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.on("exit", r));
    expect(fs.existsSync(lockFile)).toBe(true);
    // Without recovery this claim could only time out: the dead owner never releases.
    const r = await claimLease(root, "api", "leaf-1", ["src/**"], { timeoutMs: 20_000 });
    expect(r.ok).toBe(true);
    expect(r.notes.join("\n")).toContain(`lock recovered from dead pid ${holder.pid}`);
    expect(fs.readFileSync(path.join(root, ".unlazy/api/status.log"), "utf8")).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z lock recovered from dead pid ${holder.pid} \\(\\.unlazy/locks/[0-9a-f]{24}\\.filelock\\)\\n$`,
      ),
    );
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});

describe("concurrency", () => {
  test("two simultaneous identical claims: exactly one wins, the loser sees the identity conflict", async () => {
    const root = repo();
    const results = await Promise.all([
      claimLease(root, "same", "leaf", ["x/**"]),
      claimLease(root, "same", "leaf", ["x/**"]),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(refused(results.find((r) => !r.ok)!)).toEqual(["identity same/leaf"]);
    expect((await releaseLeases(root, "same", null)).released).toHaveLength(1);
  });

  test("8 processes x 100 claim/release rounds: overlapping leases are never held at once and none is lost", () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".unlazy"), { recursive: true });
    const workers: [string, string, string[]][] = [
      ["shared-0", "shared", ["src/shared/**"]],
      ["shared-1", "shared", ["src/shared/a.ts"]],
      ["shared-2", "shared", ["src/*/a.ts"]],
      ["shared-3", "shared", ["src/shared"]],
      ["own-4", "own", ["lib/p4/**"]],
      ["own-5", "own", ["lib/p5/**", "docs/p5.md"]],
      ["own-6", "own", ["lib/p6/x.ts"]],
      ["own-7", "own", ["lib/p7"]],
    ];
    const script = path.join(REPO, "test/helpers/lease-churn.ts");
    const bun = path.join(REPO, "node_modules/.bin/bun");
    const procs = workers.map(([leaf, group, globs]) =>
      Bun.spawn([bun, script, root, leaf, group, "100", ...globs], { stdout: "pipe", stderr: "inherit" }),
    );
    const summaries = procs.map((p) => {
      const text = new Response(p.stdout).text();
      return text;
    });
    return Promise.all(summaries).then(async (texts) => {
      await Promise.all(procs.map((p) => p.exited));
      const parsed = texts.map((t) => JSON.parse(t.trim()));
      for (const s of parsed) {
        expect(s.violations).toEqual([]);
        expect(s.lost).toEqual([]);
        expect(s.claimed + s.refused).toBe(100);
        if (s.leaf.startsWith("own-")) expect(s.claimed).toBe(100);
      }
      expect(parsed.filter((s) => s.leaf.startsWith("shared-")).reduce((n, s) => n + s.claimed, 0)).toBeGreaterThan(0);
      expect(readLeaseRecords(root)).toEqual([]);
    });
  }, 180_000);
});
