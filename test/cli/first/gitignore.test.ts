// Issue 44 item 8, on the binary: after `kbz init`, a checked gate and `kbz hook install`, git
// status shows only what the person commits (the ledger, the check script, .gitignore): kbz's
// local state is ignored, and both verbs say in one line what to commit and what not.
// On 571b8e3 `git status` showed `?? .kbz/` and `?? .claude/` and hook install ignored nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { flowRepo } from "../../helpers/flow.ts";
import { kbz, REPO, tempDir } from "../../helpers/kbz.ts";
import { LOCAL_STATE } from "../../../src/core/workspace/local-state.ts";

const repo = flowRepo("kbz-gitignore-");
afterAll(() => repo.cleanup());
const git = (...args: string[]) => spawnSync("git", args, { cwd: repo.dir, encoding: "utf8" });

describe("issue 44 item 8: what goes in git is unsaid → init and hook install write the .gitignore lines and say what to commit", () => {
  test("git status after init, a checked gate and hook install lists only what the person commits", () => {
    expect(git("init", "-q").status).toBe(0);
    const init = repo.run(["init"]);
    expect(init.code).toBe(0);
    expect(init.stdout.split("\n")[1]).toBe(
      "git: commit the ledgers, PLAN.md, ACCESS.json, .kbz/settings.json, the skill and shared hook settings; not kbz's local state (.gitignore: 11 line(s) added)",
    );
    // The task's own gate, approved (agent policy, as in unlazy) and checked: .kbz/ gets its records.
    repo.write(
      "GATES.md",
      "# Gates: greeting\n\n- [ ] G1: greet prints hello\n  CHECK: node greet.mjs\n  EXPECT: HELLO_OK\n  EVIDENCE: pending\n",
    );
    repo.write("greet.mjs", 'console.log("HELLO_OK");\n');
    const check = repo.run(["check", "--approve"]);
    expect([check.code, check.stdout]).toEqual([0, expect.stringContaining("ALL MET")]);
    expect(fs.existsSync(path.join(repo.dir, ".kbz"))).toBe(true);
    const hook = repo.run(["hook", "install", "--agent", "claude"]);
    expect(hook.code).toBe(0);
    // Its wording is engineer tokens' (issue 43): what is ignored (here: already) and what is committed.
    expect(hook.stdout).toMatch(/\n {2}ignore: +\/\.kbz\/inputs\/ .*\(\.gitignore has them\)\n {2}commit: +GATES\.md /);
    expect(fs.existsSync(path.join(repo.dir, ".claude", "settings.local.json"))).toBe(true);
    expect(git("status", "--short", "--untracked-files=all").stdout.split("\n").filter(Boolean).sort()).toEqual([
      "?? .gitignore",
      "?? GATES.md",
      "?? greet.mjs",
    ]);
    const ignore = repo.read(".gitignore");
    const doc = fs.readFileSync(path.join(REPO, "docs", "formats.md"), "utf8").split('<a id="gitignore">')[1]!;
    for (const p of LOCAL_STATE)
      expect([p, ignore.includes(`${p}\n`), doc.includes(`\n${p}\n`)]).toEqual([p, true, true]);
  });

  test("a .gitignore with its own lines keeps them, gets only what it lacks, once; a linked one is left alone", () => {
    const dir = tempDir("kbz-gitignore-own-");
    fs.writeFileSync(path.join(dir, ".gitignore"), "node_modules\n.kbz/inputs/");
    const r = kbz(["init"], { cwd: dir });
    expect(r.stdout).toContain("(.gitignore: 10 line(s) added)");
    const text = fs.readFileSync(path.join(dir, ".gitignore"), "utf8");
    expect(text).toStartWith("node_modules\n.kbz/inputs/\n\n# kbz: this machine's state");
    expect(text.match(/\.kbz\/inputs\//g)).toHaveLength(1);
    fs.rmSync(path.join(dir, "GATES.md"));
    expect(kbz(["init"], { cwd: dir }).stdout).toContain("(.gitignore has it)");
    expect(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe(text);

    const linked = tempDir("kbz-gitignore-link-");
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "mine\n");
    fs.symlinkSync(victim, path.join(linked, ".gitignore"));
    const l = kbz(["init", "--json"], { cwd: linked });
    expect(JSON.parse(l.stdout).gitignore).toMatchObject({
      added: [],
      skipped: ".gitignore is not a regular file; left alone",
    });
    expect(fs.readFileSync(victim, "utf8")).toBe("mine\n");
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(linked, { recursive: true, force: true });
  });
});
