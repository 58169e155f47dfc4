import { describe, expect, test } from "bun:test";
import { parseExpect, parseLedger, splitLines } from "../../../src/core/ledger/parse.ts";

const errorsOf = (text: string) => parseLedger(text, "GATES").errors.map((e) => `${e.line}: ${e.message}`);

describe("gate lines", () => {
  test("a gate line starts at column 0 with '- [ ] ', '- [x] ' or '- [X] '", () => {
    const l = parseLedger("- [ ] G1: one\n- [x] G2: two\n- [X] G3: three\n", "GATES");
    expect(l.gates.map((g) => [g.id, g.checked, g.title])).toEqual([
      ["G1", false, "one"],
      ["G2", true, "two"],
      ["G3", true, "three"],
    ]);
    expect(l.errors).toEqual([]);
  });

  test("indented checkboxes, '*' bullets and missing spaces are not gates", () => {
    const l = parseLedger(
      "- [ ] G1: real\n  - [ ] G2: nested\n* [ ] G3: star\n-[ ] G4: tight\n- [ ]G5: tight\n- [y] G6: other\n",
      "GATES",
    );
    expect(l.gates.map((g) => g.id)).toEqual(["G1"]);
  });

  test("the id is the shortest non-space prefix ending in ':' followed by whitespace or end of line", () => {
    const l = parseLedger("- [ ] G1: uses http://host:80 in the title\n- [ ]   G2:   padded   \n", "GATES");
    expect(l.gates[0]!.id).toBe("G1");
    expect(l.gates[0]!.title).toBe("uses http://host:80 in the title");
    expect(l.gates[1]!.id).toBe("G2");
    expect(l.gates[1]!.title).toBe("padded");
  });

  test("a gate without an explicit id is an error and gets the synthetic id L<line>", () => {
    const l = parseLedger("# T\n\n- [ ] outcome without id\n", "GATES");
    expect(l.gates[0]!.id).toBe("L3");
    expect(errorsOf("# T\n\n- [ ] outcome without id\n")).toEqual(["3: gate needs an explicit ID followed by a colon"]);
  });

  test("Unicode line and paragraph separators inside a title or value do not break the line", () => {
    const l = parseLedger("- [ ] G1: a\u2028b\u2029c\r\n  CHECK: x\u2028y\n  EXPECT: z\n", "GATES");
    expect(l.errors).toEqual([]);
    expect(l.gates[0]!.title).toBe("a\u2028b\u2029c");
    expect(l.gates[0]!.check).toBe("x\u2028y");
  });

  test("a blank outcome is an error", () => {
    expect(errorsOf("- [ ] G1:\n")).toEqual(["1: gate G1 has a blank outcome"]);
  });

  test("an id must start with a letter or digit and use only letters, digits, '.', '_' and '-'", () => {
    expect(errorsOf("- [ ] _bad: x\n- [ ] a/b: y\n- [ ] 1.2_a-b: ok\n").length).toBe(2);
  });

  test("a duplicate id is an error that names the first line", () => {
    expect(errorsOf("- [ ] G1: a\n- [ ] G1: b\n")).toEqual(["2: duplicate gate id G1 (first declared on line 1)"]);
  });

  test("a ledger with no gate lines is an error, even with headings only", () => {
    expect(errorsOf("# Only headings\n## More\n")).toEqual(["1: ledger contains zero live gates"]);
    expect(errorsOf("")).toEqual(["1: ledger contains zero live gates"]);
  });
});

describe("attribute lines", () => {
  test("indented CHECK, EXPECT, EVIDENCE and CWD attach to the current gate, values trimmed", () => {
    const l = parseLedger(
      "- [ ] G1: t\n  CHECK:   npm test  \n\tEXPECT: OK_MARK\n    CWD: sub\n  EVIDENCE: pending\n",
      "GATES",
    );
    const g = l.gates[0]!;
    expect([g.check, g.expect, g.cwd, g.evidence]).toEqual(["npm test", "OK_MARK", "sub", "pending"]);
    expect(g.attrIndex).toEqual({ CHECK: 1, EXPECT: 2, CWD: 3, EVIDENCE: 4 });
  });

  test("an unindented attribute is an error and clears the current gate", () => {
    const l = parseLedger("- [ ] G1: t\nCHECK: x\n  EXPECT: y\n", "GATES");
    expect(l.errors.map((e) => e.message)).toEqual([
      "unindented CHECK is not attached to a gate; indent attribute lines with spaces",
      "EXPECT line is not attached to a gate",
    ]);
  });

  test("an orphan indented attribute before any gate is an error", () => {
    expect(errorsOf("  CHECK: x\n- [ ] G1: t\n")).toEqual(["1: CHECK line is not attached to a gate"]);
  });

  test("a repeated key on one gate is an error and the last value wins", () => {
    const l = parseLedger("- [ ] G1: t\n  EVIDENCE: a\n  EVIDENCE: b\n", "GATES");
    expect(l.errors.map((e) => e.message)).toEqual(["gate G1 repeats EVIDENCE (first on line 2)"]);
    expect(l.gates[0]!.evidence).toBe("b");
  });

  test("blank and prose lines do not end the attribute block; headings and '- ' lines do", () => {
    const l = parseLedger("- [ ] G1: t\n\nsome prose\n  EVIDENCE: kept\n# heading\n  CHECK: orphan\n", "GATES");
    expect(l.gates[0]!.evidence).toBe("kept");
    expect(l.errors.map((e) => e.message)).toEqual(["CHECK line is not attached to a gate"]);
    const m = parseLedger("- [ ] G1: t\n- note\n  EVIDENCE: x\n", "GATES");
    expect(m.errors.map((e) => e.message)).toEqual(["EVIDENCE line is not attached to a gate"]);
  });

  test("exactly one of CHECK/EXPECT is an error", () => {
    expect(errorsOf("- [ ] G2: half\n  CHECK: node x.mjs\n")).toEqual([
      "1: gate G2: runnable gates require both non-blank CHECK and EXPECT",
    ]);
    expect(errorsOf("- [ ] G2: half\n  EXPECT: X\n")).toEqual([
      "1: gate G2: runnable gates require both non-blank CHECK and EXPECT",
    ]);
  });

  test("a present but blank CHECK or EXPECT is an error", () => {
    expect(errorsOf("- [ ] G1: t\n  CHECK:\n  EXPECT: X\n")).toEqual(["1: gate G1: CHECK and EXPECT cannot be blank"]);
  });

  test("blockEnd marks the end of the contiguous attribute run after the gate line", () => {
    const l = parseLedger("- [ ] G1: t\n  CHECK: a\n  EXPECT: b\n\n  CWD: later\n", "GATES");
    expect(l.gates[0]!.blockEnd).toBe(2);
    expect(l.gates[0]!.cwd).toBe("later");
  });
});

describe("ABANDON lines", () => {
  test("ABANDON at column 0 records the id (one trailing ':' stripped) and the reason", () => {
    const l = parseLedger("ABANDON: G1: retired upstream\n- [ ] G1: t\n", "GATES");
    expect(l.abandons.get("G1")).toEqual({ id: "G1", reason: "retired upstream", line: 1 });
    expect(l.errors).toEqual([]);
  });

  test("missing id, blank reason, duplicates and unknown ids are errors", () => {
    expect(
      errorsOf("- [ ] G1: t\nABANDON:\nABANDON: G1\nABANDON: G1 a\nABANDON: G1 b\nABANDON: TYPO reason\n"),
    ).toEqual([
      "2: ABANDON needs a gate id and a reason",
      "3: ABANDON G1 needs a non-blank reason",
      "5: duplicate ABANDON for G1 (first on line 4)",
      "6: ABANDON references unknown gate TYPO",
    ]);
  });

  test("an indented ABANDON is an error, is not applied, and clears the current gate", () => {
    const l = parseLedger("- [ ] G1: t\n  ABANDON: G1 reason\n  EVIDENCE: x\n", "GATES");
    expect(l.abandons.size).toBe(0);
    expect(l.errors.map((e) => e.message)).toEqual([
      "indented ABANDON is not applied; start ABANDON at column 1",
      "EVIDENCE line is not attached to a gate",
    ]);
  });

  test("an ABANDON clears the current gate", () => {
    const l = parseLedger("- [ ] G1: t\nABANDON: G1 gone\n  EVIDENCE: x\n", "GATES");
    expect(l.errors.map((e) => e.message)).toEqual(["EVIDENCE line is not attached to a gate"]);
  });
});

describe("OWNS lines", () => {
  test("OWNS before the first gate accumulates normalised globs", () => {
    const l = parseLedger(
      "OWNS: src/api/**, ./tests/api/**\nOWNS: src\\\\win\\\\x.ts, src/./same.js,\n- [ ] G1: t\n",
      "leaf-1",
    );
    expect(l.owns).toEqual(["src/api/**", "tests/api/**", "src/win/x.ts", "src/same.js"]);
    expect(l.errors).toEqual([]);
  });

  test("OWNS after a gate, an empty list and each invalid path are errors", () => {
    expect(errorsOf("OWNS: , \nOWNS: /abs, ../up, C:/x, //share, a/../b, .\n- [ ] G1: t\nOWNS: late\n")).toEqual([
      "1: OWNS lists no paths",
      "2: OWNS path must be relative: /abs",
      "2: OWNS path cannot contain traversal: ../up",
      "2: OWNS path must be relative: C:/x",
      "2: OWNS path must be relative: //share",
      "2: OWNS path cannot contain traversal: a/../b",
      "2: OWNS path cannot claim an implicit root: .",
      "4: OWNS must appear before the first gate",
    ]);
  });
});

describe("fences", () => {
  test("fenced example gates never produce gates", () => {
    const l = parseLedger("```markdown\n- [ ] BAD: example\nCHECK: x\n```\n- [ ] G1: real\n", "GATES");
    expect(l.gates.map((g) => g.id)).toEqual(["G1"]);
    expect(l.errors).toEqual([]);
  });

  test("tilde fences, up to three leading spaces, and longer closers close; shorter ones do not", () => {
    const text = "   ~~~~\n- [ ] A: x\n~~~\n- [ ] B: y\n~~~~~  \n- [ ] G1: real\n";
    expect(parseLedger(text, "GATES").gates.map((g) => g.id)).toEqual(["G1"]);
  });

  test("a 4-backtick fence holding a 3-backtick fence hides everything up to its own closer", () => {
    const text = "````\n```\n- [ ] FAKE: x\n```\n``` not a closer\n- [ ] FAKE2: y\n````\n- [ ] G1: real\n";
    expect(parseLedger(text, "GATES").gates.map((g) => g.id)).toEqual(["G1"]);
  });

  test("a backtick opener whose info string contains a backtick is not a fence", () => {
    const l = parseLedger("``` a`b\n- [ ] G1: visible\n", "GATES");
    expect(l.gates.map((g) => g.id)).toEqual(["G1"]);
    expect(l.errors).toEqual([]);
  });

  test("a closing fence with other text after it does not close; an unclosed fence is an error", () => {
    expect(errorsOf("- [ ] G1: t\n```\n``` x\n")).toEqual(["2: fenced block opened on line 2 is never closed"]);
  });

  test("four leading spaces do not open a fence", () => {
    expect(parseLedger("    ```\n- [ ] G1: t\n", "GATES").gates.length).toBe(1);
  });
});

describe("EXPECT", () => {
  test("a slash-wrapped value is a regex; the last slash followed only by lowercase letters splits the flags", () => {
    expect(parseExpect("/^count=\\d+$/m").regex).toEqual({ source: "^count=\\d+$", flags: "m" });
    expect(parseExpect("/dev/gi").regex).toEqual({ source: "dev", flags: "gi" });
    expect(parseExpect("//").regex).toEqual({ source: "", flags: "" });
    expect(parseExpect("plain text").regex).toBeNull();
  });

  test("/usr/bin is read as body 'usr' with flags 'bin' and rejected", () => {
    expect(parseExpect("/usr/bin").error).toStartWith("invalid EXPECT regex:");
  });

  test("a path-like regex warns but is valid; escaped slashes and plain regexes do not warn", () => {
    const l = parseLedger(
      "- [ ] G1: a\n  CHECK: x\n  EXPECT: /etc/app/conf/\n- [ ] G2: b\n  CHECK: x\n  EXPECT: /Found 0 errors/\n- [ ] G3: c\n  CHECK: x\n  EXPECT: /etc\\/app/\n",
      "r",
    );
    expect(l.errors).toEqual([]);
    expect(l.warnings.map((w) => w.line)).toEqual([3]);
    expect(l.warnings[0]!.message).toContain('EXPECT "/etc/app/conf/" is read as a regular expression');
    expect(l.gates.map((g) => g.pathLike)).toEqual([true, false, false]);
  });

  test("an invalid regex and a body over 1000 characters are errors on the EXPECT line", () => {
    expect(errorsOf("- [ ] G1: t\n  CHECK: x\n  EXPECT: /([a-/\n")[0]).toStartWith("3: gate G1: invalid EXPECT regex:");
    expect(errorsOf(`- [ ] G1: t\n  CHECK: x\n  EXPECT: /${"a".repeat(1001)}/\n`)).toEqual([
      "3: gate G1: EXPECT regex body exceeds 1000 characters",
    ]);
  });
});

describe("line splitting", () => {
  test("LF, CRLF and a missing final newline are all recorded per line", () => {
    expect(splitLines("a\r\nb\nc")).toEqual({ lines: ["a", "b", "c"], eols: ["\r\n", "\n", ""] });
    expect(splitLines("")).toEqual({ lines: [], eols: [] });
    expect(splitLines("\n")).toEqual({ lines: [""], eols: ["\n"] });
  });

  test("a CRLF ledger parses exactly like its LF twin", () => {
    const lf = "# T\n- [x] G1: t\n  CHECK: a\n  EXPECT: b\n  EVIDENCE: pending\n";
    const a = parseLedger(lf, "G");
    const b = parseLedger(lf.replace(/\n/g, "\r\n"), "G");
    expect(b.gates.map((g) => [g.id, g.check, g.expect, g.evidence])).toEqual(
      a.gates.map((g) => [g.id, g.check, g.expect, g.evidence]),
    );
  });
});

describe("the golden malformed ledger", () => {
  test("reports every problem in one pass, in line order", () => {
    const text = [
      "# Gates: broken",
      "",
      "- [ ] no explicit id here",
      "- [ ] G1: dup one",
      "  EVIDENCE: pending",
      "- [ ] G1: dup two",
      "CHECK: node x.mjs",
      "- [ ] G2: half runnable",
      "  CHECK: node x.mjs",
      "  EVIDENCE: pending",
      "  ABANDON: G2 indented abandon",
      "ABANDON: G9 unknown gate",
      "ABANDON: G1",
      "",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      "3: gate needs an explicit ID followed by a colon",
      "6: duplicate gate id G1 (first declared on line 4)",
      "7: unindented CHECK is not attached to a gate; indent attribute lines with spaces",
      "8: gate G2: runnable gates require both non-blank CHECK and EXPECT",
      "11: indented ABANDON is not applied; start ABANDON at column 1",
      "12: ABANDON references unknown gate G9",
      "13: ABANDON G1 needs a non-blank reason",
    ]);
  });
});

describe("offset-based scanning", () => {
  test("titles and values are trimmed exactly as String.prototype.trim trims (Unicode spaces too)", () => {
    const ws = "\u00a0\u2003\u3000\ufeff";
    const l = parseLedger(`- [ ] G1: ${ws}title ${ws}\n  CHECK: ${ws}echo ok${ws}\n  EXPECT:\tok \n`, "GATES");
    expect(l.gates[0]!.title).toBe("title");
    expect(l.gates[0]!.check).toBe("echo ok");
    expect(l.gates[0]!.expect).toBe("ok");
  });

  test("each character around a title, an id's colon and a value is trimmed or kept exactly as .trim() and /\\s/ decide", () => {
    // Every character .trim() removes, and neighbours it keeps (the parser decides ASCII inline).
    const trims = [
      9,
      11,
      12,
      32,
      0xa0,
      0x1680,
      ...Array.from({ length: 11 }, (_, k) => 0x2000 + k),
      0x2028,
      0x2029,
      0x202f,
      0x205f,
      0x3000,
      0xfeff,
    ];
    const keeps = [0, 8, 14, 31, 33, 126, 127, 0x85, 0x9f, 0x180e, 0x200b, 0x2060, 0xfffd];
    for (const code of [...trims, ...keeps]) {
      const c = String.fromCharCode(code);
      const l = parseLedger(`- [ ] G1:${c}t${c}itle${c}\n  CHECK:${c}run${c}\n  EXPECT: x\n`, "GATES");
      const g = l.gates[0]!;
      const spaced = /\s/.test(c);
      expect([code, g.id, g.title, g.check]).toEqual([
        code,
        spaced ? "G1" : "L1",
        spaced ? `t${c}itle${c}`.trim() : `G1:${c}t${c}itle${c}`.trim(),
        `${c}run${c}`.trim(),
      ]);
    }
  });

  test("lines and eols keep each line's own terminator; a final CR without LF stays in the line", () => {
    const text = "# T\r\n- [ ] G1: a\n  CHECK: true\r\n  EXPECT: x\r";
    const l = parseLedger(text, "GATES");
    expect(splitLines(l.text)).toEqual({
      lines: ["# T", "- [ ] G1: a", "  CHECK: true", "  EXPECT: x\r"],
      eols: ["\r\n", "\n", "\r\n", ""],
    });
    expect(l.gates[0]!.expect).toBe("x");
  });

  test("a fence needs three backticks or tildes after at most three spaces", () => {
    const gate = "- [ ] G1: a\n  CHECK: true\n  EXPECT: x\n";
    expect(parseLedger("    ```\n" + gate, "GATES").gates).toHaveLength(1);
    expect(parseLedger("   ``\n" + gate, "GATES").gates).toHaveLength(1);
    expect(parseLedger("   ~~~\n" + gate, "GATES").gates).toHaveLength(0);
    expect(
      parseLedger("   ~~~\n" + gate + "~~~ \n" + gate.replace("G1", "G2"), "GATES").gates.map((g) => g.id),
    ).toEqual(["G2"]);
  });
});
