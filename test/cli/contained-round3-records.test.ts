// Issue 42 item 5: a failed run writes nothing that reads as a pass. A person's (here: the agent
// policy's) `kbz check --approve` whose CHECK fails (exit 1) used to leave the evidence line
// `exit=0; EXPECT=matched` for the gate in `.kbz/inputs/<hash>.json`; pasted into the ledger with
// `[x]` it gave ALL MET. Every file kbz writes (the repository, the approval store, the run cache
// under HOME) is grepped after the failed run. Fails on 571b8e3.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentApprovalDir, agentEnv } from "../helpers/approvals.ts";

setDefaultTimeout(60_000);

/** Every regular file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(d, n);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}

describe("issue 42 item 5: a failed run writes nothing that reads as a pass", () => {
  for (const [name, check] of [
    ["exit 1", "echo ok; exit 1"],
    ["EXPECT not matched", "echo nope"],
  ] as const) {
    test(`item 5: check --approve whose CHECK fails (${name}) leaves no EXPECT=matched in any file kbz wrote`, () => {
      const dir = tempDir();
      const ledger = `# Gates: failed\n\n- [ ] G1: fails\n  CHECK: ${check}\n  EXPECT: ok\n  INPUTS: data.txt\n  EVIDENCE: pending\n`;
      writeTree(dir, { "GATES.md": ledger, "data.txt": "x\n" });
      const store = agentApprovalDir();
      const env = agentEnv({ HOME: path.join(path.dirname(store), "home") }, store);
      fs.mkdirSync(env.HOME!, { recursive: true });
      const r = kbz(["check", "--approve"], { cwd: dir, env });
      expect(r.code).toBe(1);
      // kbz did write records of this run (the failure record at least): the grep has something to read.
      expect(fs.existsSync(path.join(dir, ".kbz"))).toBe(true);
      const written = [dir, path.dirname(store)].flatMap((d) => filesContaining(d, "EXPECT=matched"));
      expect(written).toEqual([]);
      // The gate reads unmet.
      const status = kbz(["status"], { cwd: dir, env });
      expect(status.code).toBe(1);
    });
  }
});

describe("issue 42 item 7: names given to verify run --env reach the CHECK and are bound", () => {
  const ledger = `# Gates: tax\n\n- [ ] G1: the tax region is eu\n  CHECK: case "$TAX_REGION" in eu*) echo region-ok;; esac\n  EXPECT: region-ok\n  EVIDENCE: pending\n`;

  test("item 7: TAX_REGION=eu kbz verify run --env TAX_REGION passes where the CHECK needs it, as verify-once did", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": ledger, "src/tax.js": "x\n" });
    const env = agentEnv({ TAX_REGION: "eu" });
    const r = kbz(["verify", "run", "--inputs", "src", "--env", "TAX_REGION", "--closed", "--approve", "GATES.md"], {
      cwd: dir,
      env,
    });
    expect(r.stdout + r.stderr).toContain("ACCEPTED");
    expect(r.code).toBe(0);
    // Bound: the receipt reads stale once the value changes.
    expect(kbz(["verify", "audit", "GATES.md"], { cwd: dir, env }).code).toBe(0);
    expect(kbz(["verify", "audit", "GATES.md"], { cwd: dir, env: { ...env, TAX_REGION: "us" } }).code).toBe(1);
  });

  test("item 7: the approval binds the value of an --env name: another value is a new oracle that needs approving", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": ledger, "src/tax.js": "x\n" });
    const env = agentEnv({ TAX_REGION: "eu" });
    expect(
      kbz(["verify", "run", "--inputs", "src", "--env", "TAX_REGION", "--approve", "GATES.md"], { cwd: dir, env }).code,
    ).toBe(0);
    // Same oracle, same value: runs without a new approval.
    expect(kbz(["verify", "run", "--inputs", "src", "--env", "TAX_REGION", "GATES.md"], { cwd: dir, env }).code).toBe(
      0,
    );
    // Another value: the CHECK does not run under the old approval.
    const other = kbz(["verify", "run", "--inputs", "src", "--env", "TAX_REGION", "GATES.md"], {
      cwd: dir,
      env: { ...env, TAX_REGION: "eu2" },
    });
    expect(other.code).toBe(1);
    expect(other.stdout + other.stderr).toMatch(/approv/i);
    expect(other.stdout + other.stderr).not.toMatch(/RUN\s+G1/);
  });
});

describe("issue 42 item 6: a receipt depends on at least what its gates depend on", () => {
  const gates =
    "- [ ] G1: the stats are right\n  CHECK: grep -q good fixtures/case.txt && sh check.sh\n  EXPECT: ok\n  INPUTS: fixtures/case.txt\n  EVIDENCE: pending\n";
  const setup = () => {
    const dir = tempDir();
    writeTree(dir, {
      "GATES.md": `# Gates: stats\n\n${gates}`,
      "src/stats.js": "exports.mean = 1;\n",
      "src/parse.js": "exports.parse = 1;\n",
      "fixtures/case.txt": "good\n",
      "check.sh": "echo ok\n",
    });
    const env = agentEnv();
    const run = (args: string[]) => kbz(args, { cwd: dir, env });
    const accepted = run([
      "verify",
      "run",
      "--inputs",
      "src/stats.js,src/parse.js",
      "--closed",
      "--approve",
      "GATES.md",
    ]);
    expect(accepted.stdout).toContain("ACCEPTED");
    expect(run(["verify", "audit", "GATES.md"]).code).toBe(0);
    return { dir, run };
  };

  test("item 6: a fixture the gate lists in INPUTS changes so the gate fails: status says STALE and so does the receipt; verify explain names the file", () => {
    const { dir, run } = setup();
    fs.writeFileSync(path.join(dir, "fixtures/case.txt"), "bad\n");
    expect(run(["status"]).stdout).toContain("STALE");
    const audit = run(["verify", "audit", "GATES.md"]);
    expect(audit.stdout).toContain("STALE_EVIDENCE");
    expect(audit.code).toBe(1);
    const explain = run(["verify", "explain", "GATES.md"]);
    expect(explain.stdout).toContain("fixtures/case.txt");
    // The next run is not a reuse: it checks again (and the broken gate fails).
    const again = run(["verify", "run", "--inputs", "src/stats.js,src/parse.js", "--closed", "GATES.md"]);
    expect(again.stdout + again.stderr).not.toContain("CURRENT_EVIDENCE");
    expect(again.code).toBe(1);
  });

  test("item 6: a file of the gate's oracle (the script its CHECK runs) changes: the receipt is stale and verify explain names it", () => {
    const { dir, run } = setup();
    fs.writeFileSync(path.join(dir, "check.sh"), "echo ok # edited\n");
    expect(run(["verify", "audit", "GATES.md"]).code).toBe(1);
    expect(run(["verify", "explain", "GATES.md"]).stdout).toContain("check.sh");
  });
});
