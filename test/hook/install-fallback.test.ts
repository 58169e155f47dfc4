// The Node installer of the npm package (src/hook/install-fallback.ts → hooks/install-hook.mjs):
// on Node 16, with no kbz binary, it registers node + the stop-hook.mjs beside it, exactly as
// `kbz hook install --fallback` would, and takes the same options.
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildNodeInstaller } from "../../scripts/fallback-hook.ts";
import { shimPath, shimTarget } from "../../src/io/hook/shim.ts";
import { FALLBACK, node16 } from "../helpers/hook.ts";
import { tempDir } from "../helpers/kbz.ts";

describe("hooks/install-hook.mjs on Node 16", () => {
  let hooks = "";
  beforeAll(async () => {
    hooks = tempDir("kbz-hooks-");
    fs.writeFileSync(path.join(hooks, "install-hook.mjs"), await buildNodeInstaller());
    fs.copyFileSync(FALLBACK, path.join(hooks, "stop-hook.mjs"));
  }, 60_000);
  const run = (args: string[], cwd: string) => {
    const r = spawnSync(node16(), [path.join(hooks, "install-hook.mjs"), ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, HOME: cwd, KBZ_HOME: undefined },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test("installs node + stop-hook.mjs for claude by default, idempotently, and removes it", () => {
    const ws = tempDir();
    const first = run([], ws);
    expect(first.code).toBe(0);
    // The host's file names the fallback's stable shim, which runs Node 16 on the stop-hook.mjs beside the installer.
    const shim = shimPath(ws, {}, true);
    expect(first.stdout).toContain(`  command: ${shim} --agent claude --unlazy-hook-v2`);
    expect(
      JSON.parse(fs.readFileSync(path.join(ws, ".claude", "settings.local.json"), "utf8")).hooks.Stop[0].hooks[0]
        .command,
    ).toContain(shim);
    expect(shimTarget(shim)).toEqual([fs.realpathSync(node16()), path.join(hooks, "stop-hook.mjs")]);
    expect(run([], ws).stdout).toContain("Already installed");
    expect(run(["--uninstall"], ws).stdout).toMatch(/^Removed kbz stop hook \(\d+ handler\(s\)\)/);
  }, 60_000);

  test("--agent, --scope and --json as the binary's; bad options are usage errors (exit 2, file untouched)", () => {
    const ws = tempDir();
    const r = run(["--agent=gemini", "--scope", "api", "--json"], ws);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: "installed", agent: "gemini", scope: "api" });
    const before = fs.readFileSync(path.join(ws, ".gemini", "settings.json"), "utf8");
    for (const bad of [
      ["--agent", "vim"],
      ["--agent", "gemini", "--scope"],
      ["--agent", "gemini", "--bogus"],
      ["--agent", "gemini", "--fallback", "--uninstall"],
      ["--agent", "gemini", "--shared", "--global"],
    ]) {
      const e = run(bad, ws);
      expect({ bad, code: e.code, stdout: e.stdout }).toEqual({ bad, code: 2, stdout: "" });
      expect(fs.readFileSync(path.join(ws, ".gemini", "settings.json"), "utf8")).toBe(before);
    }
  }, 60_000);
});
