import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { FIXTURES, hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";

const LINT = path.join(FIXTURES, "lint");
const lint = async (...args: string[]) => await runCli(["lint", ...args], { cwd: LINT });

describe("kbz lint (compiled binary)", () => {
  test("a fixed-output command is an error: the gate cannot fail (issue 44 item 3)", async () => {
    const r = await lint("weak.md");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '  ERROR G1: CHECK looks like a fixed-output command: "echo ok"; use an oracle that observes the named outcome  [tautological-check]',
    );
  });

  test("chained commands and EXPECT passed as an argv value are not flagged", async () => {
    const r = await lint("sound.md");
    expect(r.stdout).toBe("LINT OK\n");
    expect(r.code).toBe(0);
  });

  test("weak EXPECT, activity title, unmeasured number and path-like regex all warn; path ambiguity once", async () => {
    const r = await lint("weak.md");
    expect(r.stdout).toContain("also appears in failure output");
    expect(r.stdout).toContain("names an activity, not an outcome");
    expect(r.stdout).toContain("states a number that nothing measures");
    expect(r.stdout).toContain("looks like a literal path");
    expect(r.stdout.match(/\[path-read-as-regex\]/g)).toHaveLength(1);
    expect(r.stdout).not.toContain("G3: CHECK looks like");
  });

  test("/Found 0 errors/ does not warn", async () => {
    expect((await lint("sound.md")).stdout).not.toContain("G5");
  });

  test("a manual gate gives LINT OK (N warning(s)); --strict makes it exit 1 with LINT FINDINGS", async () => {
    const r = await lint("manual.md");
    expect(r.code).toBe(0);
    expect(r.stdout).toEndWith("LINT OK (1 warning(s))\n");
    const s = await lint("--strict", "manual.md");
    expect(s.code).toBe(1);
    expect(s.stdout).toContain("LINT FINDINGS: 0 error(s), 1 warning(s)");
    expect(s.stdout).not.toContain("LINT OK");
  });

  test("the golden solo ledger lints exactly as unlazy reports it", async () => {
    const r = await runCli(["lint", "GATES.md"], { cwd: path.join(FIXTURES, "solo") });
    expect(r.stdout).toContain(
      "GATES.md\n  WARN  G4: no CHECK, so this outcome is judged by hand and its evidence is only as good as the reader  [manual-gate]\n",
    );
  });

  test("--json gives the envelope with ok, counts and findings with rule and level; --strict --json gives ok:false", async () => {
    const j = JSON.parse((await lint("--json", "manual.md")).stdout);
    expect(j.ok).toBe(true);
    expect(j.counts.errors).toBe(0);
    expect(j.counts.warnings).toBeGreaterThanOrEqual(1);
    expect([j.exit, j.verdict, j.errors]).toEqual([0, "ok", []]);
    for (const f of j.findings) expect(typeof f.rule === "string" && typeof f.level === "string").toBe(true);
    expect(Object.keys(j)).toEqual([
      "schema",
      "exit",
      "verdict",
      "ok",
      "counts",
      "findings",
      "truncated",
      "omittedFindings",
      "errors",
    ]);
    expect(Object.keys(j.findings[0])).toEqual(["file", "level", "gate", "rule", "message", "line"]);
    const s = await lint("--strict", "--json", "manual.md");
    expect(JSON.parse(s.stdout).ok).toBe(false);
    expect(s.code).toBe(1);
  });

  test("multiple ledgers in one run are all reported", async () => {
    const r = await lint("weak.md", "manual.md");
    expect(r.stdout).toContain("weak.md\n");
    expect(r.stdout).toContain("manual.md\n");
    expect(r.stdout).toContain("G1: CHECK looks like");
  });

  test("symlinked, hard-linked and FIFO ledgers exit 2 without reading the victim", async () => {
    const dir = tempDir();
    writeTree(dir, { victim: "- [ ] SECRET: outside\n" });
    fs.symlinkSync(path.join(dir, "victim"), path.join(dir, "sym.md"));
    fs.linkSync(path.join(dir, "victim"), path.join(dir, "hard.md"));
    execFileSync("mkfifo", [path.join(dir, "fifo.md")]);
    for (const name of ["sym.md", "hard.md", "fifo.md"]) {
      const r = await runCli(["lint", name], { cwd: dir, timeoutMs: 5000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("gate ledger must be one unchanged regular single-link file");
      expect(r.stdout + r.stderr).not.toContain("SECRET");
    }
  });

  test("a ledger of 8 MiB + 1 byte exits 2 naming the cap", async () => {
    const dir = tempDir();
    writeTree(dir, { "big.md": "- [ ] G1: t\n" + "x".repeat(8 * 1024 * 1024 + 1 - 12) });
    const r = await runCli(["lint", "big.md"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("big.md:1: gate ledger exceeds 8388608 bytes");
  });

  test("control and bidi characters in file names and titles are escaped in text and JSON", async () => {
    const dir = tempDir();
    const name = "x\u2028\u2029\u202e.md";
    writeTree(dir, { [name]: "- [ ] G1: review \u001b\u0007\u0085\u202e copy\n  EVIDENCE: pending\n" });
    const r = await runCli(["lint", name], { cwd: dir });
    expect(r.stdout).toContain("x\\u2028\\u2029\\u202e.md");
    expect(r.stdout).toContain("\\x1b\\x07\\x85\\u202e");
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(r.stdout.trimEnd().split("\n").pop()).toMatch(/^LINT OK \(/);
    const j = await runCli(["lint", "--json", name], { cwd: dir });
    expect(j.stdout).toStartWith('{"schema":1,"exit":0,"verdict":"ok","ok":true,');
    expect(j.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(JSON.parse(j.stdout).findings[0].file).toBe("x\\u2028\\u2029\\u202e.md");
  });

  test("unknown-option diagnostics escape controls and exit 2", async () => {
    const r = await runCli(["lint", "--unsafe-\u001b\u2028x", "weak.md"], { cwd: LINT });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u001b\u2028]/);
    expect(r.stderr).toContain("Unknown argument");
  });

  test("a title with a million ESC characters stays small and safe in text and JSON", async () => {
    const dir = tempDir();
    writeTree(dir, { "esc.md": `- [ ] G1: review ${"\u001b".repeat(1_000_000)}\n` });
    const t = await runCli(["lint", "esc.md"], { cwd: dir });
    expect(t.stdout.length).toBeLessThan(16 * 1024);
    expect(t.stdout).toContain("...[truncated]");
    const j = await runCli(["lint", "--json", "esc.md"], { cwd: dir });
    expect(j.stdout.length).toBeLessThan(32 * 1024);
    expect(j.stdout).toContain("...[truncated]");
  });

  test("eighty activity-titled manual gates: 64 findings stored, the rest counted and reported as omitted", async () => {
    const dir = tempDir();
    const gates = Array.from({ length: 80 }, (_, i) => `- [ ] G${i}: review screen ${i}\n  EVIDENCE: pending\n`).join(
      "",
    );
    writeTree(dir, { "many.md": gates });
    const t = await runCli(["lint", "many.md"], { cwd: dir });
    expect(t.stdout).toContain("... [report truncated: 177 finding(s) omitted]");
    expect(t.stdout).toEndWith("LINT OK (241 warning(s))\n");
    expect(t.stdout.length).toBeLessThan(256 * 1024);
    const j = await runCli(["lint", "--strict", "--json", "many.md"], { cwd: dir });
    expect(j.code).toBe(1);
    const o = JSON.parse(j.stdout);
    expect([o.counts.warnings, o.findings.length, o.truncated, o.omittedFindings]).toEqual([241, 64, true, 177]);
  });

  test("--help exits 0 with multi-line usage", async () => {
    const r = kbz(["lint", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").length).toBeGreaterThan(5);
    expect(r.stdout).toContain("kbz lint");
  });

  test("a parser-rejected ledger exits 2, not 1, with <file>:<line>: lines", async () => {
    const r = await runCli(["lint", "GATES.md"], { cwd: path.join(FIXTURES, "bad") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("GATES.md:3: gate needs an explicit ID followed by a colon");
  });

  test("unknown long and short options and no arguments exit 2", async () => {
    expect((await lint("--nope", "weak.md")).code).toBe(2);
    expect((await lint("-x", "weak.md")).code).toBe(2);
    expect((await lint()).code).toBe(2);
  });

  test("after --, names like --help and -h are files", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "--help": "- [ ] G1: api responds\n  CHECK: node a.mjs\n  EXPECT: API_UP\n",
      "-h": "- [ ] G1: api responds\n  CHECK: node a.mjs\n  EXPECT: API_UP\n",
    });
    const r = await runCli(["lint", "--", "--help", "-h"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("LINT OK\n");
  });

  test("lint never writes", async () => {
    const before = hashTree(LINT);
    await lint("weak.md", "sound.md", "manual.md");
    expect(hashTree(LINT)).toBe(before);
  });
});
