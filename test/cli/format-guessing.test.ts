// Issue 30, problem "Format guessing": Stop payloads undocumented (`kbz hook stop --help` printed
// `kbz hook --help`), the CHECK output order unsaid, and `kbz hook status` exiting 1 on a Codex
// trust warning on a machine without Codex. Each runs on the binary (KBZ_TEST_BIN: an old build).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

/** One payload per host, as the host sends it for a main agent's stop in `dir`. */
function payload(host: string, dir: string): Record<string, unknown> {
  switch (host) {
    case "cursor":
      return {
        hook_event_name: "stop",
        conversation_id: "s1",
        workspace_roots: [dir],
        status: "completed",
        loop_count: 0,
      };
    case "gemini":
      return {
        hook_event_name: "AfterAgent",
        session_id: "s1",
        cwd: dir,
        stop_hook_active: false,
        prompt_response: "done",
      };
    case "copilot":
      return { sessionId: "s1", cwd: dir, stopHookActive: false, stopReason: "end_turn" };
    case "codex":
      return {
        hook_event_name: "Stop",
        session_id: "s1",
        turn_id: "t1",
        cwd: dir,
        stop_hook_active: false,
        last_assistant_message: "done",
      };
    case "opencode":
      return {
        hook_event_name: "session.idle",
        session_id: "s1",
        cwd: dir,
        stop_hook_active: false,
        last_assistant_message: "done",
      };
    default:
      return {
        hook_event_name: "Stop",
        session_id: "s1",
        cwd: dir,
        stop_hook_active: false,
        last_assistant_message: "done",
      };
  }
}

describe("format guessing", () => {
  test("kbz hook stop --help and the skill it names document the payload fields each host sends and what kbz answers (not the text of kbz hook --help)", () => {
    const help = kbz(["hook", "stop", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain("--uninstall"); // hook --help's install options
    // The page shows one payload and names where the others are (every help page is at most 800 B).
    expect(help.stdout).toContain("skill references/stop-hook.md");
    const text = fs.readFileSync(path.join(import.meta.dir, "..", "..", "skill", "references", "stop-hook.md"), "utf8");
    // Each host's distinguishing fields.
    for (const [host, fields] of [
      ["claude", ["session_id", "stop_hook_active", "last_assistant_message", "background_tasks", "task_subject"]],
      ["codex", ["turn_id"]],
      ["cursor", ["conversation_id", "workspace_roots", "loop_count"]],
      ["gemini", ["AfterAgent", "prompt_response"]],
      ["copilot", ["sessionId", "stopHookActive", "stopReason"]],
      ["qwen", []],
      ["opencode", ["session.idle"]],
    ] as const) {
      const line = text.split("\n").findIndex((l) => l.trimStart().startsWith(host + " "));
      expect([host, line >= 0]).toEqual([host, true]);
      for (const f of fields) expect([host, f, text.includes(f)]).toEqual([host, f, true]);
    }
    // What kbz answers is what it prints: block each host on an unmet gate and find the answer's keys documented.
    const dir = tempDir("kbz-stop-help-");
    writeTree(dir, { "GATES.md": "# Gates\n\n- [ ] G1: outcome\n" });
    for (const host of ["claude", "codex", "cursor", "gemini", "copilot", "qwen", "opencode"]) {
      const r = kbz(["hook", "stop", "--agent", host], {
        cwd: dir,
        input: JSON.stringify(payload(host, dir)),
        env: { HOME: dir },
      });
      expect([host, r.code]).toEqual([host, 0]);
      const answer = JSON.parse(r.stdout);
      for (const [k, v] of Object.entries(answer)) {
        expect([host, k, text.includes(`"${k}"`)]).toEqual([host, k, true]);
        if (k === "decision") expect([host, text.includes(`"decision":"${v}"`)]).toEqual([host, true]);
      }
    }
    expect(text).toContain("exits 2");
    expect(Buffer.byteLength(help.stdout)).toBeLessThanOrEqual(800);
  });

  test("the skill states the CHECK output order (stdout, then stderr), and a CHECK that prints its error after stdout matches that way", () => {
    const dir = tempDir("kbz-order-");
    const home = tempDir("kbz-order-home-");
    // The skill the binary installs (the one an agent reads).
    expect(kbz(["skill", "install"], { cwd: dir, env: { HOME: home } }).code).toBe(0);
    const skill = fs
      .readFileSync(path.join(dir, ".claude/skills/kill-bezzangyi/SKILL.md"), "utf8")
      .replace(/\s+/g, " ");
    expect(skill).toContain("EXPECT is matched against all of stdout, then a newline, then all of stderr");
    // The order holds whatever order the CHECK wrote them in.
    writeTree(dir, {
      "GATES.md":
        "# Gates\n\n- [ ] G1: the error follows the output\n  CHECK: echo err-line >&2; sleep 0.1; echo out-line\n  EXPECT: /out-line\\s+err-line/\n  EVIDENCE: pending\n",
    });
    const r = kbz(["check", "--approve", "GATES.md"], { cwd: dir, env: agentEnv() });
    expect([r.code, r.stdout + r.stderr]).toEqual([0, expect.stringContaining("ALL MET")]);
  });

  test("kbz hook status exits 0 when a host it reports on (Codex, whose trust it reads) is not installed", () => {
    const dir = tempDir("kbz-status-");
    const home = tempDir("kbz-status-home-");
    const bin = tempDir("kbz-status-bin-");
    const env = { HOME: home, CODEX_HOME: path.join(home, ".codex"), PATH: `${bin}:/usr/bin:/bin` };
    expect(kbz(["hook", "install", "--agent", "codex"], { cwd: dir, env }).code).toBe(0);
    const without = kbz(["hook", "status"], { cwd: dir, env });
    expect([without.code, without.stdout]).toEqual([0, expect.stringContaining("codex is not installed here")]);
    const json = JSON.parse(kbz(["hook", "status", "--json"], { cwd: dir, env }).stdout);
    expect([json.exit, json.verdict]).toEqual([0, "ok"]);
    // With Codex on PATH the untrusted hook is a problem again (Codex would skip it).
    fs.writeFileSync(path.join(bin, "codex"), "#!/bin/sh\necho codex-cli 0.171.0\n", { mode: 0o755 });
    const withCodex = kbz(["hook", "status"], { cwd: dir, env });
    expect([withCodex.code, withCodex.stdout]).toEqual([1, expect.stringContaining("trust kbz's Stop hook")]);
  });
});
