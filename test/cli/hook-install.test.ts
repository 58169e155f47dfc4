// `kbz hook install`: docs/formats.md#fixes cases 31-34 and docs/formats.md#fixes cases 18-24, through the binary.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, REPO, hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { shellWords } from "../../src/io/hook/install.ts";

// Each case spawns the binary (and Node 16) several times; a loaded machine needs headroom.
setDefaultTimeout(60_000);

const LOCAL = ".claude/settings.local.json";

function project(settings?: unknown | string) {
  const dir = tempDir();
  const home = tempDir("kbz-home-");
  if (settings !== undefined) {
    writeTree(dir, { [LOCAL]: typeof settings === "string" ? settings : JSON.stringify(settings, null, 2) + "\n" });
  }
  const run = (...args: string[]) => kbz(["hook", "install", ...args], { cwd: dir, env: { HOME: home } });
  const read = (rel = LOCAL) => JSON.parse(fs.readFileSync(path.join(dir, rel), "utf8"));
  const stopHandlers = (rel = LOCAL) => ((read(rel).hooks?.Stop ?? []) as any[]).flatMap((g) => g.hooks);
  // The stable path the hosts run (io/hook/shim.ts), in this test's HOME.
  const shim = path.join(home, ".kbz", "bin", "kbz-hook");
  return {
    dir,
    home,
    run,
    read,
    stopHandlers,
    file: path.join(dir, LOCAL),
    shim,
    nodeShim: path.join(home, ".kbz", "bin", "kbz-hook-node"),
  };
}

const other = { type: "command", command: "node other-tool.mjs" };

describe("kbz hook install: install, idempotence, repair, uninstall (unlazy §8.1 31-34)", () => {
  test("installs the stable path as ONE command string with absolute paths, the agent, the marker and the timeout (no args list), for Stop, SubagentStop and TaskCompleted", () => {
    const p = project();
    const r = p.run("--scope", "api");
    expect(r.code).toBe(0);
    const handler = { type: "command", command: `${p.shim} --agent claude --unlazy-hook-v2 --scope api`, timeout: 20 };
    expect(p.stopHandlers()).toEqual([handler]);
    for (const e of ["SubagentStop", "TaskCompleted"]) expect(p.read().hooks[e]).toEqual([{ hooks: [handler] }]);
    // The shim runs this binary; the hosts' files never name the binary itself.
    expect(fs.readFileSync(p.shim, "utf8")).toEndWith(`exec ${BIN} hook stop "$@"\n`);
    expect(r.stdout).toBe(
      [
        `Installed kbz stop hook for claude into ${p.file} (Stop, SubagentStop, TaskCompleted)`,
        `  command: ${p.shim} --agent claude --unlazy-hook-v2 --scope api`,
        "  ignore:  /.kbz/inputs/ /.kbz/oracles/ /.kbz/failures/ /.kbz/probes/ /.unlazy/locks/ /.unlazy/verification-receipts.json /.unlazy/*/dispatch.json /.unlazy/*/status.log /.unlazy/*/hook-state.json /.unlazy-hook-state.json /.claude/settings.local.json (.gitignore: 11 line(s) added)",
        "  commit:  GATES.md gates/ .unlazy/*/PLAN.md .unlazy/*/ACCESS.json .unlazy/*/GATES.md .unlazy/*/gates/ .unlazy/*/STRUCTURE.json .kbz/settings.json",
        "  deny:    20 rule(s) keep the person's acts from the agent",
        "",
      ].join("\n"),
    );
  });

  test("installing twice leaves exactly one entry and the second run writes nothing", () => {
    const p = project({ hooks: { Stop: [{ hooks: [other] }] } });
    expect(p.run("--scope", "api").code).toBe(0);
    const before = hashTree(p.dir);
    const again = p.run("--scope", "api");
    expect(again.stdout).toBe(`Already installed in ${p.file} (idempotent, nothing changed).\n`);
    expect(hashTree(p.dir)).toBe(before);
    const ours = p.stopHandlers().filter((h) => h.command.includes("--unlazy-hook-v2"));
    expect(ours).toHaveLength(1);
    expect(ours[0].command).toEndWith("--scope api");
  });

  test("--uninstall with a --scope removes every kbz handler, whatever scope it was pinned to", () => {
    const p = project();
    p.run("--scope", "web");
    expect(p.run("--uninstall", "--scope", "api").stdout).toStartWith("Removed kbz stop hook (3 handler(s))");
    expect(p.read()).toEqual({});
  });

  test("re-installing with another scope replaces the entry", () => {
    const p = project();
    p.run("--scope", "api");
    expect(p.run("--scope", "web").stdout).toStartWith("Installed kbz stop hook");
    const ours = p.stopHandlers();
    expect(ours).toHaveLength(1);
    expect(ours[0].command).toEndWith("--scope web");
  });

  test("uninstall removes only our entry, keeps an unrelated hook, and backs up the original bytes", () => {
    const p = project({ hooks: { Stop: [{ hooks: [other] }] }, model: "opus" });
    p.run();
    const installed = fs.readFileSync(p.file);
    const r = p.run("--uninstall");
    expect(r.stdout).toBe(`Removed kbz stop hook (3 handler(s)) from ${p.file}. Sibling handlers were preserved.\n`);
    expect(p.read()).toEqual({ hooks: { Stop: [{ hooks: [other] }] }, model: "opus" });
    expect(fs.readFileSync(`${p.file}.unlazy.bak`)).toEqual(installed);
    const before = hashTree(p.dir);
    expect(p.run("--uninstall").stdout).toBe(`Nothing to remove: no kbz stop hook found in ${p.file}\n`);
    expect(hashTree(p.dir)).toBe(before);
  });

  test("an upstream v2.0 entry without a marker is recognised; uninstall leaves no hooks key", () => {
    const p = project({
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: 'node "/home/me/.claude/skills/unlazy/scripts/stop-hook.mjs"' }] },
        ],
      },
    });
    expect(p.run("--uninstall").stdout).toStartWith("Removed kbz stop hook (1 handler(s))");
    expect(p.read()).toEqual({});
  });

  test("an unlazy 2.1 shell-form entry with the marker is replaced by kbz's one command string", () => {
    const p = project({
      hooks: {
        Stop: [
          {
            hooks: [
              {
                type: "command",
                command: "'/usr/bin/node' '/x/unlazy/scripts/stop-hook.mjs' --unlazy-hook-v2 --scope api",
                timeout: 20,
              },
            ],
          },
        ],
      },
    });
    p.run("--scope", "api");
    expect(p.stopHandlers()).toEqual([
      { type: "command", command: `${p.shim} --agent claude --unlazy-hook-v2 --scope api`, timeout: 20 },
    ]);
  });

  test("an exec-form entry of an earlier kbz (command + args, ignored by Claude Code < 2.1.139) is repaired to the string form", () => {
    const p = project({
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: BIN, args: ["hook", "stop", "--unlazy-hook-v2"], timeout: 20 }] }],
      },
    });
    expect(p.run().stdout).toStartWith("Installed kbz stop hook for claude");
    expect(p.stopHandlers()).toEqual([
      { type: "command", command: `${p.shim} --agent claude --unlazy-hook-v2`, timeout: 20 },
    ]);
  });

  test("--fallback installs a stable path that runs node with the absolute path of hooks/stop-hook.mjs", () => {
    const p = project();
    expect(p.run("--fallback").code).toBe(0);
    const [h] = p.stopHandlers();
    expect(shellWords(h.command)).toEqual([p.nodeShim, "--agent", "claude", "--unlazy-hook-v2"]);
    const exec = fs
      .readFileSync(p.nodeShim, "utf8")
      .split("\n")
      .find((l) => l.startsWith("exec "))!;
    const [node, ...rest] = shellWords(exec.slice(5));
    expect(path.isAbsolute(node!)).toBe(true);
    expect(path.basename(node!)).toBe("node");
    expect(rest).toEqual([path.join(REPO, "hooks", "stop-hook.mjs"), "$@"]);
    // Switching back to the binary replaces the fallback entry.
    p.run();
    expect(p.stopHandlers().map((x) => x.command)).toEqual([`${p.shim} --agent claude --unlazy-hook-v2`]);
  });

  test("--shared writes .claude/settings.json with a warning; --global writes ~/.claude/settings.json", () => {
    const p = project();
    const shared = p.run("--shared");
    expect(shared.stdout).toContain("warning: shared settings contain this machine's absolute paths.");
    expect(p.stopHandlers(".claude/settings.json")).toHaveLength(1);
    expect(p.run("--global").code).toBe(0);
    const global = JSON.parse(fs.readFileSync(path.join(p.home, ".claude/settings.json"), "utf8"));
    expect(global.hooks.Stop[0].hooks[0].command).toStartWith(`${p.shim} --agent claude`);
    expect(fs.existsSync(p.file)).toBe(false);
  });

  test("--json prints one object describing the result", () => {
    const p = project();
    const j = JSON.parse(p.run("--json", "--scope", "api").stdout);
    expect(j).toMatchObject({
      schema: 1,
      exit: 0,
      verdict: "installed",
      agent: "claude",
      target: p.file,
      scope: "api",
      backup: null,
      removed: 0,
      errors: [],
    });
    expect(JSON.parse(p.run("--json", "--scope", "api").stdout).verdict).toBe("already-installed");
  });

  test("the installed command really runs the hook through sh -c, as Claude Code runs a command string", () => {
    const p = project();
    writeTree(p.dir, { "GATES.md": "# Gates\n\n- [ ] G1: outcome\n" });
    for (const args of [[], ["--fallback"]]) {
      p.run(...args);
      const [h] = p.stopHandlers();
      const out = execFileSync("sh", ["-c", h.command], {
        input: JSON.stringify({ cwd: p.dir, session_id: `x${args.length}` }),
        encoding: "utf8",
      });
      expect(JSON.parse(out).decision).toBe("block");
    }
  });
});

describe("kbz hook install: the host's own deny rules for the person's acts (issue 32)", () => {
  test("Claude Code: permissions.deny gets kbz's rules next to the user's; uninstall removes only kbz's", () => {
    const mine = ["Bash(rm -rf *)", "Bash(kbz sign)"]; // the user's own, one identical to a rule kbz would add
    const p = project({ permissions: { allow: ["Bash(ls)"], deny: mine }, model: "opus" });
    const original = fs.readFileSync(p.file);
    expect(p.run().code).toBe(0);
    const deny: string[] = p.read().permissions.deny;
    expect(deny.slice(0, 2)).toEqual(mine);
    for (const r of [
      "Bash(kbz approve)",
      "Bash(kbz *--approve*)",
      "Bash(*/kbz *--approve*)",
      "Bash(kbz approvals revoke*)",
      "Bash(kbz approvals prune*)",
      "Bash(kbz approvals policy*)",
      "Bash(kbz hook *--uninstall*)",
    ]) {
      expect(deny).toContain(r);
    }
    expect(deny.filter((r) => r === "Bash(kbz sign)")).toHaveLength(1);
    expect(p.read().permissions.allow).toEqual(["Bash(ls)"]);
    const before = hashTree(p.dir);
    expect(p.run().stdout).toStartWith("Already installed");
    expect(hashTree(p.dir)).toBe(before);
    p.run("--uninstall");
    // The user's rules, their identical one included, are back exactly as they were.
    expect(fs.readFileSync(p.file)).toEqual(original);
  });

  test("Gemini CLI and Qwen Code: tools.exclude; Codex: a rules file of kbz's own; uninstall removes them", () => {
    for (const [host, rel] of [
      ["gemini", ".gemini/settings.json"],
      ["qwen", ".qwen/settings.json"],
    ] as const) {
      const p = project();
      expect(p.run("--agent", host).code).toBe(0);
      expect(p.read(rel).tools.exclude).toContain("run_shell_command(kbz check --approve)");
      expect(p.read(rel).tools.exclude).toContain("run_shell_command(kbz hook install --uninstall)");
      p.run("--agent", host, "--uninstall");
      expect(p.read(rel)).toEqual({});
    }
    const p = project();
    p.run("--agent", "codex");
    const rules = fs.readFileSync(path.join(p.dir, ".codex/rules/kbz-person-only.rules"), "utf8");
    expect(rules).toContain('prefix_rule(pattern = ["kbz","check","--approve"], decision = "forbidden"');
    p.run("--agent", "codex", "--uninstall");
    expect(fs.existsSync(path.join(p.dir, ".codex/rules/kbz-person-only.rules"))).toBe(false);
  });

  test("Copilot CLI has no rules file: the install says which --deny-tool options to start it with", () => {
    const r = project().run("--agent", "copilot");
    expect(r.stdout).toContain("--deny-tool 'shell(kbz check --approve:*)'");
  });
});

describe("kbz hook install: refusals and repairs (unlazy §8.4 18-24)", () => {
  const refused = (p: ReturnType<typeof project>, args: string[] = []) => {
    const before = hashTree(p.dir);
    const r = p.run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(hashTree(p.dir)).toBe(before);
    expect(fs.existsSync(`${p.file}.unlazy.bak`)).toBe(false);
    return r.stderr;
  };

  test("malformed settings shapes are refused with the bytes unchanged", () => {
    const shapes = [
      [],
      { hooks: [] },
      { hooks: { Stop: {} } },
      { hooks: { Stop: [{ hooks: {} }] } },
      { hooks: { Stop: [{ hooks: [null] }] } },
      { hooks: { Stop: ["x"] } },
    ];
    for (const s of shapes) {
      for (const args of [[], ["--uninstall"]]) {
        const p = project(s);
        expect(refused(p, args)).toStartWith(`${p.file}:1: refusing to touch this file: `);
      }
    }
  });

  test("invalid JSON is refused with the bytes unchanged", () => {
    expect(refused(project('{"hooks": {'))).toContain("the file is not valid JSON");
  });

  test("a FIFO settings target is refused without waiting for a writer", () => {
    const p = project();
    fs.mkdirSync(path.join(p.dir, ".claude"));
    execFileSync("mkfifo", [p.file]);
    // Without a writer a blocking open would never return: an answer at all is the behaviour.
    expect(refused(p)).toContain("refusing to touch");
  });

  test("a hard-linked or symlinked settings target is refused, no backup, the victim unchanged", () => {
    for (const link of ["hard", "sym"]) {
      const p = project();
      const victimDir = tempDir("kbz-victim-");
      const victim = path.join(victimDir, "settings.json");
      fs.writeFileSync(victim, '{"hooks":{}}\n');
      fs.mkdirSync(path.join(p.dir, ".claude"));
      if (link === "hard") fs.linkSync(victim, p.file);
      else fs.symlinkSync(victim, p.file);
      expect(refused(p)).toContain("must be one unchanged regular single-link file");
      expect(fs.readFileSync(victim, "utf8")).toBe('{"hooks":{}}\n');
    }
  });

  test("uninstall from a group with a sibling and a legacy --unlazy handler keeps the group, its matcher and the sibling", () => {
    const legacy = { type: "command", command: "node /opt/tools/scripts/stop-hook.mjs --unlazy" };
    const p = project({ hooks: { Stop: [{ matcher: "*", hooks: [other, legacy] }] } });
    const original = fs.readFileSync(p.file);
    expect(p.run("--uninstall").stdout).toStartWith("Removed kbz stop hook (1 handler(s))");
    expect(p.read()).toEqual({ hooks: { Stop: [{ matcher: "*", hooks: [other] }] } });
    expect(fs.readFileSync(`${p.file}.unlazy.bak`)).toEqual(original);
  });

  test("foreign --unlazy-* options are never ours, even next to our own script path", () => {
    const script = path.join(REPO, "hooks", "stop-hook.mjs");
    const p = project({
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: `node ${script} --unlazy-helper` },
              { type: "command", command: `node '${script}' '--unlazy-helper'` },
              { type: "command", command: "node", args: [script, "--unlazy-helper"] },
              { type: "command", command: "node my-unlazy-hook-v2-wrapper.mjs" },
            ],
          },
        ],
      },
    });
    const before = hashTree(p.dir);
    expect(p.run("--uninstall").stdout).toStartWith("Nothing to remove");
    expect(hashTree(p.dir)).toBe(before);
  });

  test("a managed handler whose type and timeout were tampered with is repaired to one exact entry", () => {
    const p = project();
    p.run();
    const s = p.read();
    s.hooks.Stop[0].hooks[0].type = "prompt";
    s.hooks.Stop[0].hooks[0].timeout = 999;
    s.hooks.Stop.push({ hooks: [{ ...s.hooks.Stop[0].hooks[0] }] });
    fs.writeFileSync(p.file, JSON.stringify(s));
    const r = p.run();
    expect(r.stdout).toStartWith("Installed kbz stop hook");
    expect(r.stdout).toContain(`backup:  ${p.file}.unlazy.bak`);
    expect(p.stopHandlers()).toEqual([
      { type: "command", command: `${p.shim} --agent claude --unlazy-hook-v2`, timeout: 20 },
    ]);
  });

  test("an invalid --scope, --shared with --global, or a repeated --scope is a usage error with nothing written", () => {
    for (const args of [
      ["--scope", "bad;echo"],
      ["--shared", "--global"],
      ["--scope", "a", "--scope", "b"],
      ["--uninstall", "--fallback"],
    ]) {
      const p = project();
      const r = p.run(...args);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
      expect(r.stderr).toStartWith("kbz: ");
      expect(fs.existsSync(path.join(p.dir, ".claude"))).toBe(false);
      expect(fs.existsSync(path.join(p.home, ".claude"))).toBe(false);
    }
  });

  test("--scope api writes the local-state lines into .gitignore, says what to commit, and pins the scope", () => {
    const p = project();
    const r = p.run("--scope", "api");
    expect(r.stdout).toContain("  commit:  GATES.md gates/ .unlazy/*/PLAN.md");
    expect(fs.readFileSync(path.join(p.dir, ".gitignore"), "utf8")).toContain("/.unlazy-hook-state.json\n");
    expect(r.stdout).toContain("--unlazy-hook-v2 --scope api");
  });

  test("a symlinked .claude directory is refused for a new settings file", () => {
    const p = project();
    const elsewhere = tempDir("kbz-victim-");
    fs.symlinkSync(elsewhere, path.join(p.dir, ".claude"));
    const r = p.run();
    expect(r.code).toBe(2);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
