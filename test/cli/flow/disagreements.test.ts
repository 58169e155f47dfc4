// Issue 43, "where the tool disagreed with itself": one test per bullet of the list, named after it,
// on the binary (the agent's shell: a plain child process, no terminal). Each one fails on 571b8e3.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { flowRepo, leafGates, type FlowRepo } from "../../helpers/flow.ts";
import { stopHook } from "../../helpers/hook.ts";
import { BIN, kbz, tempDir } from "../../helpers/kbz.ts";
import { personRun } from "../../helpers/approvals.ts";

setDefaultTimeout(300_000);

let repo: FlowRepo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

/** A scope S with these leaves (id, folder, needs), each ledger one gate met once its folder has done.txt. */
function scope(leaves: [string, string, string?][]): FlowRepo {
  const r = (repo = flowRepo("kbz-disagree-"));
  const ok = (args: string[]) => expect([args.join(" "), r.run(args).code]).toEqual([args.join(" "), 0]);
  ok(["init", "--scope", "S"]);
  for (const [id, dir, needs] of leaves) {
    ok(["plan", "add", "--scope", "S", id, "--owns", `src/${dir}/**`, ...(needs ? ["--needs", needs] : [])]);
    r.write(`.unlazy/S/gates/leaf-${id}.md`, leafGates(id, `src/${dir}/**`, `src/${dir}/done.txt`));
  }
  return r;
}

/** A solo GATES.md beside the scope: one gate that reads README (INPUTS), approved and met. */
function soloMet(r: FlowRepo): void {
  r.write("README", "v1\n");
  r.write(
    "GATES.md",
    "# Gates\n\n- [ ] G1: the readme exists\n  CHECK: test -f README && printf README_OK\n  EXPECT: README_OK\n  INPUTS: README\n  EVIDENCE: pending\n",
  );
  expect(r.run(["approve", "GATES.md"], { input: "y\n" }).code).toBe(0);
  expect(r.run(["check", "GATES.md"]).stdout).toStartWith("ALL MET");
}

describe("issue 43: where the tool disagreed with itself", () => {
  test("kbz structure check --scope S before any structure change exits 2 (STRUCTURE registry is not initialized); help promises 0 or 1", () => {
    const r = scope([
      ["1", "a"],
      ["2", "b", "1"],
    ]);
    const x = r.run(["structure", "check", "--scope", "S"]);
    expect([x.code, x.stderr]).toEqual([0, ""]);
    expect(x.stdout).toStartWith("STRUCTURE_OK: 0 residual issue(s)");
    const j = r.run(["structure", "check", "--scope", "S", "--json"]);
    expect([j.code, JSON.parse(j.stdout).marker]).toEqual([0, "STRUCTURE_OK"]);
    // Nothing was written: the registry is still the one the first event will make.
    expect(fs.existsSync(path.join(r.dir, ".unlazy/S/STRUCTURE.json"))).toBe(false);
  });

  test("structure --help lists --details, and structure check … --details exits 2 (unknown or duplicate option)", () => {
    const r = scope([
      ["1", "a"],
      ["2", "b", "1"],
    ]);
    expect(r.run(["structure", "check", "--help"]).stdout).toContain("--details");
    const x = r.run(["structure", "check", "--scope", "S", "--details"]);
    expect([x.code, x.stderr]).toEqual([0, ""]);
    // Details: every finding and the groups the plan was checked with.
    expect(x.stdout).toBe("STRUCTURE_OK: 0 residual issue(s)\n2 groups: 1 | 2\n");
    expect(JSON.parse(r.run(["structure", "check", "--scope", "S", "--details", "--json"]).stdout).groups).toEqual([
      ["1"],
      ["2"],
    ]);
  });

  test("after the root is verified and the scope released, kbz next still prints VERIFY-ROOT …: it never says the work is done", () => {
    const r = scope([["1", "a"]]);
    expect(r.run(["approve", "--scope", "S"], { input: "y\n" }).code).toBe(0);
    expect(r.run(["next", "--scope", "S", "--launch"]).code).toBe(0);
    r.write("src/a/done.txt", "done\n");
    const adv = r.run(["advance", "--scope", "S", "--leaf", "1"]);
    expect(adv.stdout).toContain("VERIFY-ROOT");
    expect(r.run(["sign", ".unlazy/S/GATES.md", "N2", "--evidence", "report matches the inventory"]).code).toBe(0);
    expect(r.run(["check", "--scope", "S", "--reverify"]).stdout).toStartWith("ALL MET");
    expect(r.run(["scope", "release", "--scope", "S"]).code).toBe(0);
    const x = r.run(["next", "--scope", "S"]);
    expect([x.code, x.stdout.trimEnd().split("\n").pop()]).toEqual([
      0,
      "DONE: scope S is verified and released: nothing left to do",
    ]);
    expect(x.stdout).not.toContain("VERIFY-ROOT");
    const j = JSON.parse(r.run(["next", "--scope", "S", "--json"]).stdout);
    expect([j.exit, j.verdict, j.action]).toEqual([0, "done", "done"]);
  });

  test("next --details showed SEQUENTIAL GROUPS 3 where the regroup then said 5 group(s) now", () => {
    // 1 -> 2 is a chain; 3 -> 4 -> 5 too, and 6 also needs 3: six leaves.
    const r = scope([
      ["1", "a"],
      ["2", "b", "1"],
      ["3", "c"],
      ["4", "d", "3"],
      ["5", "e", "4"],
      ["6", "f", "3"],
    ]);
    const count = (s: string) => Number(/^(?:SEQUENTIAL )?GROUPS (\d+)/m.exec(s)?.[1]);
    const before = count(r.run(["next", "--scope", "S", "--details"]).stdout);
    const x = r.run(["structure", "regroup", "--scope", "S", "1", "2"]);
    expect(x.code).toBe(0);
    const said = Number(/\((\d+) group\(s\) now\)/.exec(x.stdout)?.[1]);
    // One regroup merges two groups into one: one group fewer than next counted, and next agrees.
    expect([before, said]).toEqual([6, 5]);
    expect(count(r.run(["next", "--scope", "S", "--details"]).stdout)).toBe(said);
    expect(JSON.parse(r.run(["structure", "check", "--scope", "S", "--details", "--json"]).stdout).groups).toHaveLength(
      said,
    );
  });

  test("solo gates that a leaf's work made STALE never appear in the scope's kbz next; only status and the hook show them", () => {
    const r = scope([
      ["1", "a"],
      ["2", "b"],
    ]);
    soloMet(r);
    expect(r.run(["approve", "--scope", "S"], { input: "y\n" }).code).toBe(0);
    expect(r.run(["next", "--scope", "S", "--launch"]).code).toBe(0);
    // Leaf 1's work touches the file the solo gate reads.
    r.write("README", "v2\n");
    r.write("src/a/done.txt", "done\n");
    r.run(["advance", "--scope", "S", "--leaf", "1"]);
    const x = r.run(["next", "--scope", "S"]);
    expect(x.stdout).toContain(
      "REVIEW SOLO 1:\n  GATES.md:G1 STALE (input changed: README); next: kbz check GATES.md\n",
    );
    const j = JSON.parse(r.run(["next", "--scope", "S", "--json"]).stdout);
    expect(j.solo).toEqual([{ ledger: "GATES.md", gate: "G1", state: "STALE (input changed: README)", manual: false }]);
  });

  test("the hook's block names GATES:G1 (the solo ledger) and GATES:N1 (the scope's) alike", () => {
    const r = scope([["1", "a"]]);
    r.write(
      "GATES.md",
      "# Gates\n\n- [ ] G1: the readme exists\n  CHECK: test -f README && printf README_OK\n  EXPECT: README_OK\n  EVIDENCE: pending\n",
    );
    const h = stopHook({ cwd: r.dir, session_id: "s1", hook_event_name: "Stop" }, { env: r.env });
    const reason = JSON.parse(h.stdout).reason as string;
    expect(reason).toContain("GATES:G1");
    expect(reason).toContain(".unlazy/S/GATES:N1");
    // No two gates of different ledgers share a name anywhere: status says the same.
    const ids = [...r.run(["status", "--scope", "S"]).stdout.matchAll(/^ {2}[A-Z-]+ +(\S+:\S+?)[ :]/gm)].map(
      (m) => m[1],
    );
    expect(ids).toContain(".unlazy/S/GATES:N1");
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain("GATES:N1");
  });

  test("the Copilot deny list names kbz hook uninstall, which is not a verb", () => {
    const dir = tempDir("kbz-deny-");
    const home = tempDir("kbz-deny-home-");
    const r = kbz(["hook", "install", "--agent", "copilot"], { cwd: dir, env: { HOME: home } });
    expect(r.code).toBe(0);
    const denied = [...r.stdout.matchAll(/shell\(kbz ([^:]+):\*\)/g)].map((m) => m[1]!.split(" "));
    expect(denied.length).toBeGreaterThan(3);
    const verbs = new Set([...kbz(["--help"]).stdout.matchAll(/^ {2}kbz ([a-z]+)/gm)].map((m) => m[1]));
    for (const words of denied) {
      expect([words.join(" "), verbs.has(words[0]!)]).toEqual([words.join(" "), true]);
      // The action, when there is one, is one the verb's own help lists.
      const action = words[1];
      if (action !== undefined && !action.startsWith("-")) {
        const page = kbz([words[0]!, "--help"]).stdout;
        expect([words.join(" "), new RegExp(`\\b${action}\\b`).test(page)]).toEqual([words.join(" "), true]);
      }
    }
    expect(r.stdout).not.toContain("hook uninstall");
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("hook install says keep .unlazy/ … ignored (local state), but .unlazy/<scope>/ holds the plan and its ledgers", () => {
    const r = scope([["1", "a"]]);
    expect(r.run(["next", "--scope", "S", "--launch"]).code).toBe(0);
    spawnSync("git", ["init", "-q"], { cwd: r.dir });
    // Installing the guard is the person's act: in a terminal, no agent host's marker.
    const home = tempDir("kbz-disagree-home-");
    const x = personRun(BIN, ["hook", "install"], { cwd: r.dir, env: { ...r.env, HOME: home } });
    expect([x.code, x.output]).toEqual([0, expect.stringContaining("Installed")]);
    const line = (name: string) =>
      x.output
        .split("\n")
        .find((l) => l.startsWith(`  ${name}:`))!
        .slice(`  ${name}:`.length)
        .replace(/ \(.*\)$/, "")
        .trim()
        .split(" ");
    const ignore = line("ignore");
    const commit = line("commit");
    expect(commit).toContain(".unlazy/*/PLAN.md");
    // What it names as ignored is what git ignores now, and none of the plan or its ledgers.
    r.write("GATES.md", "# Gates\n");
    const files = [
      "GATES.md",
      ".unlazy/S/PLAN.md",
      ".unlazy/S/ACCESS.json",
      ".unlazy/S/GATES.md",
      ".unlazy/S/gates/leaf-1.md",
      ".unlazy/S/dispatch.json",
      ".unlazy/S/status.log",
      ".claude/settings.local.json",
    ];
    const ignored = spawnSync("git", ["check-ignore", ...files], { cwd: r.dir, encoding: "utf8" })
      .stdout.trim()
      .split("\n");
    expect(ignored).toEqual([".unlazy/S/dispatch.json", ".unlazy/S/status.log", ".claude/settings.local.json"]);
    for (const f of ignored) expect(ignore.some((p) => p.replace("*", "S").replace(/^\//, "") === f)).toBe(true);
    const committed = (f: string) =>
      commit.some((c) => {
        const p = c.replace("*", "S");
        return f === p || (p.endsWith("/") && f.startsWith(p));
      });
    for (const f of files) if (!ignored.includes(f)) expect([f, committed(f)]).toEqual([f, true]);
  });
});
