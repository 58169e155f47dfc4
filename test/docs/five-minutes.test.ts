// The README as a newcomer runs it (issue 44 items 1-2). First its quick start in a clone of this
// repository: `npm run setup` (npm install's node_modules is this checkout's, linked) with npm's
// global prefix moved to a scratch folder (npm_config_prefix, as `npm install -g` honours), then
// `kbz` from that folder. Then "your repository in five minutes" with that installed kbz, as
// written, in a fresh git repository: every `kbz …` line of its block runs; the person's act
// (approving) runs on a pseudo-terminal (`script -qec`) in an environment without any agent
// host's marker, everything else as an agent would run it (no terminal). The gates are a real
// small task: before the work the Stop hook blocks, after it `kbz check` says ALL MET and the hook
// lets the agent stop. On 571b8e3 the quick start left no kbz on PATH and `kbz init` was not found.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { privateApprovalDir } from "../helpers/approvals.ts";
import { REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";

const AGENT_MARKERS = [
  "CLAUDECODE",
  "GEMINI_CLI",
  "CODEX_SANDBOX",
  "CODEX_THREAD_ID",
  "CURSOR_AGENT",
  "GOOSE_TERMINAL",
  "AGENT",
  "AI_AGENT",
];

/** The shell lines of the README section `heading`'s first sh block, comments dropped. */
export function shLines(heading: string, readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8")): string[] {
  const section = readme.split(`## ${heading}`)[1]!.split("\n## ")[0]!;
  const block = section.split("```sh\n")[1]!.split("```")[0]!;
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "");
}

/** The shell lines of the README's five-minute block, comments dropped. */
export const fiveMinuteLines = () => shLines("Your repository in five minutes");

/**
 * The quick start in a clone of this repository, kbz installed into `prefix` by its own first line
 * (npm install's node_modules linked from this checkout). Returns the folder kbz is in.
 */
function quickStartInstall(prefix: string, home: string): string {
  const [install, dashboard] = shLines("Quick start");
  expect([install, dashboard]).toEqual(["npm install && npm run setup", "kbz"]);
  const clone = path.join(tempDir("kbz-clone-"), "kbz");
  const cloned = spawnSync("git", ["clone", "-q", REPO, clone], { encoding: "utf8" });
  expect([cloned.status, cloned.stderr]).toEqual([0, ""]);
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(clone, "node_modules"));
  const bin = path.join(prefix, "bin");
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, npm_config_prefix: prefix, HOME: home };
  const r = spawnSync("sh", ["-c", install!.replace(/^npm install && /, "")], { cwd: clone, env, encoding: "utf8" });
  expect([r.status, r.stderr.replace(/^npm (notice|warn).*\n/gm, "")]).toEqual([0, ""]);
  expect(r.stdout).toContain(`as ${bin}/kbz\nkbz is on your PATH`);
  fs.rmSync(path.dirname(clone), { recursive: true, force: true }); // the installed kbz needs nothing of the clone
  return bin;
}

// The task the gates describe: greet() says hello by name. The agent's work is src/greet.mjs.
const LEDGER = `# Gates: greeting

- [ ] G1: greet says hello by name
  CHECK: node test/check-greet.mjs
  EXPECT: GREET_OK Hello, Ann
  EVIDENCE: pending
`;
const CHECKER = `import { greet } from "../src/greet.mjs";\nconst got = greet("Ann");\nif (got !== "Hello, Ann") { console.log("GREET_WRONG " + got); process.exit(1); }\nconsole.log("GREET_OK " + got);\n`;

describe.skipIf(!needs("script"))("README: the quick start from a clone, then your repository in five minutes", () => {
  test("issue 44 items 1-2: the quick start puts kbz on PATH; every five-minute line then runs with that kbz, and the path ends ALL MET with the Stop hook allowing", () => {
    const lines = fiveMinuteLines();
    expect(lines.some((l) => l.startsWith("kbz init"))).toBe(true);
    expect(lines.some((l) => l.startsWith("kbz hook install"))).toBe(true);
    // The person approves with kbz approve, which shows each oracle whole (not check --approve, which also runs it).
    expect(lines).toContain("kbz approve");
    expect(lines.some((l) => l.includes("--approve"))).toBe(false);

    const repo = tempDir("kbz-five-");
    expect(spawnSync("git", ["init", "-q"], { cwd: repo }).status).toBe(0);
    const store = privateApprovalDir();
    const home = path.join(path.dirname(store), "home");
    fs.mkdirSync(home);
    const bin = quickStartInstall(tempDir("kbz-prefix-"), home);
    const KBZ = path.join(bin, "kbz");
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !AGENT_MARKERS.includes(k) && k !== "UNLAZY_SCOPE") env[k] = v;
    Object.assign(env, { PATH: `${bin}:/usr/bin:/bin`, HOME: home, UNLAZY_APPROVAL_DIR: store, TERM: "dumb" });
    // The quick start's second line: `kbz` is found on PATH (no terminal here: it says what to do next).
    const dash = spawnSync("/bin/sh", ["-c", "kbz"], { cwd: tempDir("kbz-empty-"), env, encoding: "utf8" });
    expect([dash.status, dash.stdout]).toEqual([0, expect.stringContaining("kbz init")]);

    const sh = (line: string, input = "") =>
      spawnSync("/bin/sh", ["-c", line], { cwd: repo, env, input, encoding: "utf8" });
    const asPerson = (line: string) =>
      spawnSync("script", ["-qec", line, "/dev/null"], { cwd: repo, env, input: "a\n", encoding: "utf8" });
    const stop = () =>
      spawnSync(KBZ, ["hook", "stop", "--agent", "claude"], {
        cwd: repo,
        env,
        input: JSON.stringify({ session_id: "five", cwd: repo, hook_event_name: "Stop", stop_hook_active: false }),
        encoding: "utf8",
      });

    for (const line of lines) {
      if (line.startsWith("cd ")) continue; // the block's own repository is this one
      if (line.startsWith("$EDITOR")) {
        // Writing the gates: the task's one outcome, with a checker that can fail.
        writeTree(repo, { "GATES.md": LEDGER, "test/check-greet.mjs": CHECKER });
        continue;
      }
      expect([line, line.startsWith("kbz ")]).toEqual([line, true]);
      // Approving is the person's act: a terminal, no agent host's marker.
      const person = /\bapprove\b|--approve\b/.test(line);
      const r = person ? asPerson(line) : sh(line);
      if (line === "kbz approve") {
        const shown = r.stdout.replace(/\r\n/g, "\n");
        expect(shown).toContain("    CHECK:  node test/check-greet.mjs");
        expect(shown).toContain("    ORACLE FILES: test/check-greet.mjs (node)");
        expect(shown).toContain("APPROVED GATES:G1");
      }
      // Approving a check that cannot pass yet (the work is not done) may say so with exit 1.
      const ok = person ? [0, 1] : [0];
      expect([line, ok.includes(r.status ?? -1) ? "ok" : `exit ${r.status}: ${r.stdout}${r.stderr}`]).toEqual([
        line,
        "ok",
      ]);
    }

    // The person approved the oracle; the agent has not done the work: the Stop hook blocks.
    expect(sh("kbz approvals explain GATES.md G1").status).toBe(0);
    expect(JSON.parse(stop().stdout)).toMatchObject({ decision: "block", reason: expect.stringContaining("GATES:G1") });

    // The agent works, then runs kbz check as the README says.
    writeTree(repo, { "src/greet.mjs": "export const greet = (name) => `Hello, ${name}`;\n" });
    const check = sh("kbz check");
    expect([check.status, check.stdout]).toEqual([0, expect.stringContaining("ALL MET")]);
    const status = sh("kbz status");
    expect([status.status, status.stdout]).toEqual([0, expect.stringContaining("ALL MET")]);
    expect(fs.readFileSync(path.join(repo, "GATES.md"), "utf8")).toContain("- [x] G1: greet says hello by name");
    expect(stop()).toMatchObject({ status: 0, stdout: "" });
  }, 120_000);
});
