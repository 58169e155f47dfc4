// Every `kbz …` line of the oracle section of skill/references/gates.md runs, in order, in a fresh
// git repository, and prints what its comment says (the skill is the agent's only manual).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { shellWords } from "../../src/io/hook/install.ts";

const DOC = path.join(REPO, "skill", "references", "gates.md");

function docLines(): { argv: string[]; comment: string }[] {
  const text = fs.readFileSync(DOC, "utf8");
  const section = text.slice(text.indexOf("## The oracle binding in practice"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split("\n")
    .filter((l) => l.startsWith("kbz "))
    .map((l) => {
      const [cmd, comment = ""] = l.split(/\s+#\s+/, 2);
      return { argv: shellWords(cmd!).slice(1), comment };
    });
}

describe("the skill's oracle lines", () => {
  test("each runs and does what its comment says", () => {
    const dir = tempDir("kbz-skill-oracle-");
    writeTree(dir, {
      "GATES.md": "# Gates\n\n- [ ] G1: 2 + 2 is 4\n  CHECK: node check.mjs\n  EXPECT: ADD_OK\n  EVIDENCE: pending\n",
      "check.mjs": "if (2 + 2 !== 4) process.exit(1);\nconsole.log('ADD_OK');\n",
    });
    const git = (...a: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: dir });
    git("init", "-q", ".");
    git("add", "-A");
    git("commit", "-qm", "init");
    const env = agentEnv({ PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` });
    const lines = docLines();
    expect(lines.map((l) => l.argv.slice(0, 2).join(" "))).toEqual([
      "lint GATES.md",
      "check",
      "check --approve=SIG",
      "status",
      "approvals explain",
    ]);
    let sig = "";
    for (const { argv, comment } of lines) {
      if (argv.join(" ") === "status") fs.writeFileSync(path.join(dir, "check.mjs"), "console.log('ADD_OK');\n"); // "after an oracle file changed"
      const r = kbz(
        argv.map((a) => (a === "--approve=SIG" ? `--approve=${sig}` : a)),
        { cwd: dir, env },
      );
      const text = r.stdout + r.stderr;
      if (argv[0] === "lint") expect(r.code).toBe(0);
      else if (argv.join(" ") === "check") {
        expect(r.code).toBe(1);
        expect(comment).toContain("[SIG] and a PERSON line");
        sig = /APPROVAL REQUIRED GATES:G1 \[([0-9a-f]{12})\]/.exec(text)![1]!;
        expect(text).toContain("PERSON: 1 oracle to approve");
      } else if (argv[1]?.startsWith("--approve=")) {
        expect(r.code).toBe(0);
        expect(text).toContain("APPROVED GATES:G1\nALL MET (1 met)");
      } else if (argv[0] === "status") {
        expect(r.code).toBe(1);
        expect(text).toMatch(/STALE +GATES:G1 \(oracle changed: check\.mjs;/);
      } else {
        expect(r.code).toBe(1);
        expect(text).toContain("oracle file changed: check.mjs");
        expect(text).toContain("- if (2 + 2 !== 4) process.exit(1);");
      }
    }
  });
});
