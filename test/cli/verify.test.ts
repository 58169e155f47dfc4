// kbz verify through the compiled binary: the end-to-end loop, outputs, exit codes, help.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../helpers/approvals.ts";
import { BIN, kbz, REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";
import { sourceDigest } from "../../src/io/receipts/verifier.ts";
import { CHECK_SCRIPT, GATES, MANUAL_GATE } from "../io/receipts/workspace.ts";
import { receiptScope } from "../core/schedule/receipt-scope.ts";

function vo(files: Record<string, string> = {}) {
  const root = tempDir("kbz-verify-cli-");
  writeTree(root, { "src/value.txt": "good\n", "tests/check.sh": CHECK_SCRIPT, "GATES.md": GATES, ...files });
  const env = agentEnv();
  const run = (...args: string[]) => runCli(["verify", ...args], { cwd: root, env });
  const counter = () => Number(fs.readFileSync(path.join(root, "counter"), "utf8"));
  return { root, env, run, counter };
}

const RUN = ["run", "--inputs", "src,tests", "--closed"];

describe("kbz verify end to end", () => {
  test("run, audit current, edit an input, audit stale, explain names the path, run again, audit current", async () => {
    const w = vo({ "src/notes.txt": "v1\n" });
    let r = await w.run(...RUN, "--approve", "GATES.md");
    expect([r.code, r.stdout]).toEqual([
      0,
      "ACCEPTED GATES.md: checked once; receipt reusable while its inputs stay unchanged\n",
    ]);
    r = await w.run("audit", "GATES.md");
    expect([r.code, r.stdout]).toEqual([0, "CURRENT GATES.md\nCURRENT_EVIDENCE (1 current)\n"]);
    writeTree(w.root, { "src/notes.txt": "v2\n" });
    r = await w.run("audit", "GATES.md");
    expect([r.code, r.stdout]).toEqual([
      1,
      "STALE   GATES.md: changed-inputs-or-verifier (kbz verify explain GATES.md says why)\nSTALE_EVIDENCE (1 of 1 stale)\n",
    ]);
    r = await w.run("explain", "GATES.md");
    expect([r.code, r.stdout]).toEqual([
      1,
      "GATES.md: receipt not reusable (changed-inputs-or-verifier) because:\n  - input file src/notes.txt changed\n",
    ]);
    r = await w.run(...RUN, "GATES.md");
    expect([r.code, r.stdout]).toEqual([
      0,
      "ACCEPTED GATES.md: checked once; receipt reusable while its inputs stay unchanged\n",
    ]);
    expect((await w.run("audit", "GATES.md")).code).toBe(0);
    expect((await w.run("explain", "GATES.md")).stdout).toBe(
      "GATES.md: receipt is current; nothing it is bound to changed since acceptance\n",
    );
    expect(w.counter()).toBe(2);
  });

  test("a second run in a new process reuses the receipt without executing (kill §5.4 test 1)", async () => {
    const w = vo();
    await w.run(...RUN, "--approve", "GATES.md");
    const r = await w.run(...RUN, "GATES.md");
    expect([r.code, r.stdout]).toEqual([0, "CURRENT_EVIDENCE GATES.md: receipt reused, nothing executed\n"]);
    expect(w.counter()).toBe(1);
  });

  test("--json: one object per command with the spec's statuses", async () => {
    const w = vo();
    let j = JSON.parse((await w.run(...RUN, "--approve", "--json", "GATES.md")).stdout);
    expect(j).toEqual({
      schema: 1,
      exit: 0,
      verdict: "accepted",
      action: "run",
      policy: { inputs: ["src", "tests"], env: [], closed: true },
      results: [{ status: "ACCEPTED", ledger: "GATES.md", executed: 1, reusable: true }],
      errors: [],
    });
    j = JSON.parse((await w.run(...RUN, "--json", "GATES.md")).stdout);
    expect(j.results).toEqual([{ status: "CURRENT_EVIDENCE", ledger: "GATES.md", executed: 0 }]);
    j = JSON.parse((await w.run("audit", "--json", "GATES.md")).stdout);
    expect(j).toEqual({
      schema: 1,
      exit: 0,
      verdict: "CURRENT_EVIDENCE",
      action: "audit",
      status: "CURRENT_EVIDENCE",
      results: [{ current: true, key: "GATES.md" }],
      errors: [],
    });
    writeTree(w.root, { "src/value.txt": "bad\n" });
    j = JSON.parse((await w.run("audit", "--json", "GATES.md")).stdout);
    expect(j).toEqual({
      schema: 1,
      exit: 1,
      verdict: "STALE_EVIDENCE",
      action: "audit",
      status: "STALE_EVIDENCE",
      results: [{ current: false, reason: "changed-inputs-or-verifier", key: "GATES.md" }],
      errors: [],
    });
    j = JSON.parse((await w.run("explain", "--json", "GATES.md")).stdout);
    expect(j).toEqual({
      schema: 1,
      exit: 1,
      verdict: "stale",
      action: "explain",
      key: "GATES.md",
      current: false,
      reason: "changed-inputs-or-verifier",
      changes: [{ kind: "input-changed", path: "src/value.txt", text: "input file src/value.txt changed" }],
      errors: [],
    });
    const r = await w.run(...RUN, "--json", "GATES.md");
    j = JSON.parse(r.stdout);
    expect(r.code).toBe(1);
    expect(j.results[0]).toMatchObject({
      status: "REVIEW_OR_REPAIR",
      ledger: "GATES.md",
      exit: 1,
      reason: "check-not-accepted",
    });
    expect(j.results[0].diagnostic).toContain(
      "  FAIL GATES:G1: source matches expected value\n       exit=1; EXPECT=not matched; output=value mismatch\nGATES.md: 1 gate\nUNMET: 1 (met: 0, reran: 1, previously met reverified: 1)\n  GATES:G1\n",
    );
  });

  test("without --approve the oracle is shown, not run, and the run needs review, on stdout like every report (golden F)", async () => {
    const w = vo();
    const r = await w.run(...RUN, "GATES.md");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(
      /REVIEW_OR_REPAIR GATES.md: check-not-accepted \(check exit 1\)\n  APPROVAL REQUIRED GATES:G1 \[[0-9a-f]{12}\]\n      CHECK: sh tests\/check.sh\n/,
    );
    expect(r.stdout).toContain("      NOT RUN: inspect this oracle, then re-run with --approve\n");
    expect(fs.existsSync(path.join(w.root, "counter"))).toBe(false);
  });

  test("manual gates without --reviewed: MANUAL_REVIEW_REQUIRED, checked before input validation (golden F)", async () => {
    const w = vo({ "GATES.md": GATES + MANUAL_GATE });
    for (const inputs of ["src,tests", "../x", "GATES.md"]) {
      const r = await w.run("run", "--inputs", inputs, "--closed", "GATES.md");
      expect([r.code, r.stdout]).toEqual([
        1,
        "MANUAL_REVIEW_REQUIRED GATES.md: review its manual gates, then run again with --reviewed\n",
      ]);
    }
  });

  test("usage: the action, --inputs, audit/explain options, unique ledgers (golden A-kill, F, F2)", async () => {
    const w = vo();
    const cases: [string[], string][] = [
      [[], "kbz: run, audit or explain required"],
      [["check", "GATES.md"], "kbz: run, audit or explain required"],
      [["run", "GATES.md"], "kbz: --inputs required; include artifacts, checks and their dependencies"],
      [["audit", "--closed", "GATES.md"], "kbz: audit accepts only --root, --json and ledgers"],
      [["explain", "--inputs", "src", "GATES.md"], "kbz: explain accepts only --root, --json and ledgers"],
      [["audit"], "kbz: unique explicit ledgers required"],
      [["audit", "GATES.md", "GATES.md"], "kbz: unique explicit ledgers required"],
      [["audit", "GATES.md", "./GATES.md"], "kbz: duplicate ledger identity"],
      [["explain", "GATES.md", "src/value.txt"], "kbz: explain takes exactly one ledger"],
      [["run", "--inputs", "../x", "--closed", "GATES.md"], "kbz: input path escapes root: ../x"],
      [["run", "--inputs", "GATES.md", "--closed", "GATES.md"], "kbz: input must not contain its own ledger: GATES.md"],
    ];
    for (const [args, message] of cases) {
      const r = await w.run(...args);
      expect({ args, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ args, code: 2, line: message });
    }
    const j = JSON.parse((await w.run("audit", "--closed", "--json", "GATES.md")).stdout);
    expect(j).toEqual({
      schema: 1,
      exit: 2,
      verdict: "invalid",
      status: "INVALID",
      reason: "audit accepts only --root, --json and ledgers",
      errors: [
        {
          file: null,
          line: null,
          message: "audit accepts only --root, --json and ledgers",
          hint: "run kbz --help for usage",
        },
      ],
    });
  });

  test("--help describes run, audit and explain and the exit codes", async () => {
    // The verb's page lists the actions; each action's page (issue 43) its flags and exit codes.
    const r = kbz(["verify", "--help"]);
    expect(r.code).toBe(0);
    for (const s of ["run LEDGER", "audit [LEDGER]", "explain LEDGER"]) expect(r.stdout).toContain(s);
    const run = kbz(["verify", "run", "--help"]).stdout;
    for (const s of ["--inputs", "--closed", "--portable", "--reviewed", "Exit 0 accepted; 1 unmet or manual review"])
      expect(run).toContain(s);
    expect(kbz(["verify", "audit", "--help"]).stdout).toContain("Runs and approves nothing.\nExit 0 current; 1 stale");
    expect(kbz(["verify", "explain", "--help"]).stdout).toContain("Exit 0 current; 1 changed");
  });

  test("--root: ledgers and inputs are relative to it", async () => {
    const w = vo();
    const r = kbz(["verify", "run", "--root", w.root, "--inputs", "src,tests", "--closed", "--approve", "GATES.md"], {
      cwd: tempDir(),
      env: w.env,
    });
    expect(r.code).toBe(0);
    expect(kbz(["verify", "audit", "--root", w.root, "GATES.md"], { cwd: tempDir(), env: w.env }).code).toBe(0);
  });

  test("the binary's verifier is kbz's version and the build digest of its source", async () => {
    const w = vo();
    await w.run(...RUN, "--approve", "GATES.md");
    const store = JSON.parse(fs.readFileSync(path.join(w.root, ".unlazy/verification-receipts.json"), "utf8"));
    const version = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;
    expect(store.receipts["GATES.md"].fingerprint.verifier).toEqual({
      name: "kbz",
      version,
      build: sourceDigest(path.join(REPO, "src")),
    });
  });

  test("two concurrent runs of one ledger: one executes, the other reuses its receipt", async () => {
    const w = vo({ "tests/check.sh": "sleep 0.3\n" + CHECK_SCRIPT });
    await w.run(...RUN, "--approve", "GATES.md");
    writeTree(w.root, { "src/other.txt": "force a re-run" });
    const once = () =>
      new Promise<number>((resolve) => {
        const child = spawn(BIN, ["verify", ...RUN, "GATES.md"], { cwd: w.root, env: { ...w.env }, stdio: "ignore" });
        child.on("exit", (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([once(), once()])).toEqual([0, 0]);
    expect(w.counter()).toBe(2);
  });

  test("a run killed mid-check leaves a pending receipt that never audits current; the next run recovers the lock and executes", async () => {
    const w = vo();
    expect((await w.run(...RUN, "--approve", "GATES.md")).code).toBe(0);
    writeTree(w.root, { "src/other.txt": "changed", "tests/check.sh": "sleep 2\n" + CHECK_SCRIPT });
    const store = path.join(w.root, ".unlazy/verification-receipts.json");
    const child = spawn(BIN, ["verify", ...RUN, "--approve", "GATES.md"], {
      cwd: w.root,
      env: { ...w.env },
      stdio: "ignore",
    });
    for (let i = 0; i < 400 && !fs.readFileSync(store, "utf8").includes('"pending"'); i++)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("exit", r));
    expect(JSON.parse(fs.readFileSync(store, "utf8")).receipts["GATES.md"].status).toBe("pending");
    expect((await w.run("audit", "GATES.md")).stdout).toContain("unfinished-verification");
    await new Promise((r) => setTimeout(r, 2200)); // let the orphaned check finish its count
    const before = w.counter();
    // tests/check.sh changed above, so its oracle needs the approval the killed run may not have recorded (issue 27).
    const r = await w.run(...RUN, "--approve", "GATES.md");
    expect([r.code, r.stdout]).toEqual([
      0,
      "ACCEPTED GATES.md: checked once; receipt reusable while its inputs stay unchanged\n",
    ]);
    expect(w.counter()).toBe(before + 1);
  }, 60_000);

  test("kbz next raises verification-<reason> for a VERIFIED leaf whose receipt went stale, and says how to see why", async () => {
    const root = tempDir("kbz-verify-next-");
    writeTree(root, receiptScope());
    const env = agentEnv();
    expect(
      kbz(["verify", "run", "--inputs", "src/1", "--closed", "--approve", ".unlazy/api/gates/leaf-1.md"], {
        cwd: root,
        env,
      }).code,
    ).toBe(0);
    expect(
      JSON.parse(kbz(["next", "--scope", "api", "--slots", "2", "--json"], { cwd: root, env }).stdout),
    ).toMatchObject({ action: "dispatch", launch: ["2"] });
    writeTree(root, { "src/1/value.txt": "good, edited\n" });
    const j = kbz(["next", "--scope", "api", "--slots", "2", "--json"], { cwd: root, env });
    expect([j.code, JSON.parse(j.stdout).attention]).toEqual([
      1,
      [{ leaf: "1", reason: "verification-changed-inputs-or-verifier" }],
    ]);
    const r = kbz(["next", "--scope", "api", "--slots", "2"], { cwd: root, env });
    // One stale receipt is a cascade of one (issue 30): its cause and the one refresh command.
    expect(r.stdout).toContain(
      "CASCADE src/1/value.txt changed: 1 receipt (leaf 1)\n  kbz check --scope api --stale\n",
    );
  });

  test("kbz status --scope lists a stale receipt through the same audit", async () => {
    const w = vo({ ".unlazy/api/gates/leaf-1.md": "OWNS: src/**\n\n" + GATES.replace("# Gates: value\n", "") });
    // status judges a root GATES.md together with the scope: this test is about the scope's receipt alone.
    fs.rmSync(path.join(w.root, "GATES.md"));
    expect(
      (await w.run("run", "--inputs", "src,tests", "--closed", "--approve", ".unlazy/api/gates/leaf-1.md")).code,
    ).toBe(0);
    let r = kbz(["status", "--scope", "api"], { cwd: w.root, env: w.env });
    expect(r.stdout).not.toContain("RECEIPT");
    expect(
      JSON.parse(kbz(["status", "--scope", "api", "--json"], { cwd: w.root, env: w.env }).stdout).receipts,
    ).toEqual([{ ledger: ".unlazy/api/gates/leaf-1.md", issue: null }]);
    writeTree(w.root, { "src/value.txt": "good \n" });
    r = kbz(["status", "--scope", "api"], { cwd: w.root, env: w.env });
    expect(r.stdout).toContain(
      "  RECEIPT     .unlazy/api/gates/leaf-1.md: verification-changed-inputs-or-verifier (kbz verify explain .unlazy/api/gates/leaf-1.md)\n",
    );
    expect(r.code).toBe(0);
  });
});
