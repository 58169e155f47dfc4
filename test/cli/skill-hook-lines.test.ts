// Every `kbz hook …` line in the skill's Stop hook reference runs, in order, in a fresh repository
// and HOME, and does what its comment says (the skill is the agent's only manual).
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { shellWords } from "../../src/io/hook/install.ts";

const DOC = path.join(REPO, "skill", "references", "stop-hook.md");

function docLines(): { argv: string[]; comment: string }[] {
  const text = fs.readFileSync(DOC, "utf8");
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.split("\n"))
    .filter((l) => l.startsWith("kbz "))
    .map((l) => {
      const [cmd, comment = ""] = l.split(/\s+#\s+/, 2);
      return { argv: shellWords(cmd!).slice(1), comment };
    });
}

describe("the skill's kbz hook lines", () => {
  test("every one runs: exit 0, except hook status and doctor while an installed Codex hook waits for the user's trust (1)", () => {
    const root = tempDir("kbz-skill-lines-");
    const home = tempDir("kbz-skill-home-");
    writeTree(root, { "GATES.md": "# Gates\n\n- [ ] G1: outcome\n" });
    const lines = docLines();
    expect(lines.some((l) => l.argv[0] === "doctor")).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(10);
    let codexInstalled = false;
    for (const { argv, comment } of lines) {
      const r = kbz(argv, { cwd: root, env: { HOME: home, CODEX_HOME: path.join(home, ".codex") } });
      if (argv.includes("codex")) codexInstalled = !argv.includes("--uninstall");
      // hook status and doctor say 1 while the installed Codex hook waits for the user's trust.
      const checks = argv[0] === "doctor" || argv[1] === "status";
      const want = checks && codexInstalled ? 1 : 0;
      expect([argv.join(" "), r.code, r.stderr]).toEqual([argv.join(" "), want, ""]);
      if (argv[1] === "status")
        expect(r.stdout).toContain(codexInstalled ? "trust kbz's Stop hook" : "claude local   ok");
      for (const p of comment.match(/\.(claude|codex|cursor|gemini|qwen)\/[a-z.]+\.(json)/g) ?? []) {
        if (!argv.includes("--uninstall"))
          expect([argv.join(" "), fs.existsSync(path.join(argv.includes("--global") ? home : root, p))]).toEqual([
            argv.join(" "),
            true,
          ]);
      }
    }
  }, 120_000);
});

// Issue 43: the skill carries the payload shapes for `hook stop`, with examples: each one, piped into
// kbz hook stop --agent HOST in a folder with one unmet gate, is answered with that host's block.
describe("the skill's hook stop payloads", () => {
  test("every example payload in references/stop-hook.md is read by kbz hook stop and answered with a block naming the gate", () => {
    const text = fs.readFileSync(DOC, "utf8");
    const payloads = [...text.matchAll(/```json payload ([a-z]+)\n([\s\S]*?)```/g)].map(
      (m) => [m[1]!, m[2]!.trim()] as const,
    );
    expect(payloads.map(([host]) => host)).toEqual(["claude", "codex", "cursor", "gemini", "copilot"]);
    for (const [host, payload] of payloads) {
      const root = tempDir("kbz-skill-payload-");
      writeTree(root, { "GATES.md": "# Gates\n\n- [ ] G1: outcome\n" });
      const r = kbz(["hook", "stop", "--agent", host], {
        cwd: root,
        input: payload.replaceAll('"."', JSON.stringify(root)),
      });
      expect([host, r.code]).toEqual([host, 0]);
      const answer = JSON.parse(r.stdout);
      const said = answer.reason ?? answer.followup_message ?? "";
      expect([host, said]).toEqual([host, expect.stringContaining("GATES:G1")]);
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
