// `kbz doctor` (issue 32): a guard that fires says so and exits 0; a broken install (the kbz it
// runs moved away, the hook removed) is NOT FIRING with the command that fixes it, and running
// that command makes it fire again with the hosts' command string unchanged.
// Codex's trust hash (asked of the real Codex) is covered in test/hosts/doctor.test.ts.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";

setDefaultTimeout(120_000);

function project() {
  const dir = tempDir("kbz-doctor-");
  const home = tempDir("kbz-doctor-home-");
  // No agent host on PATH: only kbz's own part is checked (versions are reported when a host CLI is found).
  const env = { HOME: home, CODEX_HOME: path.join(home, ".codex"), PATH: "/usr/bin:/bin", KBZ_HOME: undefined };
  writeTree(dir, { "GATES.md": "# Gates\n\n- [x] G1: outcome\n  EVIDENCE: reviewed by hand\n" });
  const run = (args: string[], bin = BIN) => {
    const r = Bun.spawnSync([bin, ...args], {
      cwd: dir,
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
    });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  return { dir, home, env, run };
}

describe("kbz doctor", () => {
  test("nothing installed: exit 1 and the install line", () => {
    const p = project();
    const r = p.run(["doctor"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("No kbz stop guard is installed here: run kbz hook install --agent");
  });

  test("an installed guard fires: its command, run on a dry-run payload of each host, blocks on an unmet gate; exit 0", () => {
    const p = project();
    for (const host of ["claude", "cursor", "gemini", "copilot", "qwen", "opencode"])
      expect(p.run(["hook", "install", "--agent", host]).code).toBe(0);
    const r = p.run(["doctor", "--json"]);
    const j = JSON.parse(r.stdout);
    expect([r.code, j.verdict]).toEqual([0, "fires"]);
    expect(j.places.map((x: any) => `${x.host}:${x.fires}`).sort()).toEqual([
      "claude:true",
      "copilot:true",
      "cursor:true",
      "gemini:true",
      "opencode:true",
      "qwen:true",
    ]);
    expect(p.run(["doctor"]).stdout).toMatch(/^claude local +fires +\//m);
  });

  test("binary moved: NOT FIRING, with `kbz hook install` as the fix; the fix keeps the hosts' command string", () => {
    const p = project();
    const old = path.join(tempDir("kbz-old-bin-"), "kbz");
    fs.copyFileSync(BIN, old);
    fs.chmodSync(old, 0o755);
    expect(p.run(["hook", "install"], old).code).toBe(0);
    const settings = path.join(p.dir, ".claude/settings.local.json");
    const before = fs.readFileSync(settings, "utf8");
    expect(p.run(["doctor"]).code).toBe(0);
    fs.rmSync(old);
    const broken = p.run(["doctor", "--json"]);
    const place = JSON.parse(broken.stdout).places[0];
    expect([broken.code, place.fires, place.fix]).toEqual([1, false, "kbz hook install"]);
    expect(place.problem).toContain(`${old} does not exist`);
    expect(p.run(["doctor"]).stdout).toContain("NOT FIRING");
    // The fix, run with the kbz that is here now.
    expect(p.run(["hook", "install"]).code).toBe(0);
    expect(fs.readFileSync(settings, "utf8")).toBe(before);
    expect(p.run(["doctor"]).code).toBe(0);
  });

  test("hook removed (from its file, or the file deleted): NOT FIRING, with the install line that puts it back", () => {
    const p = project();
    expect(p.run(["hook", "install", "--agent", "gemini"]).code).toBe(0);
    expect(p.run(["hook", "install", "--agent", "copilot"]).code).toBe(0);
    fs.writeFileSync(path.join(p.dir, ".gemini/settings.json"), JSON.stringify({ hooks: {} }));
    fs.rmSync(path.join(p.dir, ".github/hooks/kbz.json"));
    const r = p.run(["doctor", "--json"]);
    const j = JSON.parse(r.stdout);
    expect(r.code).toBe(1);
    expect(j.places.map((x: any) => [x.host, x.state, x.fires, x.fix])).toEqual([
      ["gemini", "removed", false, "kbz hook install --agent gemini"],
      ["copilot", "removed", false, "kbz hook install --agent copilot"],
    ]);
    for (const fix of ["gemini", "copilot"]) p.run(["hook", "install", "--agent", fix]);
    expect(p.run(["doctor"]).code).toBe(0);
  });

  test("one event's handler removed by hand: NOT FIRING until re-installed", () => {
    const p = project();
    p.run(["hook", "install"]);
    const file = path.join(p.dir, ".claude/settings.local.json");
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    delete s.hooks.TaskCompleted;
    fs.writeFileSync(file, JSON.stringify(s));
    const place = JSON.parse(p.run(["doctor", "--json"]).stdout).places[0];
    expect([place.fires, place.problem, place.fix]).toEqual([
      false,
      "no kbz handler for TaskCompleted; run kbz hook install again",
      "kbz hook install",
    ]);
  });

  test("a guard whose command no longer blocks (replaced by a no-op) is NOT FIRING", () => {
    const p = project();
    p.run(["hook", "install", "--agent", "cursor"]);
    const file = path.join(p.dir, ".cursor/hooks.json");
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const e of ["stop", "subagentStop"]) s.hooks[e][0].command = `/bin/true --unlazy-hook-v2`;
    fs.writeFileSync(file, JSON.stringify(s));
    const place = JSON.parse(p.run(["doctor", "--json"]).stdout).places[0];
    expect(place.fires).toBe(false);
    expect(place.problem).toContain("answered without blocking");
  });

  test("an uninstalled guard is forgotten: nothing to check", () => {
    const p = project();
    p.run(["hook", "install", "--agent", "qwen"]);
    p.run(["hook", "install", "--agent", "qwen", "--uninstall"]);
    expect(p.run(["doctor"]).stdout).toContain("No kbz stop guard is installed here");
  });
});
