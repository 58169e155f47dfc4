// Issue 41: `kbz doctor` says, per installed host, whether the host runs the agent's commands in a
// sandbox that cannot write the approval store, and what to set where it can. Fails on 571b8e3,
// whose doctor says nothing of sandboxes.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";

describe("kbz doctor: the hosts' sandboxes (issue 41)", () => {
  test("Claude Code without a sandbox, Codex workspace-write, Codex with the store as a writable root: each said, with what to set", () => {
    const repo = tempDir();
    const home = tempDir("kbz-home-");
    writeTree(repo, { "GATES.md": "- [ ] M1: reviewed\n" });
    const env = {
      HOME: home,
      UNLAZY_APPROVAL_DIR: path.join(home, ".unlazy", "approved"),
      CODEX_HOME: undefined,
      GEMINI_SANDBOX: undefined,
    };
    expect(kbz(["hook", "install", "--agent", "claude"], { cwd: repo, env }).code).toBe(0);
    expect(kbz(["hook", "install", "--agent", "codex"], { cwd: repo, env }).code).toBe(0);
    const first = kbz(["doctor"], { cwd: repo, env });
    expect(first.stdout).toMatch(
      /^ +NOT SANDBOXED: no sandbox setting \(Claude Code runs commands unsandboxed by default\)$/m,
    );
    expect(first.stdout).toContain(
      'to keep it from the approval store: "sandbox": {"enabled": true} in .claude/settings.json',
    );
    expect(first.stdout).toMatch(/^ +sandbox unknown: no sandbox_mode in .*config\.toml/m);
    fs.mkdirSync(path.join(home, ".codex"), { recursive: true });
    fs.writeFileSync(path.join(home, ".codex", "config.toml"), 'sandbox_mode = "workspace-write"\n');
    fs.writeFileSync(path.join(repo, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
    const second = kbz(["doctor", "--json"], { cwd: repo, env });
    const places = JSON.parse(second.stdout).places as { host: string; sandbox: { sandboxed: boolean | null } }[];
    expect(places.map((p) => [p.host, p.sandbox.sandboxed])).toEqual([
      ["claude", true],
      ["codex", true],
    ]);
    fs.writeFileSync(
      path.join(home, ".codex", "config.toml"),
      'sandbox_mode = "workspace-write"\n\n[sandbox_workspace_write]\nwritable_roots = ["~/.unlazy"]\n',
    );
    const third = kbz(["doctor"], { cwd: repo, env });
    expect(third.stdout).toMatch(
      /NOT SANDBOXED: sandbox_mode = "workspace-write", but writable root .*\.unlazy holds the approval store/,
    );
  });
});
