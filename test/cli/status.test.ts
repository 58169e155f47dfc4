import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixtureCopy, hashTree, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";

describe("kbz status (compiled binary)", () => {
  test("the golden solo ledger: every gate with its state, handoff before unmet, exit 1", async () => {
    const dir = fixtureCopy("solo");
    const before = hashTree(dir);
    const r = await runCli(["status"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        "GATES.md: 5 gates",
        "  UNMET       GATES:G1 (unchecked): greeting script prints the marker",
        "  UNMET       GATES:G2 (unchecked): failing check stays unmet",
        "  UNMET       GATES:G3 (unchecked): regex expectation matches a count",
        "  UNMET       GATES:G4 (unchecked): copy reviewed by a human",
        "  ABANDONED   GATES:G5: impossible outcome",
        "HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 4)",
        "UNMET: 4 (met: 0, abandoned: 1)",
        "",
      ].join("\n"),
    );
    expect(hashTree(dir)).toBe(before);
  });

  test("evidence written by unlazy 2.1 (golden ledger after --approve) reads as met", async () => {
    const r = await runCli(["status", "--json"], { cwd: fixtureCopy("solo-after") });
    const j = JSON.parse(r.stdout);
    expect(j.gates.map((g: any) => `${g.qid}=${g.state}`)).toEqual([
      "GATES:G1=met",
      "GATES:G2=unmet",
      "GATES:G3=met",
      "GATES:G4=unmet",
      "GATES:G5=abandoned",
    ]);
    expect(j.counts).toEqual({ ledgers: 1, gates: 5, met: 2, unmet: 2, abandoned: 1 });
    expect(j.verdict).toBe("handoff");
    expect(r.code).toBe(1);
  });

  test("--json prints one object with schema, verdict, counts and per-gate state", async () => {
    const r = await runCli(["status", "--json"], { cwd: fixtureCopy("solo") });
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual([
      "schema",
      "exit",
      "verdict",
      "root",
      "mode",
      "scope",
      "counts",
      "ledgers",
      "gates",
      "unmet",
      "abandoned",
      "dispatch",
      "notInScope",
      "errors",
    ]);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(j.schema).toBe(1);
    expect(j.exit).toBe(1);
    expect(j.gates[0]).toEqual({
      qid: "GATES:G1",
      file: "GATES.md",
      id: "G1",
      line: 3,
      title: "greeting script prints the marker",
      state: "unmet",
      reason: "unchecked",
      runnable: true,
    });
    expect(j.unmet).toEqual(["GATES:G1", "GATES:G2", "GATES:G3", "GATES:G4"]);
    expect(j.abandoned).toEqual(["GATES:G5"]);
  });

  test("all met prints ALL MET (n met) as the last line and exits 0", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md": "- [x] M1: reviewed\n  EVIDENCE: Dana approved the copy\n",
      "gates/extra.md": "- [x] M2: also\n  EVIDENCE: ok by Lee\n",
    });
    const r = await runCli(["status"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ALL MET (2 met)\n");
    const all = await runCli(["status", "--all"], { cwd: dir });
    expect(all.stdout.trimEnd().split("\n").pop()).toBe("ALL MET (2 met)");
    expect(all.stdout).toContain("gates/extra.md: 1 gate");
  });

  test("long answers: status prints what is not met and the counts; --all lists the met gates too", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md": "- [x] M1: reviewed\n  EVIDENCE: Dana approved the copy\n- [ ] M2: not yet\n",
      "gates/extra.md": "- [x] M3: also\n  EVIDENCE: ok by Lee\n",
    });
    const r = await runCli(["status"], { cwd: dir });
    expect([r.code, r.stdout]).toEqual([
      1,
      "GATES.md: 2 gates\n  UNMET       GATES:M2 (unchecked): not yet\nUNMET: 1 (met: 2)\n(2 met gates not listed; --all lists them)\n",
    ]);
    const all = await runCli(["status", "--all"], { cwd: dir });
    expect(all.stdout).toContain("  MET         GATES:M1: reviewed\n");
    expect(all.stdout).toContain("gates/extra.md: 1 gate\n  MET         extra:M3: also\n");
    expect(all.stdout).not.toContain("not listed");
  });

  test("stale automatic evidence and checked-but-pending manual gates are unmet with their reasons", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md":
        "- [x] G1: t\n  CHECK: a\n  EXPECT: b\n  EVIDENCE: automatic-evidence=v1; forged\n- [x] G2: m\n  EVIDENCE: pending\n",
    });
    const r = await runCli(["status"], { cwd: dir });
    expect(r.stdout).toContain("STALE       GATES:G1 (checked but automatic evidence is stale or unbound): t");
    expect(r.stdout).toContain("NO-EVIDENCE GATES:G2 (checked but EVIDENCE pending): m");
    expect(r.code).toBe(1);
  });

  test("explicit files are the only targets, resolved against --root, qualified by their stems", async () => {
    const dir = tempDir();
    writeTree(dir, {
      "a/leaf-a.md": "- [ ] G1: a\n",
      "b/leaf-b.md": "- [x] G1: b\n  EVIDENCE: seen\n",
      "GATES.md": "- [ ] Z: other\n",
    });
    const r = await runCli(["status", "--all", "--root", dir, "a/leaf-a.md", "b/leaf-b.md"], { cwd: "/" });
    expect(r.stdout).toContain("leaf-a:G1");
    expect(r.stdout).toContain("leaf-b:G1");
    expect(r.stdout).not.toContain("GATES:Z");
  });

  test("scopes: one is picked up automatically, several need --scope or UNLAZY_SCOPE, output carries [scope id]", async () => {
    const dir = fixtureCopy("pipe");
    const ambiguous = await runCli(["status"], { cwd: dir });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(
      "kbz: 2 scopes present (api, web); pass --scope <id> or set UNLAZY_SCOPE. Refusing to guess.",
    );
    const api = await runCli(["status", "--scope", "api"], { cwd: dir });
    expect(api.code).toBe(1);
    expect(api.stdout).toContain("UNMET: 2 (met: 0) [scope api]");
    expect(api.stdout).toContain("leaf-1:G1");
    const web = await runCli(["status"], { cwd: dir, env: { UNLAZY_SCOPE: "web" } });
    expect(web.code).toBe(0);
    expect(web.stdout.trimEnd().split("\n").pop()).toBe("ALL MET (1 met) [scope web]");
  });

  test("explicit files with --scope, an invalid scope id and an unknown scope are usage errors", async () => {
    const dir = fixtureCopy("pipe");
    expect((await runCli(["status", "--scope", "api", "x.md"], { cwd: dir })).code).toBe(2);
    const bad = await runCli(["status", "--scope", "../x"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("scope must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/ and cannot be . or ..");
    expect((await runCli(["status", "--scope", "nope"], { cwd: dir })).stderr).toContain(
      'no such scope "nope" under .unlazy/ (have: api, web)',
    );
  });

  test("no ledgers anywhere is a usage error naming where it looked", async () => {
    const dir = tempDir();
    const r = await runCli(["status"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `no gate files found (looked for .unlazy/<scope>/, then GATES.md and gates/*.md under ${dir})`,
    );
  });

  test("the golden malformed ledger: one <file>:<line>: line per problem, exit 2, nothing written", async () => {
    const dir = fixtureCopy("bad");
    const before = hashTree(dir);
    const r = await runCli(["status"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      "GATES.md:3: gate needs an explicit ID followed by a colon",
      "GATES.md:6: duplicate gate id G1 (first declared on line 4)",
      "GATES.md:7: unindented CHECK is not attached to a gate; indent attribute lines with spaces",
      "GATES.md:8: gate G2: runnable gates require both non-blank CHECK and EXPECT",
      "GATES.md:11: indented ABANDON is not applied; start ABANDON at column 1",
      "GATES.md:12: ABANDON references unknown gate G9",
      "GATES.md:13: ABANDON G1 needs a non-blank reason",
    ]);
    expect(hashTree(dir)).toBe(before);
  });

  test("a path-like regex is a warning on stderr; an invalid regex beside it is still an error", async () => {
    const r = await runCli(["status", "regex.md"], { cwd: fixtureCopy("bad") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('regex.md:6: warning: gate G2: EXPECT "/etc/app/conf/" is read as a regular expression');
    expect(r.stderr).toContain("regex.md:3: gate G1: invalid EXPECT regex:");
  });

  test("fenced example gates are ignored", async () => {
    const r = await runCli(["status", "fenced.md"], { cwd: fixtureCopy("bad") });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("fenced.md: 1 gate");
    expect(r.stdout).not.toContain("G9");
  });

  test("titles with control and bidi characters never reach the terminal raw", async () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": "- [ ] G1: red \u001b[31mALERT\u0007 \u202eevil\u2028x\u0085y\n" });
    const r = await runCli(["status"], { cwd: dir });
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2028]/);
    expect(r.stdout).toContain("[31mALERT");
    const j = await runCli(["status", "--json"], { cwd: dir });
    expect(j.stdout).not.toMatch(/[\u007f-\u009f\u202e\u2028]/);
    expect(JSON.parse(j.stdout).gates[0].title).toBe("red \u001b[31mALERT\u0007 \u202eevil\u2028x\u0085y");
  });

  test("status never writes: no .unlazy, no approval store, even with a hostile environment", async () => {
    const dir = fixtureCopy("solo");
    const approvals = path.join(dir, "approvals-inside");
    const before = hashTree(dir);
    const r = await runCli(["status"], {
      cwd: dir,
      env: { PATH: "", UNLAZY_APPROVAL_DIR: approvals, UNLAZY_SHELL: "missing-shell" },
    });
    expect(r.code).toBe(1);
    expect(fs.existsSync(approvals)).toBe(false);
    expect(hashTree(dir)).toBe(before);
  });
});
