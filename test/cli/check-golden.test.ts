// The golden gate-check transcript of unlazy 2.1 (the solo ledger, test/fixtures/solo), line for line, as kbz check --verbose prints it (the default is shorter),
// with this machine's directory in place of /repo/u/solo and kbz in place of gate-check.
// Deliberate difference (issue 27, issue 28 item 5): each oracle block also carries its signature
// ([SIG] here), the oracle files the approval binds, and --approve=<sig> in its NOT RUN hint.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { FIXTURES, fixtureCopy, hashTree } from "../helpers/kbz.ts";
import { approvalRecords, checkEnv, agentApprovalDir, agentEnv } from "../helpers/approvals.ts";
import { runCli } from "../helpers/cli.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const RUN = (dir: string, id: string) => `  RUN  GATES:${id} shell=/bin/sh cwd=${dir} PATH=/usr/bin:/bin`;
const oracle = (dir: string, id: string, check: string, expectText: string, last: string) => [
  `${last === NOT_RUN ? "APPROVAL REQUIRED" : "APPROVING"} GATES:${id} [SIG]`,
  `    CHECK: ${check}`,
  `    EXPECT: ${expectText}`,
  `    CWD: ${dir}`,
  "    SHELL: /bin/sh",
  "    PATH: /usr/bin:/bin",
  `    ORACLE FILES: ${check.replace(/^node /, "")}`,
  last,
];
const NOT_RUN = "    NOT RUN: inspect this oracle, then re-run with --approve=SIG";
const G1_PASS = [
  "  PASS GATES:G1: greeting script prints the marker",
  "       exit=0; EXPECT=matched; output=sha256=fdf0d752f2dd0d174373eaec450feec701fcb5cf2001b1f7a39dfb8b44ff0e02; bytes=12",
];
const G2_FAIL = [
  "  FAIL GATES:G2: failing check stays unmet",
  "       exit=3; EXPECT=not matched; output=boom: expected file missing",
];
const G3_PASS = [
  "  PASS GATES:G3: regex expectation matches a count",
  "       exit=0; EXPECT=matched; output=sha256=178b532b085e64d4dd60731fdceb7e1e2890073adc77ced6f028f9eaeaad0438; bytes=9",
];
const lines = (...parts: (string | string[])[]) => parts.flat().join("\n") + "\n";
const approvedLine = (store: string) => new RegExp(`^    APPROVED: ${store}/[0-9a-f]{64}\\.json$`);

/**
 * Each test builds its own state (a fresh copy and store, then the earlier steps of the
 * transcript it follows), so every one passes alone (`bun test -t NAME`) and in any order.
 */
async function transcript(steps: string[][] = []) {
  const dir = fixtureCopy("solo");
  const store = agentApprovalDir();
  const env = checkEnv(store);
  const run = async (...args: string[]) => {
    const r = await runCli(["check", "--verbose", ...args], { cwd: dir, env });
    return {
      ...r,
      stdout: r.stdout.replace(/ \[[0-9a-f]{12}\]$/gm, " [SIG]").replace(/--approve=[0-9a-f]{12}$/gm, "--approve=SIG"),
    };
  };
  for (const step of steps) await run(...step);
  return { dir, store, run };
}
const AFTER_APPROVE = [["--approve"]];

describe("kbz check on the golden solo ledger", () => {
  test("--status never executes: UNMET lines, the file count, then the verdict", async () => {
    const { dir, store, run } = await transcript();
    const before = hashTree(dir);
    const r = await run("--status");
    expect(r.stdout).toBe(
      lines(
        "  UNMET GATES:G1 (unchecked): greeting script prints the marker",
        "  UNMET GATES:G2 (unchecked): failing check stays unmet",
        "  UNMET GATES:G3 (unchecked): regex expectation matches a count",
        "  UNMET GATES:G4 (unchecked): copy reviewed by a human",
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 4)",
        "  GATES:G5",
        "UNMET: 4 (met: 0, abandoned: 1)",
        "  GATES:G1, GATES:G2, GATES:G3, GATES:G4",
      ),
    );
    expect(r.code).toBe(1);
    expect(hashTree(dir)).toBe(before);
    expect(approvalRecords(store)).toEqual([]);
  });

  test("a default run without approval prints each oracle, runs nothing and exits 1", async () => {
    const { dir, run } = await transcript();
    const before = hashTree(dir);
    const r = await run();
    expect(r.stdout).toBe(
      lines(
        oracle(dir, "G1", "node ok.mjs", "GREETING-OK", NOT_RUN),
        oracle(dir, "G2", "node fail.mjs", "NEVER-PRINTED", NOT_RUN),
        oracle(dir, "G3", "node count.mjs", "/^count=\\d+$/m", NOT_RUN),
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 0, unmet: 4)",
        "  GATES:G5",
        "UNMET: 4 (met: 0, abandoned: 1)",
        "  GATES:G1, GATES:G2, GATES:G3, GATES:G4",
      ),
    );
    expect(r.code).toBe(1);
    expect(hashTree(dir)).toBe(before);
  });

  test("--approve records each oracle, runs them, and writes the golden ledger", async () => {
    const { dir, store, run } = await transcript();
    const r = await run("--approve");
    const out = r.stdout.split("\n");
    const approved = [7, 15, 23].map((i) => out[i]!);
    for (const a of approved) expect(a).toMatch(approvedLine(store));
    expect(new Set(approved).size).toBe(3);
    const expected = lines(
      oracle(dir, "G1", "node ok.mjs", "GREETING-OK", approved[0]!),
      oracle(dir, "G2", "node fail.mjs", "NEVER-PRINTED", approved[1]!),
      oracle(dir, "G3", "node count.mjs", "/^count=\\d+$/m", approved[2]!),
      RUN(dir, "G1"),
      RUN(dir, "G2"),
      RUN(dir, "G3"),
      G1_PASS,
      G2_FAIL,
      G3_PASS,
      "GATES.md: 5 gates",
      "HANDOFF REQUIRED: 1 abandoned (met: 2, unmet: 2)",
      "  GATES:G5",
      "UNMET: 2 (met: 2, abandoned: 1)",
      "  GATES:G2, GATES:G4",
    );
    expect(r.stdout).toBe(expected);
    expect(r.code).toBe(1);
    const golden = fs
      .readFileSync(path.join(FIXTURES, "solo-after", "GATES.md"), "utf8")
      .replaceAll("cwd=/repo/u/solo", `cwd=${dir}`);
    expect(fs.readFileSync(path.join(dir, "GATES.md"), "utf8")).toBe(golden);
    for (const a of approved) expect(fs.statSync(a.slice("    APPROVED: ".length)).mode & 0o777).toBe(0o600);
  });

  test("a second default run executes only the unmet approved gate", async () => {
    const { dir, run } = await transcript(AFTER_APPROVE);
    const r = await run();
    expect(r.stdout).toBe(
      lines(
        RUN(dir, "G2"),
        G2_FAIL,
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 2, unmet: 2)",
        "  GATES:G5",
        "UNMET: 2 (met: 2, abandoned: 1)",
        "  GATES:G2, GATES:G4",
      ),
    );
    expect(r.code).toBe(1);
  });

  test("--status after the run lists only what is still unmet", async () => {
    const { run } = await transcript([...AFTER_APPROVE, []]);
    const r = await run("--status");
    expect(r.stdout).toBe(
      lines(
        "  UNMET GATES:G2 (unchecked): failing check stays unmet",
        "  UNMET GATES:G4 (unchecked): copy reviewed by a human",
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 2, unmet: 2)",
        "  GATES:G5",
        "UNMET: 2 (met: 2, abandoned: 1)",
        "  GATES:G2, GATES:G4",
      ),
    );
  });

  test("--reverify re-runs every runnable gate and reports the reran counts", async () => {
    const { dir, run } = await transcript(AFTER_APPROVE);
    const r = await run("--reverify");
    expect(r.stdout).toBe(
      lines(
        RUN(dir, "G1"),
        RUN(dir, "G2"),
        RUN(dir, "G3"),
        G1_PASS,
        G2_FAIL,
        G3_PASS,
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 2, unmet: 2, reran: 3, previously met reverified: 2)",
        "  GATES:G5",
        "UNMET: 2 (met: 2, abandoned: 1, reran: 3, previously met reverified: 2)",
        "  GATES:G2, GATES:G4",
      ),
    );
    expect(r.code).toBe(1);
  });

  test("after fixing G2's CHECK and hand-checking G4, --approve leaves only the handoff", async () => {
    const { dir, store, run } = await transcript(AFTER_APPROVE);
    const file = path.join(dir, "GATES.md");
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, "utf8")
        .replace("CHECK: node fail.mjs\n  EXPECT: NEVER-PRINTED", "CHECK: node ok.mjs\n  EXPECT: GREETING-OK")
        .replace(
          "- [ ] G4: copy reviewed by a human\n  EVIDENCE: pending",
          "- [x] G4: copy reviewed by a human\n  EVIDENCE: reviewed by Ann",
        ),
    );
    const r = await run("--approve");
    const approved = r.stdout.split("\n")[7]!;
    expect(approved).toMatch(approvedLine(store));
    expect(r.stdout).toBe(
      lines(
        oracle(dir, "G2", "node ok.mjs", "GREETING-OK", approved),
        RUN(dir, "G2"),
        "  PASS GATES:G2: failing check stays unmet",
        "       exit=0; EXPECT=matched; output=sha256=fdf0d752f2dd0d174373eaec450feec701fcb5cf2001b1f7a39dfb8b44ff0e02; bytes=12",
        "GATES.md: 5 gates",
        "HANDOFF REQUIRED: 1 abandoned (met: 4)",
        "  GATES:G5",
      ),
    );
    expect(r.code).toBe(1);
    expect((await run("--status")).stdout).toBe(
      lines("GATES.md: 5 gates", "HANDOFF REQUIRED: 1 abandoned (met: 4)", "  GATES:G5"),
    );
  });
});

describe("kbz check on an all-met ledger", () => {
  test("--approve then --status give ALL MET and exit 0; a definition edit makes it stale", async () => {
    const dir = fixtureCopy("solo");
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      "# Gates: all met\n\n- [ ] G1: greeting\n  CHECK: node ok.mjs\n  EXPECT: GREETING-OK\n  EVIDENCE: pending\n\n- [x] G2: copy reviewed\n  EVIDENCE: reviewed by Ann\n",
    );
    const env = agentEnv();
    const r = await runCli(["check", "--verbose", "--approve"], { cwd: dir, env });
    expect(r.stdout.split("\n").slice(8)).toEqual([
      // after the oracle block (7 lines and ORACLE FILES)
      RUN(dir, "G1"),
      "  PASS GATES:G1: greeting",
      G1_PASS[1]!,
      "GATES.md: 2 gates",
      "ALL MET (2 met)",
      "",
    ]);
    expect(r.code).toBe(0);
    expect((await runCli(["check", "--status"], { cwd: dir, env })).stdout).toBe(
      lines("GATES.md: 2 gates", "ALL MET (2 met)"),
    );
    const file = path.join(dir, "GATES.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("CHECK: node ok.mjs", "CHECK: node  ok.mjs"));
    const stale = await runCli(["check", "--status"], { cwd: dir, env });
    expect(stale.stdout).toBe(
      lines(
        "  UNMET GATES:G1 (checked but automatic evidence is stale or unbound): greeting",
        "GATES.md: 2 gates",
        "UNMET: 1 (met: 1)",
        "  GATES:G1",
      ),
    );
    expect(stale.code).toBe(1);
  });
});
