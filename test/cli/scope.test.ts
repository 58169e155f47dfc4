import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { leaseFileName } from "../../src/core/dispatch/lease-record.ts";
import { readLeaseRecords } from "../../src/io/read.ts";
import { registryTarget, releaseLeases } from "../../src/io/dispatch/leases.ts";
import { lockPath, withFileLock } from "../../src/io/lock.ts";
import { BIN, fixtureCopy, hashTree, kbz, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";

const locks = (root: string) => path.join(root, ".unlazy", "locks");

/** Bad input: exit 2, one `kbz:` or `<file>:<line>:` message, nothing on stdout, no file changes. */
async function expectRefused(dir: string, args: string[], message: string | RegExp): Promise<void> {
  const before = hashTree(dir);
  const r = await runCli(args, { cwd: dir });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  if (typeof message === "string") expect(r.stderr).toContain(message);
  else expect(r.stderr).toMatch(message);
  expect(hashTree(dir)).toBe(before);
}

describe("golden transcript C: scopes, leases, status log, binding", () => {
  test("list, claim, overlap, a retried claim (exit 0, not unlazy's identity conflict), unknown leaf, release, log and bind match unlazy's lines; fixes unlazy bug: status.log lines written by claim, release and log carried no time", async () => {
    const dir = fixtureCopy("pipe");
    const run = async (...args: string[]) => await runCli(args, { cwd: dir });
    expect(await run("scope", "list")).toEqual({ code: 0, stdout: "api\nweb\n", stderr: "" });
    expect(await run("scope", "claim", "--scope", "api", "--leaf", "leaf-1")).toEqual({
      code: 0,
      stdout: "CLAIMED 2 path(s) for api/leaf-1: src/api/**, tests/api/**\n",
      stderr: "",
    });
    expect(await run("scope", "claim", "--scope", "api", "--leaf", "leaf-2")).toEqual({
      code: 1,
      stdout: "CONFLICT src/api/shared.mjs overlaps src/api/** held by api/leaf-1\nCLAIM REFUSED (1 conflict(s))\n",
      stderr: "",
    });
    expect(await run("scope", "claim", "--scope", "api", "--leaf", "leaf-1")).toEqual({
      code: 0,
      stdout:
        "ALREADY CLAIMED 2 path(s) for api/leaf-1: src/api/**, tests/api/** (this leaf holds the lease; nothing changed)\n",
      stderr: "",
    });
    const unknown = await run("scope", "claim", "--scope", "api", "--leaf", "leaf-9");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("kbz: --leaf: unknown leaf leaf-9 (have: leaf-1, leaf-2)");
    const noLeaf = await run("scope", "claim", "--scope", "api");
    expect(noLeaf.code).toBe(2);
    expect(noLeaf.stderr).toContain("kbz: claim needs --leaf NAME when a scope has several gate files");
    expect((await run("scope", "list")).stdout).toBe("api\nweb\nleases:\n  api/leaf-1: src/api/**, tests/api/**\n");
    expect(await run("scope", "release", "--scope", "api", "--leaf", "leaf-1")).toEqual({
      code: 0,
      stdout: "released 1 lease(s) for api/leaf-1\n",
      stderr: "",
    });
    expect(await run("scope", "release", "--scope", "api")).toEqual({
      code: 0,
      stdout: "released 0 lease(s) for api\n",
      stderr: "",
    });
    const log = await run("scope", "log", "--scope", "api", "leaf-1 verified");
    expect(log).toEqual({ code: 0, stdout: `appended to ${path.join(dir, ".unlazy/api/status.log")}\n`, stderr: "" });
    // The printed lines are unlazy's; the log now has `<ISO time> <event>` lines throughout, the
    // shape dispatch events always had, and records the claim and the release too.
    const T = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
    const lines = fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8").split("\n");
    expect(lines[0]).toMatch(new RegExp(`^${T} claim leaf-1: src/api/\\*\\*, tests/api/\\*\\*$`));
    expect(lines[1]).toMatch(new RegExp(`^${T} release leaf-1: 1 lease\\(s\\)$`));
    expect(lines[2]).toMatch(new RegExp(`^${T} leaf-1 verified$`));
    expect(lines.slice(3)).toEqual([""]);
    // Text that already starts with a time is kept as given.
    await run("scope", "log", "--scope", "api", "2026-12-02T10:00:00.000Z wave note");
    expect(fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8").split("\n")[3]).toBe(
      "2026-12-02T10:00:00.000Z wave note",
    );
    expect(await run("scope", "bind", "--scope", "web", "sess-123")).toEqual({
      code: 0,
      stdout: "bound session sess-123 to scope web\n",
      stderr: "",
    });
    expect(fs.readFileSync(path.join(dir, ".unlazy/web/session"), "utf8")).toBe("sess-123\n");
  });

  test("a single-ledger scope is claimed without --leaf and UNLAZY_SCOPE selects the scope", async () => {
    const dir = fixtureCopy("pipe");
    const r = await runCli(["scope", "claim"], { cwd: dir, env: { UNLAZY_SCOPE: "web" } });
    expect(r).toEqual({ code: 0, stdout: "CLAIMED 1 path(s) for web/leaf-1: src/web/**\n", stderr: "" });
  });

  test("no pipelines: list says so and exits 0", async () => {
    expect(await runCli(["scope", "list"], { cwd: tempDir() })).toEqual({
      code: 0,
      stdout: "(no scopes under .unlazy/)\n",
      stderr: "",
    });
  });

  test("every action prints one JSON object with schema 1 under --json", async () => {
    const dir = fixtureCopy("pipe");
    const j = async (...args: string[]) => {
      const r = await runCli([...args, "--json"], { cwd: dir });
      return { code: r.code, body: JSON.parse(r.stdout) };
    };
    const claimed = await j("scope", "claim", "--scope", "api", "--leaf", "leaf-1");
    expect(claimed).toMatchObject({
      code: 0,
      body: { schema: 1, action: "claim", ok: true, exit: 0, globs: ["src/api/**", "tests/api/**"] },
    });
    const refused = await j("scope", "claim", "--scope", "api", "--leaf", "leaf-2");
    expect(refused.code).toBe(1);
    expect(refused.body).toMatchObject({
      schema: 1,
      ok: false,
      exit: 1,
      conflicts: [
        { kind: "glob", glob: "src/api/shared.mjs", theirGlob: "src/api/**", holder: { scope: "api", leaf: "leaf-1" } },
      ],
    });
    expect((await j("scope", "list")).body).toMatchObject({
      schema: 1,
      scopes: ["api", "web"],
      leases: [{ scope: "api", leaf: "leaf-1", invalid: false }],
    });
    expect((await j("scope", "release", "--scope", "api")).body).toMatchObject({
      schema: 1,
      action: "release",
      released: 1,
    });
    expect((await j("scope", "log", "--scope", "api", "x")).body).toMatchObject({ schema: 1, action: "log" });
    expect((await j("scope", "bind", "--scope", "api", "s1")).body).toEqual({
      schema: 1,
      exit: 0,
      verdict: "bound",
      action: "bind",
      scope: "api",
      session: "s1",
      errors: [],
    });
  });

  test("help documents that a refused claim exits 1 (unlazy used 3)", async () => {
    // The claim action's own page (issue 43) says it; unlazy exited 3 there.
    const r = kbz(["scope", "claim", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Exit 0 claimed; 1 a conflicting lease holds them; 2 usage.");
  });
});

describe("lease hardening cases (unlazy §8.2 #35), refused with exit 1 instead of 3", () => {
  for (const [mine, theirs, line] of [
    ["src/a*.js", "src/ab*.js", "CONFLICT src/ab*.js overlaps src/a*.js held by h/leaf-a"],
    ["src/./same.js", "src/same.js", "CONFLICT src/same.js overlaps src/same.js held by h/leaf-a"],
    ["src/api", "src/api/**", "CONFLICT src/api/** overlaps src/api held by h/leaf-a"],
  ]) {
    test(`${mine} then ${theirs}: the second claim is refused`, async () => {
      const dir = tempDir();
      writeTree(dir, {
        ".unlazy/h/gates/leaf-a.md": `OWNS: ${mine}\n- [ ] G1: a\n`,
        ".unlazy/h/gates/leaf-b.md": `OWNS: ${theirs}\n- [ ] G1: b\n`,
      });
      expect((await runCli(["scope", "claim", "--leaf", "leaf-a"], { cwd: dir })).code).toBe(0);
      expect(await runCli(["scope", "claim", "--leaf", "leaf-b"], { cwd: dir })).toEqual({
        code: 1,
        stdout: `${line}\nCLAIM REFUSED (1 conflict(s))\n`,
        stderr: "",
      });
    });
  }
});

describe("bad input changes nothing and exits 2", () => {
  for (const [name, id] of [
    ["'..'", ".."],
    ["a slash", "a/b"],
    ["65 characters", "x".repeat(65)],
    ["a control character", "a\u001bb"],
  ]) {
    test(`a scope id with ${name} is refused by claim, release, log, bind and every wave action`, async () => {
      const dir = fixtureCopy("pipe");
      for (const args of [["claim"], ["release"], ["log", "text"], ["bind", "s"]]) {
        await expectRefused(dir, ["scope", args[0]!, "--scope", id!, ...args.slice(1)], "scope must match");
      }
      for (const args of [["open", "--wave", "w", "--leaf", "a"], ["status", "--wave", "w"], ["list"]]) {
        await expectRefused(dir, ["wave", args[0]!, "--scope", id!, ...args.slice(1)], "scope must match");
      }
    });
  }

  test("a leaf id that is not a valid id is refused by release", async () => {
    await expectRefused(
      fixtureCopy("pipe"),
      ["scope", "release", "--scope", "api", "--leaf", "../x"],
      "leaf must match",
    );
  });

  for (const [name, owns, message] of [
    ["absolute", "/etc/**", "OWNS path must be relative"],
    ["traversing", "../outside/**", "OWNS path cannot contain traversal"],
    ["drive-letter", "C:/x/**", "OWNS path must be relative"],
    ["NUL-carrying", "src/\0x", "contains a NUL byte"],
  ]) {
    test(`an ${name} OWNS glob is a located error`, async () => {
      const dir = tempDir();
      writeTree(dir, { ".unlazy/api/gates/leaf-1.md": `OWNS: ${owns}\n\n- [ ] G1: x\n` });
      await expectRefused(
        dir,
        ["scope", "claim", "--scope", "api"],
        new RegExp(`^\\.unlazy/api/gates/leaf-1\\.md:1: ${message}`, "m"),
      );
    });
  }

  test("a ledger without OWNS cannot be claimed", async () => {
    const dir = tempDir();
    writeTree(dir, { ".unlazy/api/GATES.md": "- [ ] G1: x\n" });
    await expectRefused(
      dir,
      ["scope", "claim"],
      ".unlazy/api/GATES.md:1: declares no OWNS paths; add an OWNS: line before the first gate\n",
    );
  });

  test("an unknown action is shown escaped", async () => {
    const r = await runCli(["scope", "\u001b[2Jboom\u202e"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown scope action "\\x1b[2Jboom\\u202e"');
    expect(r.stderr).not.toMatch(/[\u001b\u202e]/);
  });

  test("log needs text and bind needs exactly one id", async () => {
    const dir = fixtureCopy("pipe");
    await expectRefused(dir, ["scope", "log", "--scope", "api", "  "], "log needs non-blank text");
    await expectRefused(dir, ["scope", "bind", "--scope", "api"], "bind needs exactly one SESSION id");
    await expectRefused(dir, ["scope", "bind", "--scope", "api", "a\nb"], "session id must be printable");
  });

  test("a lease directory that is a symlink is refused with a clear error and nothing changes", async () => {
    const dir = fixtureCopy("pipe");
    const outside = tempDir();
    fs.symlinkSync(outside, locks(dir));
    const outsideBefore = hashTree(outside);
    await expectRefused(dir, ["scope", "claim", "--scope", "web"], `${locks(dir)}:1: not a real directory`);
    await expectRefused(dir, ["scope", "release", "--scope", "web"], `${locks(dir)}:1: not a real directory`);
    expect(hashTree(outside)).toBe(outsideBefore);
  });

  for (const [kind, make] of [
    ["symlinked", (log: string, victim: string) => fs.symlinkSync(victim, log)],
    ["hard-linked", (log: string, victim: string) => fs.linkSync(victim, log)],
    ["FIFO", (log: string) => spawnSync("mkfifo", [log])],
  ] as const) {
    test(`a ${kind} status.log makes log exit 2 promptly with the victim untouched`, async () => {
      const dir = fixtureCopy("pipe");
      const outside = tempDir();
      writeTree(outside, { victim: "victim\n" });
      make(path.join(dir, ".unlazy/api/status.log"), path.join(outside, "victim"));
      const t = Date.now();
      await expectRefused(
        dir,
        ["scope", "log", "--scope", "api", "hello"],
        "status.log:1: cannot append status: status log must be",
      );
      expect(Date.now() - t).toBeLessThan(10_000);
      expect(fs.readFileSync(path.join(outside, "victim"), "utf8")).toBe("victim\n");
    });
  }
});

describe("corrupt lease records", () => {
  test("a corrupt lease is reported with its path and the way out, and --invalid removes it", async () => {
    const dir = fixtureCopy("pipe");
    const bad = path.join(locks(dir), leaseFileName("api", "leaf-1"));
    writeTree(dir, { [path.relative(dir, bad)]: '{"scope": "api", "leaf": ' });
    const r = await runCli(["scope", "claim", "--scope", "web"], { cwd: dir });
    expect(r.code).toBe(1);
    const name = path.basename(bad);
    expect(r.stdout).toBe(
      `CONFLICT src/web/** overlaps ** held by (invalid)/${name}\n` +
        `  invalid lease record .unlazy/locks/${name} (not valid JSON) blocks every claim; once no agent relies on it, remove it with: kbz scope release --invalid\n` +
        "CLAIM REFUSED (1 conflict(s))\n",
    );
    expect((await runCli(["scope", "release", "--scope", "api"], { cwd: dir })).stdout).toBe(
      "released 0 lease(s) for api\n",
    );
    expect(fs.existsSync(bad)).toBe(true);
    expect((await runCli(["scope", "list"], { cwd: dir })).stdout).toContain(
      `invalid lease record .unlazy/locks/${name} (not valid JSON)`,
    );
    const removed = await runCli(["scope", "release", "--invalid"], { cwd: dir });
    expect(removed).toEqual({
      code: 0,
      stdout: `removed invalid lease record .unlazy/locks/${name} (not valid JSON)\nremoved 1 invalid lease record(s)\n`,
      stderr: "",
    });
    expect((await runCli(["scope", "claim", "--scope", "web"], { cwd: dir })).code).toBe(0);
  });

  test("--invalid cannot be mixed with a scope", async () => {
    await expectRefused(
      fixtureCopy("pipe"),
      ["scope", "release", "--invalid", "--scope", "api"],
      "--invalid cannot be combined",
    );
  });

  test("a malformed live ledger does not block release of its scope", async () => {
    const dir = fixtureCopy("pipe");
    expect((await runCli(["scope", "claim", "--scope", "web"], { cwd: dir })).code).toBe(0);
    fs.writeFileSync(path.join(dir, ".unlazy/web/gates/leaf-1.md"), "# no gates at all\n");
    expect((await runCli(["scope", "release", "--scope", "web"], { cwd: dir })).stdout).toBe(
      "released 1 lease(s) for web\n",
    );
  });

  test("an orphan lease is released after its scope directory is gone", async () => {
    const dir = tempDir();
    writeTree(dir, {
      ".unlazy/gone/gates/leaf-gone.md": "OWNS: gone/**\n- [ ] G1: x\n",
      ".unlazy/other/GATES.md": "- [ ] G1: y\n",
    });
    expect((await runCli(["scope", "claim", "--scope", "gone"], { cwd: dir })).code).toBe(0);
    fs.rmSync(path.join(dir, ".unlazy/gone"), { recursive: true });
    expect(await runCli(["scope", "release", "--scope", "gone"], { cwd: dir })).toEqual({
      code: 0,
      stdout: "released 1 lease(s) for gone\n",
      stderr: "",
    });
  });
});

describe("races and locks", () => {
  test("two claims racing for overlapping paths: exactly one wins, 50 tries out of 50", async () => {
    const dir = tempDir();
    writeTree(dir, {
      ".unlazy/race/gates/leaf-a.md": "OWNS: src/shared/**\n- [ ] G1: a\n",
      ".unlazy/race/gates/leaf-b.md": "OWNS: src/shared/file.js\n- [ ] G1: b\n",
    });
    const claim = (leaf: string) =>
      new Promise<number>((resolve) => {
        const p = spawn(BIN, ["scope", "claim", "--scope", "race", "--leaf", leaf], { cwd: dir, stdio: "ignore" });
        p.on("exit", (code) => resolve(code ?? -1));
      });
    for (let i = 0; i < 50; i++) {
      const codes = await Promise.all([claim("leaf-a"), claim("leaf-b")]);
      expect(codes.sort()).toEqual([0, 1]);
      expect(readLeaseRecords(dir)).toHaveLength(1);
      await releaseLeases(dir, "race", null);
    }
  }, 120_000);

  test("a claim through a symlinked alias of the root waits for the real root's registry lock", async () => {
    const dir = fixtureCopy("pipe");
    const alias = path.join(tempDir(), "alias");
    fs.symlinkSync(dir, alias);
    let exit: number | null = null;
    let done: Promise<void> | null = null;
    await withFileLock(dir, registryTarget(dir), async () => {
      done = new Promise((resolve) => {
        const p = spawn(BIN, ["scope", "claim", "--scope", "web"], { cwd: alias, stdio: "ignore" });
        p.on("exit", (code) => {
          exit = code;
          resolve();
        });
      });
      await new Promise((r) => setTimeout(r, 1000));
      expect(exit).toBeNull();
    });
    await done!;
    expect(exit as number | null).toBe(0);
    expect((await runCli(["scope", "release", "--scope", "web"], { cwd: dir })).stdout).toBe(
      "released 1 lease(s) for web\n",
    );
  });

  test("a registry lock left by a SIGKILLed process is recovered by the next command, which says so", async () => {
    const dir = fixtureCopy("pipe");
    const holder = spawn(
      path.join(REPO, "node_modules/.bin/bun"),
      [
        "-e",
        `import { withFileLock } from ${JSON.stringify(path.join(REPO, "src/io/lock.ts"))};
         await withFileLock(${JSON.stringify(dir)}, ${JSON.stringify(registryTarget(dir))}, async () => {
           console.log("held"); await new Promise(() => setInterval(() => {}, 1000));
         });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout!.on("data", () => resolve()));
    holder.kill("SIGKILL");
    await new Promise((r) => holder.on("exit", r));
    const lockFile = lockPath(dir, registryTarget(dir));
    expect(fs.existsSync(lockFile)).toBe(true);
    const r = await runCli(["scope", "claim", "--scope", "web"], { cwd: dir });
    expect(r.stdout).toBe("CLAIMED 1 path(s) for web/leaf-1: src/web/**\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`kbz: note: lock recovered from dead pid ${holder.pid}`);
    expect(fs.readFileSync(path.join(dir, ".unlazy/web/status.log"), "utf8")).toContain(
      `lock recovered from dead pid ${holder.pid}`,
    );
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});
