// `kbz hook install --agent claude|codex|cursor|gemini` round trips, and `kbz hook status`.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { ledger } from "../helpers/hook.ts";

setDefaultTimeout(60_000);

const temp = tempDir;

interface Case {
  host: string;
  file: string; // project file
  globalFile: (home: string) => string;
  foreign: Record<string, unknown>; // an existing file with another tool's stop hook and other settings
  ours: (s: any) => any[]; // kbz's handlers in a parsed file
  /** How the host runs the command string (sh -c, bash -c, $SHELL -lc). */
  shell: string[];
}

const kbzOnly = (list: any[], key = "command") =>
  list.filter((h: any) => typeof h[key] === "string" && h[key].includes("--unlazy-hook-v2"));
const grouped = (event: string) => (s: any) => kbzOnly((s.hooks?.[event] ?? []).flatMap((g: any) => g.hooks));
const CASES: Case[] = [
  {
    host: "claude",
    file: ".claude/settings.local.json",
    globalFile: (h) => path.join(h, ".claude/settings.json"),
    foreign: {
      model: "opus",
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "node other.mjs" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }],
      },
    },
    ours: grouped("Stop"),
    shell: ["sh", "-c"],
  },
  {
    host: "codex",
    file: ".codex/hooks.json",
    globalFile: (h) => path.join(h, "codex-home/hooks.json"),
    foreign: {
      description: "team hooks",
      hooks: { Stop: [{ hooks: [{ type: "command", command: "other stop", timeout: 5 }] }] },
    },
    ours: grouped("Stop"),
    shell: ["bash", "-lc"],
  },
  {
    host: "cursor",
    file: ".cursor/hooks.json",
    globalFile: (h) => path.join(h, ".cursor/hooks.json"),
    foreign: {
      version: 1,
      hooks: { stop: [{ command: "./other.sh", loop_limit: 2 }], afterFileEdit: [{ command: "fmt" }] },
    },
    ours: (s) => kbzOnly(s.hooks?.stop ?? []),
    shell: ["bash", "-c"],
  },
  {
    host: "gemini",
    file: ".gemini/settings.json",
    globalFile: (h) => path.join(h, ".gemini/settings.json"),
    foreign: {
      security: { auth: { selectedType: "gemini-api-key" } },
      hooks: { AfterAgent: [{ hooks: [{ type: "command", name: "other", command: "other", timeout: 1000 }] }] },
    },
    ours: grouped("AfterAgent"),
    shell: ["bash", "-c"],
  },
  {
    host: "copilot",
    file: ".github/hooks/kbz.json",
    globalFile: (h) => path.join(h, ".copilot/hooks/kbz.json"),
    foreign: {
      version: 1,
      hooks: {
        agentStop: [{ type: "command", bash: "./other.sh", timeoutSec: 5 }],
        preToolUse: [{ type: "command", bash: "guard" }],
      },
    },
    ours: (s) => kbzOnly(s.hooks?.agentStop ?? [], "bash").map((h: any) => ({ ...h, command: h.bash })),
    shell: ["bash", "-c"],
  },
  {
    host: "qwen",
    file: ".qwen/settings.json",
    globalFile: (h) => path.join(h, ".qwen/settings.json"),
    foreign: {
      model: { name: "qwen3-coder" },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "other", timeout: 5 }] }] },
    },
    ours: grouped("Stop"),
    shell: ["bash", "-c"],
  },
];

/** Handlers kbz writes per host: one per completion event (core/hook/targets.ts). */
const EVENTS: Record<string, number> = { claude: 3, codex: 2, cursor: 2, gemini: 1, copilot: 2, qwen: 2 };

function project(c: Case, content?: unknown) {
  const dir = temp("kbz-inst-");
  const home = temp("kbz-home-");
  if (content !== undefined)
    writeTree(dir, { [c.file]: typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n" });
  const env = { HOME: home, CODEX_HOME: path.join(home, "codex-home"), COPILOT_HOME: undefined as unknown as string };
  const run = (...args: string[]) =>
    kbz(["hook", ...(args[0] === "status" ? [] : ["install", "--agent", c.host]), ...args], { cwd: dir, env });
  const file = path.join(dir, c.file);
  const read = () => JSON.parse(fs.readFileSync(file, "utf8"));
  return { dir, home, env, run, file, read };
}

for (const c of CASES) {
  describe(`kbz hook install --agent ${c.host}`, () => {
    test("install twice: one entry, the second run writes nothing; foreign hooks and settings kept", () => {
      const p = project(c, c.foreign);
      const r = p.run();
      expect(r.code).toBe(0);
      expect(r.stdout).toStartWith(`Installed kbz stop hook for ${c.host} into ${p.file}`);
      const s = p.read();
      expect(c.ours(s)).toHaveLength(1);
      expect(c.ours(s)[0].command).toBe(`${path.join(p.home, ".kbz/bin/kbz-hook")} --agent ${c.host} --unlazy-hook-v2`);
      expect(c.ours(s)[0].args).toBeUndefined();
      const before = hashTree(p.dir);
      expect(p.run().stdout).toStartWith(`Already installed in ${p.file}`);
      expect(hashTree(p.dir)).toBe(before);
      // Every foreign key and hook survives.
      const foreignAgain = JSON.parse(JSON.stringify(s));
      for (const list of Object.values(foreignAgain.hooks) as any[]) {
        for (let i = list.length - 1; i >= 0; i--) {
          if (list[i].hooks) list[i].hooks = list[i].hooks.filter((h: any) => !h.command.includes("--unlazy-hook-v2"));
          if (
            (list[i].hooks && list[i].hooks.length === 0) ||
            list[i].command?.includes?.("--unlazy-hook-v2") ||
            list[i].bash?.includes?.("--unlazy-hook-v2")
          )
            list.splice(i, 1);
        }
      }
      for (const [k, v] of Object.entries(foreignAgain.hooks))
        if ((v as any[]).length === 0) delete foreignAgain.hooks[k];
      // The host's deny rules for the person's acts (their own test is in hook-install.test.ts).
      delete foreignAgain.permissions;
      delete foreignAgain.tools;
      expect(foreignAgain).toEqual(c.foreign);
    });

    test("uninstall leaves the original bytes, foreign hooks byte-identical; a second uninstall changes nothing", () => {
      const p = project(c, c.foreign);
      const original = fs.readFileSync(p.file);
      p.run();
      expect(p.run("--uninstall").stdout).toStartWith(`Removed kbz stop hook (${EVENTS[c.host]} handler(s))`);
      expect(fs.readFileSync(p.file)).toEqual(original);
      const before = hashTree(p.dir);
      expect(p.run("--uninstall").stdout).toStartWith("Nothing to remove");
      expect(hashTree(p.dir)).toBe(before);
    });

    test("malformed, linked or unknown shapes are refused with exit 2 and no change", () => {
      const bad: unknown[] = [
        '{"hooks": {',
        [],
        { hooks: [] },
        {
          hooks: {
            [c.host === "cursor"
              ? "stop"
              : c.host === "gemini"
                ? "AfterAgent"
                : c.host === "copilot"
                  ? "agentStop"
                  : "Stop"]: {},
          },
        },
      ];
      if (c.host === "codex") bad.push({ $schema: "https://example.com/s.json", hooks: {} });
      if (c.host === "cursor" || c.host === "copilot") bad.push({ version: 2, hooks: {} });
      for (const content of bad) {
        const p = project(c, content);
        const before = hashTree(p.dir);
        const r = p.run();
        expect([JSON.stringify(content), r.code]).toEqual([JSON.stringify(content), 2]);
        expect(r.stderr).toStartWith(`${p.file}:1: refusing to touch this file: `);
        expect(r.stderr).toContain("\n  hint: ");
        expect(hashTree(p.dir)).toBe(before);
      }
      const p = project(c);
      const victim = path.join(temp("kbz-victim-"), "f.json");
      fs.writeFileSync(victim, "{}\n");
      fs.mkdirSync(path.dirname(p.file), { recursive: true });
      fs.symlinkSync(victim, p.file);
      expect(p.run().code).toBe(2);
      expect(fs.readFileSync(victim, "utf8")).toBe("{}\n");
    });

    test(`the written command blocks on an unmet gate when run the way ${c.host} runs it (${c.shell.join(" ")})`, () => {
      for (const fallback of [false, true]) {
        const p = project(c);
        writeTree(p.dir, { "GATES.md": ledger("u", [{ id: "G1", state: "unmet" }]) });
        p.run(...(fallback ? ["--fallback"] : []));
        const [h] = c.ours(p.read());
        const payload = { cwd: p.dir, workspace_roots: [p.dir], session_id: "s", conversation_id: "s" };
        const out = execFileSync(c.shell[0]!, [...c.shell.slice(1), h.command], {
          cwd: p.dir,
          input: JSON.stringify(payload),
          encoding: "utf8",
        });
        expect(out).toContain("GATES:G1");
      }
    });

    test("--global writes the user's file", () => {
      const p = project(c);
      expect(p.run("--global").code).toBe(0);
      expect(c.ours(JSON.parse(fs.readFileSync(c.globalFile(p.home), "utf8")))).toHaveLength(1);
      expect(fs.existsSync(p.file)).toBe(false);
    });
  });
}

describe("several hosts in one repository, and kbz hook status", () => {
  test("every host installed side by side; each uninstall removes only its own file's entry", () => {
    const p = project(CASES[0]!);
    for (const c of CASES) expect(kbz(["hook", "install", "--agent", c.host], { cwd: p.dir, env: p.env }).code).toBe(0);
    for (const c of CASES)
      expect(c.ours(JSON.parse(fs.readFileSync(path.join(p.dir, c.file), "utf8")))).toHaveLength(1);
    expect(kbz(["hook", "install", "--agent", "codex", "--uninstall"], { cwd: p.dir, env: p.env }).code).toBe(0);
    for (const c of CASES)
      expect(c.ours(JSON.parse(fs.readFileSync(path.join(p.dir, c.file), "utf8")))).toHaveLength(
        c.host === "codex" ? 0 : 1,
      );
  });

  test("status names each host's place, flags a missing program, and Codex's trust", () => {
    const p = project(CASES[0]!);
    const none = kbz(["hook", "status"], { cwd: p.dir, env: p.env });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("No kbz stop hook is installed");
    for (const c of CASES) kbz(["hook", "install", "--agent", c.host], { cwd: p.dir, env: p.env });
    const j = JSON.parse(kbz(["hook", "status", "--json"], { cwd: p.dir, env: p.env }).stdout);
    const installed = j.places.filter((x: any) => x.state === "installed");
    expect(installed.map((x: any) => `${x.host}:${x.location}`).sort()).toEqual(
      CASES.map((c) => `${c.host}:${c.host === "claude" ? "local" : "shared"}`).sort(),
    );
    expect(installed.every((x: any) => x.runnable === true)).toBe(true);
    const codex = installed.find((x: any) => x.host === "codex");
    expect(codex.trust).toBe("needs-review");
    // Without Codex on this machine its trust is a note (test/cli/format-guessing.test.ts); with it, a problem.
    expect(j.verdict).toBe("ok");
    const bin = temp("kbz-codex-bin-");
    fs.writeFileSync(path.join(bin, "codex"), "#!/bin/sh\necho codex-cli 0.171.0\n", { mode: 0o755 });
    Object.assign(p.env, { PATH: `${bin}:${process.env.PATH}` });
    expect(JSON.parse(kbz(["hook", "status", "--json"], { cwd: p.dir, env: p.env }).stdout).verdict).toBe(
      "needs-attention",
    );
    // Codex records trust per hook under [hooks.state."<file>:stop:<group>:<handler>"].
    fs.mkdirSync(path.join(p.home, "codex-home"), { recursive: true });
    const key = (event: string) =>
      `[hooks.state.${JSON.stringify(`${path.join(p.dir, ".codex/hooks.json")}:${event}:0:0`)}]\ntrusted_hash = "sha256:00"\n`;
    fs.writeFileSync(path.join(p.home, "codex-home/config.toml"), key("stop"));
    // Both of kbz's Codex hooks (Stop and SubagentStop) need the user's trust.
    expect(
      JSON.parse(kbz(["hook", "status", "--json"], { cwd: p.dir, env: p.env }).stdout).places.find(
        (x: any) => x.host === "codex" && x.state === "installed",
      ).trust,
    ).toBe("needs-review");
    fs.writeFileSync(path.join(p.home, "codex-home/config.toml"), key("stop") + key("subagent_stop"));
    const trusted = JSON.parse(kbz(["hook", "status", "--json"], { cwd: p.dir, env: p.env }).stdout);
    expect(trusted.places.find((x: any) => x.host === "codex" && x.state === "installed").trust).toBe("trusted");
    expect(trusted.verdict).toBe("ok");
    // A command that points at a program that is gone.
    const f = path.join(p.dir, ".cursor/hooks.json");
    const s = JSON.parse(fs.readFileSync(f, "utf8"));
    for (const e of ["stop", "subagentStop"])
      s.hooks[e][0].command = s.hooks[e][0].command.replace(path.join(p.home, ".kbz/bin/kbz-hook"), "/nonexistent/kbz");
    fs.writeFileSync(f, JSON.stringify(s));
    const gone = kbz(["hook", "status"], { cwd: p.dir, env: p.env });
    expect(gone.code).toBe(1);
    expect(gone.stdout).toContain("/nonexistent/kbz does not exist or is not executable");
  });
});
