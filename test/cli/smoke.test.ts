import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, FIXTURES, tempDir } from "../helpers/kbz.ts";
import pkg from "../../package.json" with { type: "json" };

// The binary must work on its own: copied to a folder with no node_modules, no package.json,
// and a hostile .env / bunfig.toml that must not change its behaviour.
describe("compiled binary smoke test", () => {
  const dir = tempDir("kbz-smoke-");
  const bin = path.join(dir, "kbz");
  fs.copyFileSync(BIN, bin);
  fs.chmodSync(bin, 0o755);
  fs.writeFileSync(path.join(dir, ".env"), "UNLAZY_SCOPE=from-dotenv\n");
  fs.writeFileSync(path.join(dir, "bunfig.toml"), 'preload = ["./evil.ts"]\n');
  fs.writeFileSync(path.join(dir, "evil.ts"), 'console.log("EVIL PRELOAD RAN");\n');
  fs.cpSync(path.join(FIXTURES, "solo"), path.join(dir, "work"), { recursive: true });
  const run = (args: string[], cwd = dir) => {
    const env = { ...process.env };
    delete env.UNLAZY_SCOPE;
    const r = spawnSync(bin, args, { cwd, encoding: "utf8", env, input: "" });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test("no node_modules anywhere near the copy", () => {
    expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);
  });

  test("--version prints the package version and the target it was built for", () => {
    const target = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
    expect(run(["--version"])).toEqual({ code: 0, stdout: `${pkg.version} ${target}\n`, stderr: "" });
  });

  test("status runs from the copy and ignores .env and bunfig.toml in the working directory", () => {
    const r = run(["status"], path.join(dir, "work"));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 4)");
    const demo = run([]);
    expect(demo.stdout).not.toContain("EVIL PRELOAD RAN");
    expect(demo.stdout).not.toContain("from-dotenv");
  });

  test('a repository package.json with a "yargs" key does not change kbz\'s flag parsing', () => {
    const work = path.join(tempDir(), "repo");
    fs.cpSync(path.join(FIXTURES, "solo"), work, { recursive: true });
    // Were it read, unknown options would pass as arguments and dashed keys would vanish.
    fs.writeFileSync(
      path.join(work, "package.json"),
      JSON.stringify({ yargs: { "unknown-options-as-args": true, "strip-dashed": true } }),
    );
    const bogus = run(["status", "--bogus"], work);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("Unknown argument: bogus");
    expect(run(["status"], work).stdout).toContain("HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 4)");
  });

  test("lint runs from the copy", () => {
    const r = run(["lint", "GATES.md"], path.join(dir, "work"));
    expect(r.code).toBe(0);
    // Warnings: the manual gate, and the work-or-oracle questions of issue 39.
    expect(r.stdout).toMatch(/LINT OK \(\d+ warning\(s\)\)/);
  });

  test("--help lists the verbs; a verb's --help works; unknown verbs are usage errors", () => {
    const h = run(["--help"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("kbz status");
    expect(h.stdout).toContain("kbz lint");
    expect(run(["status", "--help"]).code).toBe(0);
    expect(run(["nope"]).code).toBe(2);
  });

  test("a folder with no ledgers shows the built-in demo and exits 0", () => {
    const empty = tempDir();
    const r = run([], empty);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("showing the built-in demo");
    expect(r.stdout).toContain("[scope checkout]");
  });
});
