import { describe, expect, test } from "bun:test";
import { applyGateEdit, serializeLines } from "../../../src/core/ledger/edit.ts";
import { parseLedger, splitLines } from "../../../src/core/ledger/parse.ts";

const roundTrip = (text: string) => {
  const { lines, eols } = splitLines(parseLedger(text, "GATES").text);
  return serializeLines(lines, eols);
};

describe("byte-identical round trip", () => {
  for (const [name, text] of [
    ["LF with final newline", "# T\n- [ ] G1: t\n  EVIDENCE: pending\n"],
    ["LF without final newline", "# T\n- [ ] G1: t\n  EVIDENCE: pending"],
    ["CRLF", "# T\r\n- [ ] G1: t\r\n"],
    ["mixed terminators", "# T\r\n- [ ] G1: t\n\r\n  EVIDENCE: x\r\n"],
    ["trailing blank lines and spaces", "- [ ] G1: t   \n\n\n"],
    ["a lone CR inside a line", "- [ ] G1: t\rstill line one\n"],
    ["unicode", "- [ ] G1: 한국어 ✓ émoji 🎉\n"],
  ] as const) {
    test(`parsing and writing back an unchanged ledger is byte-identical: ${name}`, () => {
      expect(roundTrip(text)).toBe(text);
    });
  }
});

describe("targeted gate edits", () => {
  test("success checks the box and replaces the evidence, keeping its indentation", () => {
    const text = "- [ ] G1: t\n  CHECK: a\n  EXPECT: b\n      EVIDENCE: pending\n- [ ] G2: u\n  EVIDENCE: mine\n";
    const l = parseLedger(text, "GATES");
    expect(applyGateEdit(l, l.gates[0]!, { checked: true, evidence: "NEW" })).toBe(
      "- [x] G1: t\n  CHECK: a\n  EXPECT: b\n      EVIDENCE: NEW\n- [ ] G2: u\n  EVIDENCE: mine\n",
    );
  });

  test("a missing EVIDENCE line is inserted after the contiguous attribute run, with two spaces", () => {
    const text = "- [X] G1: t\n  CHECK: a\n  EXPECT: b\n\n  CWD: detached\n- [ ] G2: u\n";
    const l = parseLedger(text, "GATES");
    expect(applyGateEdit(l, l.gates[0]!, { checked: false, evidence: "pending" })).toBe(
      "- [ ] G1: t\n  CHECK: a\n  EXPECT: b\n  EVIDENCE: pending\n\n  CWD: detached\n- [ ] G2: u\n",
    );
  });

  test("CRLF ledgers get CRLF on edited and inserted lines, with no bare LF", () => {
    const text = "- [ ] G1: t\r\n  CHECK: a\r\n  EXPECT: b\r\n- [ ] G2: u\r\n";
    const l = parseLedger(text, "GATES");
    const out = applyGateEdit(l, l.gates[0]!, { checked: true, evidence: "E" });
    expect(out).toBe("- [x] G1: t\r\n  CHECK: a\r\n  EXPECT: b\r\n  EVIDENCE: E\r\n- [ ] G2: u\r\n");
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("inserting after a last line without newline keeps the file without a final newline", () => {
    const l = parseLedger("- [ ] G1: t\n  CHECK: a\n  EXPECT: b", "GATES");
    expect(applyGateEdit(l, l.gates[0]!, { checked: true, evidence: "E" })).toBe(
      "- [x] G1: t\n  CHECK: a\n  EXPECT: b\n  EVIDENCE: E",
    );
  });

  test("fixes unlazy bug: a mixed-EOL file keeps each untouched line's terminator instead of becoming all CRLF", () => {
    const text = "# T\n- [ ] G1: t\r\n  CHECK: a\r\n  EXPECT: b\r\n  EVIDENCE: pending\r\nprose\n";
    const l = parseLedger(text, "GATES");
    expect(applyGateEdit(l, l.gates[0]!, { checked: true, evidence: "E" })).toBe(
      "# T\n- [x] G1: t\r\n  CHECK: a\r\n  EXPECT: b\r\n  EVIDENCE: E\r\nprose\n",
    );
  });

  test("other gates' lines are untouched", () => {
    const text = "- [ ] G1: t\n  EVIDENCE: a\n- [x] G2: u\n  EVIDENCE: human words\n";
    const l = parseLedger(text, "GATES");
    expect(applyGateEdit(l, l.gates[0]!, { checked: true, evidence: "b" }).split("\n").slice(2).join("\n")).toBe(
      "- [x] G2: u\n  EVIDENCE: human words\n",
    );
  });
});
