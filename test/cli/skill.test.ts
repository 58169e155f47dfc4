// The kill-bezzangyi skill: valid Agent Skills metadata, templates our parser and linter accept,
// embedded copies identical to skill/, and `kbz skill install` / `kbz init` through the binary.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { lintLedger } from "../../src/core/ledger/lint.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import { SKILL_FILES, SKILL_NAME } from "../../src/skill/files.ts";
import { REPO, hashTree, kbz, tempDir } from "../helpers/kbz.ts";

// Each case spawns the binary (and Node 16) several times; a loaded machine needs headroom.
setDefaultTimeout(60_000);

const SKILL = path.join(REPO, "skill");
const read = (rel: string) => fs.readFileSync(path.join(SKILL, rel), "utf8");

function frontmatter(text: string): Record<string, string> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new Error("SKILL.md has no frontmatter");
  const out: Record<string, string> = {};
  for (const line of m[1]!.split("\n")) {
    const kv = /^([a-z-]+): (.*)$/.exec(line);
    if (!kv) throw new Error(`frontmatter line is not a simple key: value pair: ${line}`);
    out[kv[1]!] = kv[2]!;
  }
  return out;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

describe("skill/ content", () => {
  test("SKILL.md frontmatter is valid Agent Skills metadata with only portable keys", () => {
    const fm = frontmatter(read("SKILL.md"));
    expect(fm.name).toBe("kill-bezzangyi");
    expect(fm.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(fm.name!.length).toBeLessThanOrEqual(64);
    expect(fm.description!.length).toBeGreaterThan(0);
    expect(fm.description!.length).toBeLessThan(1024);
    expect(fm.compatibility!.length).toBeLessThanOrEqual(500);
    const portable = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];
    expect(Object.keys(fm).filter((k) => !portable.includes(k))).toEqual([]);
  });

  test("the SKILL.md body stays under 500 lines and teaches every kbz command of the discipline", () => {
    const body = read("SKILL.md");
    expect(body.split("\n").length).toBeLessThan(500);
    for (const cmd of [
      "kbz lint",
      "kbz approve",
      "kbz approvals policy agent",
      "kbz check --reverify",
      "kbz status",
      "kbz next",
      "kbz next --scope S --launch",
      "kbz approve --scope S",
      "kbz hook install",
      "ABANDON:",
      "kbz init --scope",
      "kbz plan add",
      "kbz advance",
      "kbz sign",
      "kbz structure",
    ]) {
      expect([cmd, body.includes(cmd)]).toEqual([cmd, true]);
    }
  });

  test("every references/ and templates/ path named in SKILL.md exists", () => {
    const named = [...read("SKILL.md").matchAll(/`((?:references|templates)\/[^`\s]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    for (const rel of named) expect([rel, fs.existsSync(path.join(SKILL, rel))]).toEqual([rel, true]);
  });

  test("every gate template parses cleanly and lints without size findings (only manual-gate notes, and its placeholder heading, which lint makes an error until filled in)", () => {
    for (const name of ["gates-leaf.md", "gates-node.md", "gates-node-minimal.md"]) {
      const ledger = parseLedger(read(`templates/${name}`), name.replace(/\.md$/, ""));
      expect([name, ledger.errors]).toEqual([name, []]);
      expect(ledger.gates.length).toBeGreaterThan(1);
      const rules = lintLedger(ledger).map((f) => f.rule);
      expect([name, rules.filter((r) => r !== "manual-gate" && r !== "starter-placeholder")]).toEqual([name, []]);
      expect([name, rules.includes("starter-placeholder")]).toEqual([name, true]);
    }
    expect(parseLedger(read("templates/gates-leaf.md"), "leaf").owns.length).toBeGreaterThan(0);
  });

  test("the PLAN template has one revision line, one six-column dispatch table with valid rows, one tree and the inventory vocabulary", () => {
    const plan = read("templates/PLAN.md");
    const lines = plan.split("\n");
    expect(lines.filter((l) => /^Contract revision: [1-9][0-9]*(\.|\s|$)/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => l === "## Leaf dispatch table")).toHaveLength(1);
    expect(lines.filter((l) => l === "## Tree")).toHaveLength(1);
    expect(plan).not.toContain("## Dispatch schedule");
    expect(plan).toContain("REMOVED_BY_USER");
    for (const col of ["Required outcome or constraint", "Owner", "Observing gate or manual review", "Disposition"])
      expect(plan).toContain(col);
    const header = lines.findIndex((l) => l.startsWith("| Leaf |"));
    const cells = (l: string) =>
      l
        .trim()
        .replace(/^\||\|$/g, "")
        .split("|")
        .map((c) => c.trim());
    expect(cells(lines[header]!)).toEqual(["Leaf", "Owns", "Needs", "Tier", "Planned wave", "State"]);
    expect(cells(lines[header + 1]!).every((c) => /^:?---+:?$/.test(c))).toBe(true);
    const rows = [];
    for (let i = header + 2; i < lines.length && lines[i]!.trim().startsWith("|"); i++) rows.push(cells(lines[i]!));
    expect(rows.length).toBeGreaterThan(1);
    const ids = new Map(rows.map((r) => [r[0]!, r]));
    for (const [leaf, owns, needs, tier, wave, state] of rows) {
      expect(leaf).toMatch(/^[0-9]+(\.[0-9]+)*$/);
      expect(owns).not.toMatch(/[<>]/);
      expect(["judgment", "mechanical"]).toContain(tier!);
      expect(wave).toMatch(/^[1-9][0-9]*$/);
      expect(["WAITING", "READY", "IN-FLIGHT", "VERIFIED", "ABANDONED"]).toContain(state!);
      const deps = needs === "-" ? [] : needs!.split(",").map((s) => s.trim());
      for (const d of deps) expect(Number(ids.get(d)![4])).toBeLessThan(Number(wave));
      // WAITING rows wait on something unverified; ready or later rows do not.
      const unverified = deps.some((d) => ids.get(d)![5] !== "VERIFIED");
      expect([leaf, state === "WAITING" ? unverified : !unverified]).toEqual([leaf, true]);
    }
    const treeLeaves = lines.filter((l) => /^\s*- [0-9.]+ leaf-/.test(l)).map((l) => l.trim().split(" ")[1]);
    expect(treeLeaves.sort()).toEqual([...ids.keys()].sort());
  });

  test("the binary embeds exactly the files of skill/, byte for byte", () => {
    expect(SKILL_FILES.map(([rel]) => rel).sort()).toEqual(filesUnder(SKILL));
    for (const [rel, text] of SKILL_FILES) expect([rel, text === read(rel)]).toEqual([rel, true]);
    expect(SKILL_NAME).toBe(frontmatter(read("SKILL.md")).name!);
  });
});

describe("kbz skill install", () => {
  const setup = () => ({ dir: tempDir(), home: tempDir("kbz-home-") });
  const run = (s: { dir: string; home: string }, ...args: string[]) =>
    kbz(["skill", "install", ...args], { cwd: s.dir, env: { HOME: s.home } });

  test("writes the embedded skill for Claude Code, identical to skill/, and a second run changes nothing", () => {
    const s = setup();
    const r = run(s);
    const dest = path.join(s.dir, ".claude/skills/kill-bezzangyi");
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`Installed the kill-bezzangyi skill for claude into ${dest}`);
    expect(hashTree(dest)).toBe(hashTree(SKILL));
    const before = hashTree(s.dir);
    expect(run(s).stdout).toBe(`Already installed in ${dest} (idempotent, nothing changed).\n`);
    expect(hashTree(s.dir)).toBe(before);
  });

  test("--agent codex writes .agents/skills; --global writes under the home directory", () => {
    const s = setup();
    expect(JSON.parse(run(s, "--agent", "codex", "--json").stdout)).toMatchObject({
      schema: 1,
      result: "installed",
      dir: path.join(s.dir, ".agents/skills/kill-bezzangyi"),
    });
    run(s, "--global");
    run(s, "--global", "--agent", "codex");
    for (const d of [
      path.join(s.home, ".claude/skills/kill-bezzangyi"),
      path.join(s.home, ".agents/skills/kill-bezzangyi"),
    ]) {
      expect(fs.readFileSync(path.join(d, "SKILL.md"), "utf8")).toBe(read("SKILL.md"));
    }
  });

  test("an edited installed file is restored; other files in the folder are left alone", () => {
    const s = setup();
    run(s);
    const dest = path.join(s.dir, ".claude/skills/kill-bezzangyi");
    fs.writeFileSync(path.join(dest, "references/gates.md"), "edited");
    fs.writeFileSync(path.join(dest, "notes.md"), "mine");
    const j = JSON.parse(run(s, "--json").stdout);
    expect(j.written).toEqual(["references/gates.md"]);
    expect(fs.readFileSync(path.join(dest, "references/gates.md"), "utf8")).toBe(read("references/gates.md"));
    expect(fs.readFileSync(path.join(dest, "notes.md"), "utf8")).toBe("mine");
  });

  test("a symlinked file or skills folder is refused with exit 2 and nothing written", () => {
    for (const link of ["file", "folder"]) {
      const s = setup();
      const victim = tempDir("kbz-victim-");
      fs.writeFileSync(path.join(victim, "SKILL.md"), "victim");
      if (link === "file") {
        fs.mkdirSync(path.join(s.dir, ".claude/skills/kill-bezzangyi"), { recursive: true });
        fs.symlinkSync(path.join(victim, "SKILL.md"), path.join(s.dir, ".claude/skills/kill-bezzangyi/SKILL.md"));
      } else {
        fs.mkdirSync(path.join(s.dir, ".claude"));
        fs.symlinkSync(victim, path.join(s.dir, ".claude/skills"));
      }
      const before = hashTree(s.dir);
      const r = run(s);
      expect([link, r.code]).toEqual([link, 2]);
      expect(hashTree(s.dir)).toBe(before);
      expect(fs.readdirSync(victim)).toEqual(["SKILL.md"]);
      expect(fs.readFileSync(path.join(victim, "SKILL.md"), "utf8")).toBe("victim");
    }
  });

  test("an unknown agent or action is a usage error", () => {
    expect(run(setup(), "--agent", "vim").code).toBe(2);
    expect(kbz(["skill", "remove"], { cwd: tempDir() }).code).toBe(2);
  });
});

describe("kbz init", () => {
  test("writes a GATES.md from the leaf template that parses, and kbz status reads it", () => {
    const dir = tempDir();
    const r = kbz(["init"], { cwd: dir });
    expect(r.code).toBe(0);
    const text = fs.readFileSync(path.join(dir, "GATES.md"), "utf8");
    expect(text).not.toContain("OWNS:");
    expect(parseLedger(text, "GATES").errors).toEqual([]);
    expect(kbz(["status"], { cwd: dir }).stdout).toContain("UNMET: 4 (met: 0)");
  });

  test("never overwrites: an existing GATES.md is a usage error and nothing changes", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "GATES.md"), "mine");
    const before = hashTree(dir);
    const r = kbz(["init"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("GATES.md already exists");
    expect(hashTree(dir)).toBe(before);
  });

  test("--scope writes PLAN.md, ACCESS.json and a node GATES.md naming the scope", () => {
    const dir = tempDir();
    const j = JSON.parse(kbz(["init", "--scope", "api", "--json"], { cwd: dir }).stdout);
    expect(j.files).toEqual([".unlazy/api/PLAN.md", ".unlazy/api/ACCESS.json", ".unlazy/api/GATES.md"]);
    const gates = fs.readFileSync(path.join(dir, ".unlazy/api/GATES.md"), "utf8");
    expect(gates).toContain("kbz check --status .unlazy/api/gates/leaf-*.md");
    expect(gates).not.toContain("<scope>");
    expect(kbz(["init", "--scope", "../x"], { cwd: dir }).code).toBe(2);
  });
});
