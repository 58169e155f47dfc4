// Issue 39 part B (and issue 43's "one run"): `kbz approve` with no argument covers everything
// that waits for the person — the solo ledgers, every scope, the probes `kbz check --probe` asked
// for (each with what it hides) and the manual gates not signed yet — and one run of it leaves
// nothing pending. Issue 44 item 6: it takes single keys, no Enter. The person: `script -qec`, no
// agent marker; the agent: CLAUDECODE=1, no terminal.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, FIXTURES, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, personRun, privateApprovalDir } from "../helpers/approvals.ts";
import { bwrapUsable } from "../../src/io/run/sandbox.ts";
import { viewUsable } from "../../src/io/run/view.ts";

setDefaultTimeout(120_000);

const CHECKER = '. ./app.sh\n[ "$(add 2 3)" = 5 ] && echo ADD OK || { echo ADD WRONG; exit 1; }\n';

/** A solo GATES.md (a runnable gate with INPUTS, a manual gate) beside the scope `web` (a root gate lint flags). */
function repository() {
  const dir = tempDir();
  fs.cpSync(path.join(FIXTURES, "dash-scope", ".unlazy"), path.join(dir, ".unlazy"), { recursive: true });
  for (const leaf of ["leaf-1.md", "leaf-2.md"]) fs.rmSync(path.join(dir, ".unlazy", "web", "gates", leaf));
  writeTree(dir, {
    "GATES.md":
      "# Gates\n\n- [ ] G1: add works\n  CHECK: sh test/check.sh\n  EXPECT: ADD OK\n  INPUTS: app.sh\n  EVIDENCE: pending\n\n- [ ] M1: the README reads well\n",
    "test/check.sh": CHECKER,
    "app.sh": "add() { echo $(( $1 + $2 )); }\n",
  });
  const env = checkEnv(privateApprovalDir());
  const agent = (args: string[]) => kbz(args, { cwd: dir, env: { ...env, CLAUDECODE: "1" } });
  const person = (args: string[], input: string) => personRun(BIN, args, { cwd: dir, env, input });
  return { dir, env, agent, person };
}

const canProbe = bwrapUsable().ok && viewUsable().ok;
if (!canProbe)
  console.log("skip: the approve-everything run with a probe (bubblewrap or an overlay view is not available here)");

describe("kbz approve with no argument: everything that waits for the person, in one run", () => {
  test.skipIf(!canProbe)(
    "kbz approve in a repository with a solo ledger, a scope and a pending probe leaves nothing pending after one run, and shows lint findings and a diff",
    () => {
      const r = repository();
      // The first review: both oracles (the solo gate and the scope's), single keys; the manual gate waits.
      const first = r.person(["approve"], "an");
      expect(first.output).toContain("APPROVED GATES:G1");
      expect(first.output).toContain("APPROVED .unlazy/web/GATES:R1");
      expect(first.output).toContain("LINT ERROR tautological-check");
      expect(first.output).toContain("WORK:   app.sh (INPUTS)");
      expect(first.output).toContain("SIGN GATES:M1");
      expect(first.code).toBe(1);
      // The agent: the gate passes, it asks for a probe, and it edits the approved test.
      expect(r.agent(["check", "GATES.md"]).stdout).toContain("UNMET: 1 (met: 1)");
      expect(r.agent(["check", "--probe", "GATES.md"]).stdout).toContain("APPROVAL REQUIRED GATES:G1 (probe");
      fs.writeFileSync(path.join(r.dir, "test/check.sh"), CHECKER.replace("= 5", "= 6"));
      expect(r.agent(["check", "GATES.md"]).stdout).toContain("ORACLE EDITED test/check.sh");
      // One run of kbz approve: the edit (with its diff), the probe (with what it hides), the sign-off.
      const review = r.person(["approve"], "yys" + "I read the README: it reads well\n");
      expect(review.output).toContain('-[ "$(add 2 3)" = 5 ] && echo ADD OK');
      expect(review.output).toContain('+[ "$(add 2 3)" = 6 ] && echo ADD OK');
      expect(review.output).toContain("PROBE GATES:G1: add works");
      expect(review.output).toContain("HIDES (INPUTS, 1): app.sh");
      expect(review.output).toContain("APPROVED probe of GATES:G1");
      expect(review.output).toContain("SIGNED GATES:M1");
      expect(review.code).toBe(0);
      expect(fs.readFileSync(path.join(r.dir, "GATES.md"), "utf8")).toContain(
        "- [x] M1: the README reads well\n  EVIDENCE: I read the README: it reads well",
      );
      // Nothing is left: the next run has nothing to show.
      const again = r.person(["approve"], "q");
      expect(again.output).toContain("nothing waits for you");
      expect(again.code).toBe(0);
    },
  );

  test("kbz approve takes single keys: y/n/a/q answer without Enter", () => {
    const r = repository();
    const run = r.person(["approve"], "ynn");
    expect(run.output).toContain("APPROVED GATES:G1");
    expect(run.output).toContain("not approved .unlazy/web/GATES:R1");
    expect(run.output).toContain("not signed GATES:M1");
    expect(run.code).toBe(1);
  });

  test("kbz approve --scope S still reviews only that scope, in one answer", () => {
    const r = repository();
    const run = r.person(["approve", "--scope", "web"], "y");
    expect(run.output).toContain("APPROVED GATES:R1");
    expect(run.output).not.toContain("GATES:G1");
    expect(run.output).not.toContain("GATES:M1");
  });
});
