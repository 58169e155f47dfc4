// A newcomer's first commands: a typo names the nearest verb, action or flag; an empty folder
// points at `kbz init`; `kbz lint` finds the ledgers `kbz status` finds; counts read "1 gate";
// state words are coloured on a terminal only, and never with NO_COLOR.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli } from "../helpers/cli.ts";
import { ledger } from "../helpers/hook.ts";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";

const solo = () => {
  const dir = tempDir();
  writeTree(dir, {
    "GATES.md": ledger("solo", [
      { id: "G1", state: "unmet" },
      { id: "G2", state: "met" },
    ]),
  });
  return dir;
};

describe("did you mean", () => {
  test("a mistyped verb names the nearest verb, in text and in the JSON hint", async () => {
    const r = await runCli(["statsu"], { cwd: tempDir() });
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "kbz: Unknown argument: statsu\n  hint: did you mean kbz status?\nrun kbz --help for usage\n",
    });
    const j = JSON.parse((await runCli(["statsu", "--json"], { cwd: tempDir() })).stdout);
    expect(j.errors[0].hint).toBe("did you mean kbz status?");
  });

  test("a mistyped flag names the nearest flag of that verb", async () => {
    expect((await runCli(["status", "--jsn"], { cwd: solo() })).stderr).toContain("  hint: did you mean --json?\n");
    expect((await runCli(["check", "--aprove"], { cwd: solo() })).stderr).toContain(
      "  hint: did you mean --approve?\n",
    );
    expect((await runCli(["next", "--slot", "2"], { cwd: solo() })).stderr).toContain(
      "  hint: did you mean --slots?\n",
    );
  });

  test("a mistyped action names the nearest action", async () => {
    expect((await runCli(["approvals", "lsit"], { cwd: solo() })).stderr).toContain("  hint: did you mean list?\n");
    expect((await runCli(["scope", "clam"], { cwd: solo() })).stderr).toContain("  hint: did you mean claim?\n");
  });

  test("a word near nothing gets no guess", async () => {
    expect(await runCli(["frobnicate"], { cwd: tempDir() })).toEqual({
      code: 2,
      stdout: "",
      stderr: "kbz: Unknown argument: frobnicate\nrun kbz --help for usage\n",
    });
    expect((await runCli(["status", "--zzzzzz"], { cwd: solo() })).stderr).not.toContain("did you mean");
  });
});

describe("hints that name the next command", () => {
  test("status, check and lint in a folder without ledgers point at kbz init", async () => {
    for (const verb of ["status", "check", "lint"]) {
      const r = await runCli([verb], { cwd: tempDir() });
      expect([verb, r.code]).toEqual([verb, 2]);
      expect(r.stderr).toContain("  hint: kbz init writes a starter GATES.md here");
    }
  });
});

describe("kbz lint with no argument", () => {
  test("lints the ledgers status finds: from the root and from a subfolder", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md":
        "# Gates\n\n- [ ] G1: it works\n  CHECK: node t.mjs || true\n  EXPECT: IT_WORKS_MARKER\n  EVIDENCE: pending\n",
      "gates/more.md": "# More\n\n- [ ] M1: reviewed by hand\n  EVIDENCE: pending\n",
      "src/deep/.keep": "",
    });
    const top = await runCli(["lint"], { cwd: dir });
    expect(top.code).toBe(1);
    expect(top.stdout).toStartWith("GATES.md\n  ERROR G1:");
    expect(top.stdout).toContain("gates/more.md\n  WARN  M1:");
    const deep = await runCli(["lint", "--json"], { cwd: path.join(dir, "src", "deep") });
    expect([...new Set(JSON.parse(deep.stdout).findings.map((f: { file: string }) => f.file))].sort()).toEqual([
      "../../GATES.md",
      "../../gates/more.md",
    ]);
  });

  test("in a scope, lints that scope's ledgers (the only scope, or --scope)", async () => {
    const dir = tempDir();
    writeTree(dir, {
      ".unlazy/api/GATES.md": "# Root\n\n- [ ] R1: reviewed\n  EVIDENCE: pending\n",
      ".unlazy/web/GATES.md":
        "# Web\n\n- [ ] W1: it works\n  CHECK: node t.mjs; true\n  EXPECT: OK\n  EVIDENCE: pending\n",
    });
    const r = await runCli(["lint", "--scope", "api"], { cwd: dir });
    expect(r).toEqual({ code: 0, stdout: expect.stringContaining(".unlazy/api/GATES.md\n  WARN  R1:"), stderr: "" });
    expect(r.stdout).not.toContain("web");
    expect((await runCli(["lint"], { cwd: dir })).stderr).toContain("2 scopes present (api, web)");
  });
});

describe("counts and words", () => {
  test("one gate is '1 gate'", async () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": ledger("one", [{ id: "G1", state: "met" }]) });
    expect((await runCli(["status", "--all"], { cwd: dir })).stdout).toStartWith("GATES.md: 1 gate\n");
  });
});

describe("colour on a terminal", () => {
  const ESC = "\x1b[";
  const onTerminal = (dir: string, env: Record<string, string> = {}) =>
    spawnSync("script", ["-qec", `'${BIN}' status --all`, "/dev/null"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, TERM: "xterm", ...env },
    }).stdout;

  test("piped output has no escape sequence", () => {
    const r = spawnSync(BIN, ["status"], {
      cwd: solo(),
      encoding: "utf8",
      env: { ...process.env, TERM: "xterm", NO_COLOR: "" },
    });
    expect(r.stdout).toContain("UNMET");
    expect(r.stdout).not.toContain(ESC);
  });

  test.skipIf(!needs("script"))("a terminal sees UNMET in red and MET in green; NO_COLOR turns it off", () => {
    const dir = solo();
    const shown = onTerminal(dir, { NO_COLOR: "" });
    expect(shown).toContain(`  ${ESC}31mUNMET${ESC}39m       GATES:G1`);
    expect(shown).toContain(`  ${ESC}32mMET${ESC}39m         GATES:G2`);
    expect(shown).toContain(`${ESC}31mUNMET${ESC}39m: 1 (met: 1)`);
    const plain = onTerminal(dir, { NO_COLOR: "1" });
    expect(plain).toContain("UNMET");
    expect(plain).not.toContain(ESC);
  });

  test.skipIf(!needs("script"))(
    "repository text that looks like a state word is not painted, and cannot carry its own escapes",
    () => {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, "GATES.md"), "# Gates\n\n- [ ] G1: MET \x1b[32mfake\n  EVIDENCE: pending\n");
      const shown = onTerminal(dir, { NO_COLOR: "" });
      expect(shown).not.toContain(`${ESC}32m`);
    },
  );
});
