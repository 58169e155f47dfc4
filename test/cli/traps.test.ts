// Issue 20 point 6: the small traps an agent fell into, one test per trap, named after it.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli } from "../helpers/cli.ts";
import { fixtureCopy, hashTree, writeTree } from "../helpers/kbz.ts";

const json = (stdout: string) => JSON.parse(stdout);

/** next-golden (one scope `api`, leaves 1..3) with a nested folder to run from. */
function oneScope(): { root: string; deep: string } {
  const root = fixtureCopy("next-golden");
  const deep = path.join(root, "src", "deep");
  fs.mkdirSync(deep, { recursive: true });
  return { root, deep };
}

describe("issue 20.6 traps", () => {
  test("20.6 trap 1: status, check and next find the root from a subdirectory", async () => {
    const { root, deep } = oneScope();
    const status = await runCli(["status", "--json"], { cwd: deep });
    expect([status.code, json(status.stdout).root, json(status.stdout).scope]).toEqual([1, root, "api"]);
    const check = await runCli(["check", "--status", "--json"], { cwd: deep });
    expect([check.code, json(check.stdout).root]).toEqual([1, root]);
    const next = await runCli(["next", "--json"], { cwd: deep });
    expect([next.code, json(next.stdout).action, json(next.stdout).launch]).toEqual([0, "dispatch", ["1", "3"]]);
    // In a git work tree without kbz files the git top level is the root.
    const repo = fixtureCopy("solo");
    fs.mkdirSync(path.join(repo, ".git"));
    fs.mkdirSync(path.join(repo, "lib", "x"), { recursive: true });
    const fromLib = await runCli(["status", "--json"], { cwd: path.join(repo, "lib", "x") });
    expect(json(fromLib.stdout).root).toBe(repo);
  });

  test("20.6 trap 2: next infers --scope when exactly one exists and --slots defaults to 4 (documented in --help)", async () => {
    const { root } = oneScope();
    const inferred = await runCli(["next", "--json"], { cwd: root });
    const explicit = await runCli(["next", "--scope", "api", "--slots", "4", "--json"], { cwd: root });
    expect(inferred.code).toBe(0);
    expect(json(inferred.stdout)).toEqual(json(explicit.stdout));
    expect((await runCli(["next"], { cwd: root })).stdout).toStartWith("scope api: 3 task(s), 4 slot(s)");
    // Two scopes: nothing is guessed, and the error says which exist.
    writeTree(root, { ".unlazy/web/GATES.md": "- [ ] G1: web\n" });
    const two = await runCli(["next", "--json"], { cwd: root });
    expect(two.code).toBe(2);
    expect(json(two.stdout).errors[0].hint).toContain("next needs --scope: 2 scopes exist (api, web)");
  });

  test("20.6 trap 3: leaf ids are accepted with and without leaf-, and an unknown id suggests the nearest", async () => {
    const a = fixtureCopy("pipe");
    const bare = await runCli(["scope", "claim", "--scope", "api", "--leaf", "1", "--json"], { cwd: a });
    expect([bare.code, json(bare.stdout).leaf]).toEqual([0, "leaf-1"]);
    const b = fixtureCopy("pipe");
    const prefixed = await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-1", "--json"], { cwd: b });
    expect([prefixed.code, json(prefixed.stdout).leaf]).toEqual([0, "leaf-1"]);
    const { root } = oneScope();
    expect(
      (await runCli(["wave", "open", "--wave", "w1", "--leaf", "1", "--leaf", "leaf-3"], { cwd: root })).code,
    ).toBe(0);
    const started = await runCli(["wave", "start", "--wave", "w1", "--leaf", "3", "--handle", "agent-3", "--json"], {
      cwd: root,
    });
    expect([started.code, json(started.stdout).wave.leaves]).toEqual([0, ["leaf-1", "leaf-3"]]);
    const typo = await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-11"], { cwd: fixtureCopy("pipe") });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown leaf leaf-11; did you mean leaf-1?");
    const wave = await runCli(["wave", "start", "--wave", "w1", "--leaf", "leaf-33", "--handle", "h"], { cwd: root });
    expect([wave.code, wave.stderr]).toEqual([
      2,
      expect.stringContaining("unknown leaf leaf-33 in wave w1; did you mean leaf-3?"),
    ]);
    const unknownWave = await runCli(["wave", "seal", "--wave", "w2"], { cwd: root });
    expect(unknownWave.stderr).toContain("unknown wave w2; did you mean w1?");
  });

  test("20.6 trap 4: claiming a lease you already hold, or repeating a recorded wave step, is exit 0 and says so", async () => {
    const dir = fixtureCopy("pipe");
    expect((await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-1"], { cwd: dir })).code).toBe(0);
    const before = hashTree(dir);
    const again = await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-1"], { cwd: dir });
    expect([again.code, again.stdout]).toEqual([
      0,
      "ALREADY CLAIMED 2 path(s) for api/leaf-1: src/api/**, tests/api/** (this leaf holds the lease; nothing changed)\n",
    ]);
    expect(
      json((await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-1", "--json"], { cwd: dir })).stdout)
        .verdict,
    ).toBe("already-claimed");
    expect(hashTree(dir)).toBe(before);
    // Another leaf overlapping it is still a conflict (exit 1).
    expect((await runCli(["scope", "claim", "--scope", "api", "--leaf", "leaf-2"], { cwd: dir })).code).toBe(1);

    const steps = [
      ["open", "--wave", "w1", "--leaf", "leaf-1"],
      ["start", "--wave", "w1", "--leaf", "leaf-1", "--handle", "agent-1"],
      ["seal", "--wave", "w1"],
      ["return", "--wave", "w1", "--leaf", "leaf-1"],
    ];
    for (const step of steps) {
      expect((await runCli(["wave", ...step, "--scope", "api"], { cwd: dir })).code).toBe(0);
      const log = fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8");
      const retry = await runCli(["wave", ...step, "--scope", "api"], { cwd: dir });
      expect([retry.code, retry.stdout]).toEqual([
        0,
        expect.stringMatching(/^ALREADY RECORDED: .* \(nothing changed\)\n$/),
      ]);
      expect(fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8")).toBe(log);
    }
    // The same step with other values is still refused.
    const other = await runCli(
      ["wave", "start", "--scope", "api", "--wave", "w1", "--leaf", "leaf-1", "--handle", "agent-2"],
      { cwd: dir },
    );
    expect(other.code).toBe(2);
  });

  test("20.6 trap 5: review items after an open or an abandoned wave name their way out", async () => {
    const { root } = oneScope();
    expect((await runCli(["wave", "open", "--wave", "w1", "--leaf", "leaf-1"], { cwd: root })).code).toBe(0);
    const open = await runCli(["next"], { cwd: root });
    expect(open.code).toBe(1);
    expect(open.stdout).toContain("resume-open-wave wave w1");
    expect(open.stdout).toContain(
      "    next: record the missing steps (kbz wave start --scope api --wave w1 --leaf L --handle H, then kbz wave seal --scope api --wave w1), or give the wave up: kbz wave abandon --scope api --wave w1 --reason TEXT",
    );
    expect((await runCli(["wave", "abandon", "--wave", "w1", "--reason", "agent crashed"], { cwd: root })).code).toBe(
      0,
    );
    const abandoned = await runCli(["next", "--json"], { cwd: root });
    const j = json(abandoned.stdout);
    expect(j.attention).toEqual([{ wave: "w1", reason: "resume-abandoned-wave" }]);
    expect(j.reviewHints).toEqual([
      "an abandoned wave is a handoff and stays one: stop and tell the user (kbz wave status --scope api --wave w1 shows the reason); nothing more can be launched in this scope until they decide",
    ]);
    const status = await runCli(["wave", "status", "--wave", "w1"], { cwd: root });
    expect(status.stdout).toContain("agent crashed");
    const skill = fs.readFileSync(path.join(import.meta.dir, "../../skill/references/orchestration.md"), "utf8");
    expect(skill).toContain("resume-open-wave");
    expect(skill).toContain("resume-abandoned-wave");
  });

  test("20.6 trap 6: text-mode errors end with 'run kbz --help for usage' only for usage errors", async () => {
    const usage = await runCli(["next", "--slots", "0"], { cwd: oneScope().root });
    expect(usage.stderr.trimEnd().split("\n").pop()).toBe("run kbz --help for usage");
    const { root } = oneScope();
    fs.writeFileSync(path.join(root, ".unlazy/api/dispatch.json"), "{");
    for (const args of [["next"], ["status"], ["wave", "list"]]) {
      const r = await runCli(args, { cwd: root });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(".unlazy/api/dispatch.json:1:");
      expect(r.stderr).not.toContain("--help");
    }
    const lint = await runCli(["lint", "missing.md"], { cwd: root });
    expect([lint.code, lint.stderr.includes("--help")]).toEqual([2, false]);
  });

  test("20.6 trap 7 (fixes unlazy bug: a scope hid the solo ledger): once a scope exists the root GATES.md is judged with it, never dropped from status", async () => {
    const { root } = oneScope();
    writeTree(root, { "GATES.md": "- [ ] R1: root outcome\n  EVIDENCE: pending\n" });
    const text = await runCli(["status"], { cwd: root });
    expect(text.stdout).toContain("UNMET       GATES:R1 (unchecked): root outcome");
    expect(text.code).toBe(1);
    const j = json((await runCli(["status", "--json"], { cwd: root })).stdout);
    expect(j.notInScope).toEqual([]);
    expect(j.unmet).toContain("GATES:R1");
    // Named explicitly, it is read.
    const solo = await runCli(["status", "GATES.md", "--json"], { cwd: root });
    expect(json(solo.stdout).unmet).toEqual(["GATES:R1"]);
  });

  test("20.6 trap 8: kbz scope log and kbz scope bind keep everything after --", async () => {
    const dir = fixtureCopy("pipe");
    const log = await runCli(["scope", "log", "--scope", "api", "--", "-1 test left, --retry next"], { cwd: dir });
    expect(log.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8")).toMatch(
      /^\S+Z -1 test left, --retry next\n$/,
    );
    const words = await runCli(["scope", "log", "--scope", "api", "leaf-1", "--", "--done"], { cwd: dir });
    expect(words.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, ".unlazy/api/status.log"), "utf8")).toEndWith("leaf-1 --done\n");
    const bind = await runCli(["scope", "bind", "--scope", "web", "--", "-session-7"], { cwd: dir });
    expect(bind.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, ".unlazy/web/session"), "utf8")).toBe("-session-7\n");
  });
});
