// Issue 20.7: the Stop hook asks for the user's approval, never tells the agent to approve;
// manual gates are signed off by a person with kbz sign.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { ledger, reasonOf, stopHook } from "../../helpers/hook.ts";
import { hashTree, kbz, tempDir, writeTree } from "../../helpers/kbz.ts";

setDefaultTimeout(60_000);
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const repo = (files: Record<string, string>) => {
  const dir = tempDir("kbz-sign-");
  made.push(dir);
  writeTree(dir, files);
  return dir;
};
const MANUAL = "- [ ] M1: the copy was reviewed\n  EVIDENCE: pending\n";
const RUNNABLE = "- [ ] G1: prints\n  CHECK: printf X\n  EXPECT: X\n  EVIDENCE: pending\n";

describe("issue 20.7: the Stop hook asks the user to approve, and a person signs manual gates", () => {
  for (const via of ["binary", "node16"] as const) {
    test(`the Stop hook (${via}) asks the agent to have the user review and approve pending CHECKs, never to approve`, () => {
      const dir = repo({ "GATES.md": ledger("t", [{ id: "G1", state: "unmet" }]) });
      const reason = reasonOf(stopHook({ cwd: dir, session_id: "s", hook_event_name: "Stop" }, { via }));
      expect(reason).toContain("ask them to review and approve; do not approve them yourself");
      expect(reason).not.toContain("use kbz check --approve");
    });
  }

  test("kbz sign ticks a manual gate and writes its evidence in one write; a retry is a no-op", () => {
    const dir = repo({ "GATES.md": "# G\n\n" + MANUAL });
    const r = kbz(["sign", "GATES.md", "M1", "--evidence", "read by Ana on the staging build"], { cwd: dir });
    expect([r.code, r.stdout]).toEqual([0, "SIGNED GATES:M1 in GATES.md\n"]);
    expect(fs.readFileSync(path.join(dir, "GATES.md"), "utf8")).toBe(
      "# G\n\n- [x] M1: the copy was reviewed\n  EVIDENCE: read by Ana on the staging build\n",
    );
    expect(JSON.parse(kbz(["status", "--json"], { cwd: dir }).stdout).verdict).toBe("all-met");
    expect(
      kbz(["sign", "GATES.md", "GATES:M1", "--evidence", "read by Ana on the staging build"], { cwd: dir }).stdout,
    ).toBe("GATES:M1 was already signed with this evidence\n");
    expect(fs.readdirSync(dir).filter((n) => n !== ".unlazy")).toEqual(["GATES.md"]); // no temp file left beside it
  });

  test("kbz sign refuses runnable gates, unknown gates and blank or pending evidence, writing nothing", () => {
    const dir = repo({ "GATES.md": "# G\n\n" + RUNNABLE + "\n" + MANUAL });
    const before = hashTree(dir);
    const cases: [string[], RegExp][] = [
      [
        ["sign", "GATES.md", "G1", "--evidence", "looked fine"],
        /GATES:G1 has a CHECK and EXPECT: kbz check runs it; only manual gates are signed/,
      ],
      [
        ["sign", "GATES.md", "M9", "--evidence", "x"],
        /no gate GATES:M9 here; did you mean GATES:M1\? \(manual gates: GATES:M1; kbz status lists every gate\)/,
      ],
      [["sign", "GATES.md", "M1", "--evidence", " "], /evidence text is empty: say what you checked/],
      [["sign", "GATES.md", "M1", "--evidence", "pending"], /'pending' is not evidence/],
      [
        ["sign", "GATES.md", "M1", "--evidence", "a\u001b[31mb"],
        /evidence contains control, bidi or invisible characters/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = kbz(args, { cwd: dir });
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(hashTree(dir)).toBe(before);
  });
});
