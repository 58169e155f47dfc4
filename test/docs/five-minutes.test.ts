// The README's "your repository in five minutes", run as written in a fresh git repository:
// every `kbz …` line of its block runs; the person's act (approving) runs on a pseudo-terminal
// (`script -qec`) in an environment without any agent host's marker, everything else as an agent
// would run it (no terminal). The gates are a real small task: before the work the Stop hook
// blocks, after it `kbz check` says ALL MET and the hook lets the agent stop.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { privateApprovalDir } from "../helpers/approvals.ts";
import { BIN, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
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

/** The shell lines of the README's five-minute block, comments dropped. */
export function fiveMinuteLines(readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8")): string[] {
  const section = readme.split("## Your repository in five minutes")[1]!.split("\n## ")[0]!;
  const block = section.split("```sh\n")[1]!.split("```")[0]!;
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "");
}

// The task the gates describe: greet() says hello by name. The agent's work is src/greet.mjs.
const LEDGER = `# Gates: greeting

- [ ] G1: greet says hello by name
  CHECK: node test/check-greet.mjs
  EXPECT: GREET_OK Hello, Ann
  EVIDENCE: pending
`;
const CHECKER = `import { greet } from "../src/greet.mjs";\nconst got = greet("Ann");\nif (got !== "Hello, Ann") { console.log("GREET_WRONG " + got); process.exit(1); }\nconsole.log("GREET_OK " + got);\n`;

describe.skipIf(!needs("script"))("README: your repository in five minutes", () => {
  test("every line runs in a fresh repository, and the path ends ALL MET with the Stop hook allowing", () => {
    const lines = fiveMinuteLines();
    expect(lines.some((l) => l.startsWith("kbz init"))).toBe(true);
    expect(lines.some((l) => l.startsWith("kbz hook install"))).toBe(true);
    // The person approves with kbz approve, which shows each oracle whole (not check --approve, which also runs it).
    expect(lines).toContain("kbz approve");
    expect(lines.some((l) => l.includes("--approve"))).toBe(false);

    const repo = tempDir("kbz-five-");
    expect(spawnSync("git", ["init", "-q"], { cwd: repo }).status).toBe(0);
    const bin = tempDir("kbz-five-bin-");
    fs.symlinkSync(BIN, path.join(bin, "kbz"));
    const store = privateApprovalDir();
    const home = path.join(path.dirname(store), "home");
    fs.mkdirSync(home);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !AGENT_MARKERS.includes(k) && k !== "UNLAZY_SCOPE") env[k] = v;
    Object.assign(env, { PATH: `${bin}:/usr/bin:/bin`, HOME: home, UNLAZY_APPROVAL_DIR: store, TERM: "dumb" });

    const sh = (line: string, input = "") =>
      spawnSync("/bin/sh", ["-c", line], { cwd: repo, env, input, encoding: "utf8" });
    const asPerson = (line: string) =>
      spawnSync("script", ["-qec", line, "/dev/null"], { cwd: repo, env, input: "a\n", encoding: "utf8" });
    const stop = () =>
      spawnSync(BIN, ["hook", "stop", "--agent", "claude"], {
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
