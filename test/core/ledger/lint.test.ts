import { describe, expect, test } from "bun:test";
import { lintLedger } from "../../../src/core/ledger/lint.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";

const rules = (text: string) => lintLedger(parseLedger(text, "GATES")).map((f) => `${f.gate ?? "-"}:${f.rule}`);
const runnable = (id: string, check: string, expect: string, title = "importer accepts the fixture") =>
  `- [ ] ${id}: ${title}\n  CHECK: ${check}\n  EXPECT: ${expect}\n`;

describe("lint rules", () => {
  test("a whole-command echo/printf/true/:/exit 0 is a fixed-output CHECK (an error: the gate cannot fail)", () => {
    for (const cmd of ["echo ok", "printf 'VERIFY_OK'", "true", ":", "exit 0", "ECHO done", "echo"]) {
      expect(rules(runnable("G1", cmd, "MARKER_X"))).toContain("G1:tautological-check");
    }
  });

  test("chained commands are not fixed-output", () => {
    expect(rules(runnable("G1", "echo starting && node scripts/verify.mjs", "VERIFY_OK"))).toEqual([]);
    expect(rules(runnable("G1", "echo x | grep x", "MARKER_X"))).toEqual([]);
    expect(rules(runnable("G1", "echo a; node v.mjs", "MARKER_X"))).toEqual([]);
  });

  test("EXPECT appearing as an argv value is not flagged", () => {
    expect(rules(runnable("G1", "node verify.mjs --expected VERIFY_OK", "VERIFY_OK"))).toEqual([]);
  });

  test("a weak EXPECT warns, case- and space-insensitively", () => {
    for (const e of ["ok", "Done", "PASSED", "0", "working"])
      expect(rules(runnable("G1", "node v.mjs", e))).toContain("G1:weak-expect");
    expect(lintLedger(parseLedger(runnable("G1", "node v.mjs", "ok"), "G"))[0]!.message).toContain(
      "also appears in failure output",
    );
  });

  test("a path-like regex warns exactly once; /Found 0 errors/ does not", () => {
    expect(
      rules(runnable("G1", "node v.mjs", "/etc/app/conf/")).filter((r) => r.endsWith("path-read-as-regex")),
    ).toHaveLength(1);
    expect(rules(runnable("G1", "node v.mjs", "/Found 0 errors/"))).toEqual([]);
  });

  test("a manual gate warns; a number in its title is unmeasured; the file is mostly manual", () => {
    expect(rules("- [ ] M1: p95 latency under 200 ms\n  EVIDENCE: pending\n")).toEqual([
      "M1:manual-gate",
      "M1:unmeasured-number",
      "-:mostly-manual",
    ]);
  });

  test("activity titles warn on whole words only", () => {
    expect(rules(runnable("G1", "node v.mjs", "MARK_X", "Improve the importer"))).toEqual(["G1:activity-not-outcome"]);
    expect(rules(runnable("G1", "node v.mjs", "MARK_X", "make sure rows import"))).toEqual(["G1:activity-not-outcome"]);
    expect(rules(runnable("G1", "node v.mjs", "MARK_X", "Improvements are listed in CHANGES"))).toEqual([]);
    expect(rules(runnable("G1", "node v.mjs", "MARK_X", "trying harder"))).toEqual([]);
  });

  test("abandoned gates are not linted", () => {
    expect(
      rules(runnable("G1", "node v.mjs", "MARK_X") + "- [ ] G2: review 3 screens\nABANDON: G2 out of scope\n"),
    ).toEqual([]);
  });

  test("half manual is not mostly manual", () => {
    expect(rules(runnable("G1", "node v.mjs", "MARK_X") + "- [ ] M1: copy approved\n")).toEqual(["M1:manual-gate"]);
  });

  test("no size-policy rules exist (thin or fat ledgers are fine)", () => {
    const many = Array.from({ length: 20 }, (_, i) => runnable(`G${i}`, "node v.mjs", `MARK_${i}`)).join("");
    expect(rules(many)).toEqual([]);
    expect(rules(runnable("G1", "node v.mjs", "MARK_X"))).toEqual([]);
  });
});
