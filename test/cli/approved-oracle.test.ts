// Issue 39 part B, "enforce: judge the work against the approved oracle": when an agent edits a
// file of an approved oracle, `kbz check` runs the CHECK in a view of the root where the oracle
// holds its approved bytes (kept in the approval store at approval), records that verdict, and
// reports the edit as a proposal (`ORACLE EDITED …`) a person reviews with `kbz approve`. The
// agent: CLAUDECODE=1, no terminal. The person: `script -qec`, no agent marker.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, personRun, privateApprovalDir } from "../helpers/approvals.ts";
import { decision, stopHook } from "../helpers/hook.ts";
import { bwrapUsable } from "../../src/io/run/sandbox.ts";
import { viewUsable } from "../../src/io/run/view.ts";

setDefaultTimeout(120_000);

const CHECKER = '. ./app.sh\n[ "$(add 2 3)" = 5 ] && echo ADD OK || { echo ADD WRONG; exit 1; }\n';
const RIGHT = "add() { echo $(( $1 + $2 )); }\n";
const WRONG = "add() { echo $(( $1 * $2 )); }\n";

function workspace() {
  const dir = tempDir();
  writeTree(dir, {
    "GATES.md": "# Gates\n\n- [ ] G1: add works\n  CHECK: sh test/check.sh\n  EXPECT: ADD OK\n  EVIDENCE: pending\n",
    "test/check.sh": CHECKER,
    "app.sh": RIGHT,
  });
  const env = checkEnv(privateApprovalDir());
  const agent = (args: string[]) => kbz(args, { cwd: dir, env: { ...env, CLAUDECODE: "1" } });
  const person = (args: string[], input: string) => personRun(BIN, args, { cwd: dir, env, input });
  const write = (f: string, text: string) => fs.writeFileSync(path.join(dir, f), text);
  const hook = () =>
    stopHook(
      { cwd: dir, session_id: `s-${path.basename(dir)}`, hook_event_name: "Stop" },
      { cwd: dir, env: { ...env, CLAUDECODE: "1" } },
    );
  return { dir, env, agent, person, write, hook };
}

const view = viewUsable();
const viewHere = view.ok;
if (!view.ok) console.log(`skip: the approved-oracle view tests (no view of the root can be built here: ${view.why})`);

describe("an agent edits the approved oracle", () => {
  test.skipIf(!viewHere)(
    "an agent changes a test's expected value so its wrong work passes: kbz check reports FAIL judged against the approved oracle and an ORACLE EDITED proposal; the person approves the edit in a terminal and the re-run reports the edited oracle's verdict",
    () => {
      const w = workspace();
      expect(w.person(["approve"], "y\n").output).toContain("APPROVED GATES:G1");
      expect(w.agent(["check"]).code).toBe(0);
      // The agent's wrong work, and the test bent to pass it.
      w.write("app.sh", WRONG);
      w.write("test/check.sh", CHECKER.replace("= 5", "= 6"));
      const checked = w.agent(["check"]);
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain(
        "ORACLE EDITED test/check.sh: judged against the approved version; a person reviews the edit with kbz approve",
      );
      expect(checked.stdout).toContain("FAIL GATES:G1: add works (judged against the approved oracle)");
      expect(checked.stdout).toContain("ADD WRONG");
      expect(checked.stdout).not.toContain("APPROVAL REQUIRED");
      // The live tree is untouched: the view put the approved bytes back, not the repository.
      expect(fs.readFileSync(path.join(w.dir, "test/check.sh"), "utf8")).toContain("= 6");
      const status = w.agent(["status"]);
      expect(status.code).toBe(1);
      expect(status.stdout).toContain("judged against the approved oracle");
      expect(decision(w.hook())?.decision).toBe("block");
      // The person reviews the edit (the diff against the approved bytes) and approves it.
      const review = w.person(["approve"], "y\n");
      expect(review.output).toContain('-[ "$(add 2 3)" = 5 ]');
      expect(review.output).toContain('+[ "$(add 2 3)" = 6 ]');
      expect(review.output).toContain("APPROVED GATES:G1");
      const rerun = w.agent(["check"]);
      expect(rerun.stdout).not.toContain("ORACLE EDITED");
      expect(rerun.stdout).toContain("ALL MET");
      expect(rerun.code).toBe(0);
    },
  );

  test.skipIf(!viewHere)(
    "an honest agent that touches the approved test and does the work passes against the approved oracle: status, hook and check agree it is met, and the edit stays a proposal",
    () => {
      const w = workspace();
      w.write("app.sh", WRONG);
      expect(w.person(["approve"], "y\n").code).toBe(0);
      expect(w.agent(["check"]).code).toBe(1);
      w.write("test/check.sh", `# a comment the agent added\n${CHECKER}`);
      w.write("app.sh", RIGHT);
      const checked = w.agent(["check"]);
      expect(checked.stdout).toContain("ORACLE EDITED test/check.sh");
      expect(checked.stdout).toContain("ALL MET");
      expect(checked.code).toBe(0);
      expect(w.agent(["status"]).code).toBe(0);
      expect(decision(w.hook())).toBeNull();
      // Once the person approves the edit, the pass judged against the old approval no longer counts: it runs again.
      expect(w.person(["approve"], "y\n").output).toContain("APPROVED GATES:G1");
      expect(w.agent(["status"]).code).toBe(1);
      expect(w.agent(["check"]).code).toBe(0);
    },
  );

  test.skipIf(!viewHere)("an oracle file that did not exist at approval is absent in the approved-oracle view", () => {
    const w = workspace();
    fs.writeFileSync(
      path.join(w.dir, "GATES.md"),
      "# Gates\n\n- [ ] G1: add works\n  CHECK: sh test/check.sh\n  EXPECT: ADD OK\n  ORACLE: test/*.sh\n  EVIDENCE: pending\n",
    );
    fs.writeFileSync(
      path.join(w.dir, "test/check.sh"),
      `[ -e test/extra.sh ] && { echo EXTRA SEEN; exit 1; }\n${CHECKER}`,
    );
    expect(w.person(["approve"], "y\n").code).toBe(0);
    w.write("test/extra.sh", "echo planted\n");
    const checked = w.agent(["check"]);
    expect(checked.stdout).toContain("ORACLE EDITED test/extra.sh");
    expect(checked.stdout).toContain("ALL MET");
    expect(fs.existsSync(path.join(w.dir, "test/extra.sh"))).toBe(true);
  });
});

describe("the approved bytes are kept", () => {
  test("an approval whose oracle bytes pass the kept cap is a named refusal, exit 2, and nothing is written", () => {
    const w = workspace();
    const store = w.env.UNLAZY_APPROVAL_DIR!;
    const before = fs.readdirSync(store);
    const r = personRun(BIN, ["approve"], { cwd: w.dir, env: { ...w.env, KBZ_KEPT_CAP: "10" }, input: "y\n" });
    expect(r.output).toContain("the kept bytes");
    expect(r.output).toContain("cap of 10 bytes");
    expect(r.code).toBe(2);
    expect(fs.readdirSync(store).filter((n) => n.endsWith(".json"))).toEqual(before.filter((n) => n.endsWith(".json")));
    expect(
      fs.existsSync(path.join(store, "kbz", "kept")) ? fs.readdirSync(path.join(store, "kbz", "kept")) : [],
    ).toEqual([]);
  });

  test("the approval keeps each oracle file's bytes, content-addressed, in the approval store", () => {
    const w = workspace();
    expect(w.person(["approve"], "y\n").code).toBe(0);
    const kept = fs.readdirSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "kept"));
    expect(kept.length).toBe(1);
    expect(fs.readFileSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "kept", kept[0]!), "utf8")).toBe(CHECKER);
  });
});

describe("kbz approvals prune", () => {
  test("removes the kept bytes only the pruned approvals named; the bytes a live approval keeps stay", () => {
    const w = workspace();
    const kept = () => fs.readdirSync(path.join(w.env.UNLAZY_APPROVAL_DIR!, "kbz", "kept")).length;
    expect(w.person(["approve"], "y").code).toBe(0);
    // A new CHECK and a new checker: the old approval is obsolete, its bytes no longer needed.
    fs.writeFileSync(
      path.join(w.dir, "GATES.md"),
      fs
        .readFileSync(path.join(w.dir, "GATES.md"), "utf8")
        .replace("CHECK: sh test/check.sh", "CHECK: sh ./test/check.sh"),
    );
    w.write("test/check.sh", `# v2\n${CHECKER}`);
    expect(w.person(["approve"], "y").code).toBe(0);
    expect(kept()).toBe(2);
    const pruned = w.person(["approvals", "prune"], "");
    expect(pruned.output).toContain("removed 1 kept oracle file(s) no approval names any more");
    expect(kept()).toBe(1);
    expect(w.agent(["check"]).code).toBe(0);
  });
});

describe("where no view can be built", () => {
  test.skipIf(viewHere || bwrapUsable().ok)("kbz check keeps APPROVAL REQUIRED and says why", () => {
    const w = workspace();
    expect(w.person(["approve"], "y\n").code).toBe(0);
    w.write("test/check.sh", CHECKER.replace("= 5", "= 6"));
    const checked = w.agent(["check"]);
    expect(checked.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    expect(checked.stdout).toContain("not judged against the approved oracle:");
  });
});
