// `kbz doctor` and Codex's trust, asked of the real Codex 0.171.0 (issue 32): trusted hooks fire;
// a kbz upgrade (moved binary, re-install) keeps the command and so the trust; a changed command
// is "modified" in Codex's eyes and kbz doctor says NOT FIRING with the fix.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { askCodex } from "../../src/io/hook/doctor.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(300_000);

const MODULES = path.join(REPO, "test", "hosts", "node_modules");
// Installed by .ci/run; under KBZ_CI=1 a missing host CLI fails this file instead of skipping it.
const available = needs("hosts");
const NODE = spawnSync("sh", ["-c", "command -v node"], {
  encoding: "utf8",
  env: {
    PATH: (process.env.PATH ?? "")
      .split(":")
      .filter((d) => !d.includes("node_modules"))
      .join(":"),
  },
}).stdout.trim();

describe.skipIf(!available)("kbz doctor with Codex 0.171.0 on PATH", () => {
  test("trusted: fires; moved kbz + re-install: still trusted; a changed command: modified, NOT FIRING, with the fix", async () => {
    const root = tempDir("kbz-doctor-codex-");
    const home = tempDir("kbz-doctor-codex-home-");
    const bin = path.join(home, "bin");
    writeTree(bin, {
      codex: `#!/bin/sh\nexec ${NODE} ${path.join(MODULES, "codex-current", "bin", "codex.js")} "$@"\n`,
    });
    fs.chmodSync(path.join(bin, "codex"), 0o755);
    writeTree(root, { "GATES.md": "# Gates\n" });
    spawnSync("git", ["init", "-q"], { cwd: root });
    const env: Record<string, string> = {
      PATH: `${bin}:/usr/bin:/bin`,
      HOME: home,
      CODEX_HOME: path.join(home, "codex"),
      TMPDIR: home,
    };
    writeTree(home, { "codex/config.toml": `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n` });
    const run = (args: string[], program = BIN) => spawnSync(program, args, { cwd: root, env, encoding: "utf8" });
    // Changing an installed hook is a person's act (issue 40): a terminal, no agent host's marker.
    const person = (args: string[], program = BIN) =>
      spawnSync("script", ["-qec", [program, ...args].map((w) => `'${w}'`).join(" "), "/dev/null"], {
        cwd: root,
        env,
        encoding: "utf8",
      });
    expect(run(["hook", "install", "--agent", "codex"]).status).toBe(0);
    for (const h of (await askCodex(path.join(bin, "codex"), env, root))!) {
      fs.appendFileSync(
        path.join(home, "codex", "config.toml"),
        `[hooks.state.${JSON.stringify((h as any).key)}]\ntrusted_hash = ${JSON.stringify((h as any).currentHash)}\n`,
      );
    }
    const first = JSON.parse(run(["doctor", "--json"]).stdout).places[0];
    expect([first.trust, first.fires, first.version.found]).toEqual(["trusted", true, "0.171.0"]);
    // An upgrade: kbz moved, installed again from the new place: same command, trust kept.
    const moved = path.join(home, "kbz-new");
    fs.copyFileSync(BIN, moved);
    fs.chmodSync(moved, 0o755);
    expect(person(["hook", "install", "--agent", "codex"], moved).status).toBe(0);
    expect(JSON.parse(run(["doctor", "--json"]).stdout).places[0].fires).toBe(true);
    // The command changed (here: pinned to a scope) since the user trusted it.
    expect(person(["hook", "install", "--agent", "codex", "--scope", "api"]).status).toBe(0);
    const r = run(["doctor", "--json"]);
    const changed = JSON.parse(r.stdout).places[0];
    expect([r.status, changed.trust, changed.fires]).toEqual([1, "modified", false]);
    expect(changed.fix).toContain("run codex, open /hooks and trust kbz's Stop and SubagentStop hooks");
  });
});
