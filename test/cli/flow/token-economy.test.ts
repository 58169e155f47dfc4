// Issue 20.10: short text by default, details on request; the root ledger in one run; verify run's
// default inputs.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { flowRepo, type FlowRepo } from "../../helpers/flow.ts";

setDefaultTimeout(120_000);
const repos: FlowRepo[] = [];
afterAll(() => repos.forEach((r) => r.cleanup()));
const repo = () => {
  const r = flowRepo();
  repos.push(r);
  return r;
};
const gates = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `- [ ] G${i + 1}: gate ${i + 1}\n  CHECK: printf G${i + 1}_OK\n  EXPECT: G${i + 1}_OK\n  EVIDENCE: pending\n`,
  ).join("\n");

describe("issue 20.10: token economy", () => {
  test("long answers: check prints the oracles it needs approved (PATH once, summarised), the failures and one verdict line; each pass with --verbose", () => {
    const r = repo();
    r.write("GATES.md", gates(3));
    const first = r.run(["check"]);
    // Oracles waiting for the person: one line each and the PERSON line (issue 43); the whole oracle
    // is the person's review (kbz approve) or --verbose, and PATH goes with a whole oracle only.
    expect(first.stdout).toMatch(/^APPROVAL REQUIRED GATES:G1 \[[0-9a-f]{12}\]\nAPPROVAL REQUIRED GATES:G2 /);
    expect(first.stdout).toEndWith("PERSON: 3 oracles to approve; in their terminal: kbz approve GATES.md\n");
    expect(first.stdout).not.toContain("PATH");
    const approved = r.run(["check", "--approve"]);
    // An approval prints the oracle it approves (issue 28 item 5), then the verdict (no line per pass).
    const block = (n: number) =>
      `APPROVING GATES:G${n} \\[[0-9a-f]{12}\\]\\n    CHECK: printf G${n}_OK\\n    EXPECT: G${n}_OK\\n    CWD: [^\\n]+\\n    SHELL: [^\\n]+\\n  APPROVED GATES:G${n}\\n`;
    expect(approved.stdout).toMatch(
      new RegExp(
        `^PATH: 3 entries \\(sha256 [0-9a-f]{12}; --verbose prints it\\)\\n${block(1)}${block(2)}${block(3)}ALL MET \\(3 met\\)\\n$`,
      ),
    );
    const again = r.run(["check", "--reverify"]);
    expect(again.stdout).toMatch(/^ALL MET \(3 met, reran: 3[^\n]*\)\n$/);
    // A failure prints its two lines before the verdict, and nothing about the gates that passed.
    r.write("GATES.md", gates(3).replace("CHECK: printf G2_OK", "CHECK: printf G2_OK; exit 3"));
    r.run(["check", "--approve"]);
    const failed = r.run(["check", "--reverify"]);
    expect(failed.stdout).toMatch(
      /^  FAIL GATES:G2: gate 2\n       exit=3; EXPECT=matched; output=[^\n]*\nUNMET: 1 \(met: 2[^\n]*\n  GATES:G2\n$/,
    );
    const verbose = r.run(["check", "--reverify", "--verbose"]);
    expect(verbose.stdout).toContain(`  RUN  GATES:G1 shell=/bin/sh cwd=${r.dir} PATH=${r.env.PATH}`);
    expect(verbose.stdout).toContain("       exit=0; EXPECT=matched; output=sha256=");
  });

  test("the root ledger is evaluated in one run: gates asking kbz (N1, S_STRUCTURE) see this run's results", () => {
    const r = repo();
    r.run(["init", "--scope", "S"]);
    r.run(["plan", "add", "1", "--owns", "src/1/**"]);
    r.write(".unlazy/S/gates/leaf-1.md", "# l\nOWNS: src/1/**\n\n" + gates(1));
    r.run(["sign", ".unlazy/S/GATES.md", "N2", "--evidence", "report read by the user"]);
    // Leaf 1's gate and the root N1 (kbz check --status over the leaves) in the same run.
    const one = r.run(["check", "--scope", "S", "--approve"]);
    expect([one.code, one.stdout.trimEnd().split("\n").pop()]).toEqual([0, "ALL MET (3 met) [scope S]"]);
  });

  test("verify run defaults its inputs to the leaf's OWNS and ACCESS reads", () => {
    const r = repo();
    r.run(["init", "--scope", "S"]);
    r.run(["plan", "add", "1", "--owns", "src/1/**", "--reads", "lib/**"]);
    r.write(".unlazy/S/gates/leaf-1.md", "# l\nOWNS: src/1/**\n\n" + gates(1));
    r.write("src/1/a.txt", "a\n");
    r.write("lib/b.txt", "b\n");
    const j = JSON.parse(
      r.run(["verify", "run", "--closed", "--approve", "--json", ".unlazy/S/gates/leaf-1.md"]).stdout,
    );
    expect(j.policy).toEqual({ inputs: ["lib", "src/1"], env: [], closed: true });
    r.write("lib/b.txt", "changed\n");
    expect(r.run(["verify", "audit", ".unlazy/S/gates/leaf-1.md"]).code).toBe(1);
  });
});
