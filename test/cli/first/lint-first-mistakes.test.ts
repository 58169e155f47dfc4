// The first mistakes a newcomer makes in a ledger, caught by `kbz lint` on the binary:
// item 3, a gate that cannot fail is an error (not a warning under LINT OK), and item 4, an
// attribute line kbz does not know is an error with its line number and a did-you-mean, where
// before it silently turned the gate manual. Both fail on 571b8e3 (KBZ_TEST_BIN=/work/tools/kbz-571b8e3).
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir } from "../../helpers/kbz.ts";

const dir = tempDir("kbz-first-lint-");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function lint(ledger: string): {
  code: number;
  out: string;
  findings: { rule: string; level: string; line: number; gate: string | null; message: string }[];
} {
  fs.writeFileSync(path.join(dir, "GATES.md"), ledger);
  const text = kbz(["lint", "GATES.md"], { cwd: dir });
  const json = kbz(["lint", "--json", "GATES.md"], { cwd: dir });
  expect(json.code).toBe(text.code);
  return { code: text.code, out: text.stdout, findings: JSON.parse(json.stdout).findings };
}

const errors = (r: ReturnType<typeof lint>) =>
  r.findings.filter((f) => f.level === "error").map((f) => `${f.gate ?? "-"}:${f.rule}`);

describe("issue 44 item 3: lint lets a gate that cannot fail through → it is an error, exit 1", () => {
  test("fixes unlazy bug: CHECK: echo ok / EXPECT: ok was a warning under LINT OK", () => {
    const r = lint("# Gates: importer\n\n- [ ] G1: the importer reports success\n  CHECK: echo ok\n  EXPECT: ok\n");
    expect(errors(r)).toEqual(["G1:tautological-check"]);
    expect(r.out).toContain('  ERROR G1: CHECK looks like a fixed-output command: "echo ok"');
    expect([r.code, r.out.trimEnd().split("\n").pop()]).toEqual([1, "LINT FINDINGS: 1 error(s), 1 warning(s)"]);
  });

  test("an EXPECT the CHECK's own echo prints, after a command whose status is discarded, is an error", () => {
    for (const check of [
      "node t.js; echo DONE_OK",
      "node t.js | tee log; echo DONE_OK",
      "node t.js & printf 'DONE_OK'",
      'echo "DONE_OK"; node t.js | echo ok',
    ]) {
      const r = lint(`# Gates: t\n\n- [ ] G1: t passes\n  CHECK: ${check}\n  EXPECT: DONE_OK\n`);
      expect({ check, errors: errors(r) }).toEqual({ check, errors: ["G1:expect-printed-by-check"] });
    }
    // The exit status still decides, or the echo never reaches the output: not this error.
    for (const check of [
      "node t.js && echo DONE_OK",
      "node t.js || echo DONE_OK",
      "echo DONE_OK | node t.js",
      "node t.js; echo other",
      "node t.js --marker DONE_OK; true",
    ]) {
      const r = lint(`# Gates: t\n\n- [ ] G1: t passes\n  CHECK: ${check}\n  EXPECT: DONE_OK\n`);
      expect({ check, printed: errors(r).includes("G1:expect-printed-by-check") }).toEqual({ check, printed: false });
    }
  });

  test("the untouched kbz init starter is an error: its placeholder heading and each example gate", () => {
    fs.rmSync(path.join(dir, "GATES.md"), { force: true });
    expect(kbz(["init"], { cwd: dir }).code).toBe(0);
    const r = kbz(["lint", "--json"], { cwd: dir });
    const found = JSON.parse(r.stdout)
      .findings.filter((f: { level: string }) => f.level === "error")
      .map((f: { gate: string | null; rule: string; line: number }) => `${f.gate ?? "-"}:${f.rule}:${f.line}`);
    expect([r.code, found]).toEqual([
      1,
      ["-:starter-placeholder:1", "G1:starter-example:3", "G2:starter-example:8", "G3:starter-example:13"],
    ]);
    // Once the gates are the task's own, the same file lints clean of these.
    const own = fs
      .readFileSync(path.join(dir, "GATES.md"), "utf8")
      .replace("<what this task delivers>", "CSV importer")
      .replaceAll("test/feature/", "test/csv/");
    expect(errors(lint(own))).toEqual([]);
  });
});

describe("issue 44 item 4: a lowercase key silently turns a gate manual → an unknown attribute line is an error with its line and a did-you-mean", () => {
  const LEDGER = [
    "# Gates: t", // 1
    "", // 2
    "- [ ] G1: t passes", // 3
    "  check: node t.js", // 4
    "  Expect: T_OK", // 5
    "- [ ] G2: inputs are bound", // 6
    "  CHECK: node t.js", // 7
    "  EXPECT: T_OK", // 8
    "  INPUT: src/**", // 9
    "  ENV : NODE_ENV", // 10
    "  Note: prose under a gate stays prose", // 11
    "  Env: production", // 12
    "```", // 13
    "  check: inside a fence is an example", // 14
    "```", // 15
    "",
  ].join("\n");

  test("check:, Expect:, INPUT:, ENV : and Env: are errors naming the line and the key; prose and fenced lines are not", () => {
    const r = lint(LEDGER);
    const unknown = r.findings.filter((f) => f.rule === "unknown-attribute").map((f) => `${f.gate}:${f.line}`);
    expect(unknown).toEqual(["G1:4", "G1:5", "G2:9", "G2:10", "G2:12"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      '  ERROR G1: line 4: "check:" is not an attribute kbz knows (keys are uppercase), so the line is ignored, and the gate has no CHECK; did you mean "CHECK:"?  [unknown-attribute]',
    );
    expect(r.out).toContain(
      '  ERROR G2: line 9: "INPUT:" is not an attribute kbz knows (a misspelled key), so the line is ignored; did you mean "INPUTS:"?  [unknown-attribute]',
    );
    expect(r.out).toContain('line 10: "ENV :" is not an attribute kbz knows (a space before the colon)');
  });

  test("the originals' ledgers (unknown prose keys, EVIDENCE, CWD) lint without it", () => {
    const r = lint(
      "# Gates: t\n\n- [ ] G1: t passes\n  CHECK: node t.js\n  EXPECT: T_OK\n  CWD: .\n  EVIDENCE: pending\n  Reviewer: Ana\n  Why: the importer\n",
    );
    expect(r.findings.filter((f) => f.rule === "unknown-attribute")).toEqual([]);
  });
});
