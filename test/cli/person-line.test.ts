// Issue 43: wherever an agent's verb ends needing the person, it prints one PERSON line with what is
// pending and the commands they run; an edited oracle (judged against the approved one) is pending too.
import { afterEach, describe, expect, test } from "bun:test";
import { flowRepo, type FlowRepo } from "../helpers/flow.ts";
import { setApprovalPolicy } from "../helpers/approvals.ts";

let repo: FlowRepo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

describe("the PERSON line", () => {
  test("an oracle edited after its approval (ORACLE EDITED) is named as pending for the person, in check and advance", () => {
    const r = (repo = flowRepo("kbz-person-line-"));
    expect(r.run(["init", "--scope", "S"]).code).toBe(0);
    expect(r.run(["plan", "add", "--scope", "S", "1", "--owns", "src/1/**"]).code).toBe(0);
    r.write(
      ".unlazy/S/gates/leaf-1.md",
      "# Gates: leaf 1\nOWNS: src/1/**\n\n- [ ] G1: done\n  CHECK: sh test/check.sh\n  EXPECT: LEAF_1_OK\n  EVIDENCE: pending\n",
    );
    r.write("test/check.sh", "test -f src/1/done.txt && printf LEAF_1_OK\n");
    r.write("src/1/done.txt", "1\n");
    expect(r.run(["check", "--scope", "S", "--approve"]).code).toBe(1);
    setApprovalPolicy(r.env.UNLAZY_APPROVAL_DIR!, "person");
    r.write("test/check.sh", "test -f src/1/done.txt && printf LEAF_1_OK # reworded\n");
    const x = r.run(["check", "--scope", "S", "--reverify"]);
    expect(x.stdout).toContain("ORACLE EDITED test/check.sh");
    expect(x.stdout.trimEnd().split("\n").pop()).toBe(
      'PERSON: 1 oracle to approve, 1 sign-off (GATES:N2); in their terminal: kbz approve --scope S; kbz sign .unlazy/S/GATES.md N2 --evidence "..."',
    );
  });
});
