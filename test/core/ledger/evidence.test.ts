import { describe, expect, test } from "bun:test";
import { definitionDigest } from "../../../src/core/ledger/digest.ts";
import {
  automaticEvidence,
  canonicalOutput,
  classifyEvidence,
  evidencePrefix,
  outputFingerprint,
} from "../../../src/core/ledger/evidence.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { gateState } from "../../../src/core/ledger/state.ts";

const SHA = "a".repeat(64);

function gateWith(
  evidence: string | null,
  opts: { check?: string; expect?: string; cwd?: string; checked?: boolean } = {},
) {
  const check = opts.check ?? "npm test";
  const exp = opts.expect ?? "TESTS_OK";
  const lines = [`- [${opts.checked === false ? " " : "x"}] G1: tests pass`, `  CHECK: ${check}`, `  EXPECT: ${exp}`];
  if (opts.cwd !== undefined) lines.push(`  CWD: ${opts.cwd}`);
  if (evidence !== null) lines.push(`  EVIDENCE: ${evidence}`);
  const ledger = parseLedger(lines.join("\n") + "\n", "GATES");
  return { ledger, gate: ledger.gates[0]! };
}

function current(
  digest = definitionDigest("npm test", "TESTS_OK", null),
  tail = "/bin/sh; cwd=/r; path=abc/2 entries",
) {
  return `${evidencePrefix(digest)} exit=0; EXPECT=matched; output-sha256=${SHA}; output-bytes=12; shell=${tail}`;
}

describe("definition digest", () => {
  test('golden vector: printf "token-b\\n" / token-c / no CWD', () => {
    expect(definitionDigest('printf "token-b\\n"', "token-c", null)).toBe(
      "544a096dd6735f1168b04cb00c40b2d7d8889c656e383d95ee6977ea90813ab5",
    );
  });

  test("CWD '.' and an absent CWD give different digests; an empty CWD differs from both", () => {
    const none = definitionDigest("a", "b", null);
    expect(definitionDigest("a", "b", ".")).not.toBe(none);
    expect(definitionDigest("a", "b", "")).not.toBe(none);
  });

  test("id, title, attribute order and CRLF do not affect the digest", () => {
    const a = parseLedger("- [ ] G1: one\n  CHECK: c\n  EXPECT: e\n", "A").gates[0]!;
    const b = parseLedger("- [ ] X9: another title\r\n  EXPECT: e\r\n  CHECK: c\r\n", "B").gates[0]!;
    expect(definitionDigest(a.check!, a.expect!, a.cwd)).toBe(definitionDigest(b.check!, b.expect!, b.cwd));
  });
});

describe("output fingerprint", () => {
  test("golden vector: one 0xFF byte decodes to U+FFFD, 3 bytes", () => {
    const fp = outputFingerprint(canonicalOutput(new Uint8Array([0xff]), new Uint8Array()));
    expect(fp).toEqual({ sha256: "83d544ccc223c057d2bf80d3f2a32982c32c3c0db8e2674820da5064783fb097", bytes: 3 });
  });

  test("stdout and stderr are joined by one newline only when both are non-empty", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(canonicalOutput(enc("a"), enc("b"))).toBe("a\nb");
    expect(canonicalOutput(enc("a"), enc(""))).toBe("a");
    expect(canonicalOutput(enc(""), enc("b"))).toBe("b");
  });
});

describe("evidence classification", () => {
  test("an exact current header with opaque trailing text is automatic-current and the gate is met", () => {
    const { ledger, gate } = gateWith(current(undefined, "x; automatic-evidence=v1; definition-sha256=zz"));
    expect(classifyEvidence(gate)).toBe("automatic-current");
    expect(gateState(gate, ledger)).toBe("met");
  });

  test("the evidence kbz writes classifies as current", () => {
    const digest = definitionDigest("npm test", "TESTS_OK", null);
    const ev = automaticEvidence({
      digest,
      outputSha256: SHA,
      outputBytes: 5,
      shell: "/bin/sh",
      cwd: "/r",
      pathFingerprint: "0123456789ab/3 entries",
    });
    expect(classifyEvidence(gateWith(ev).gate)).toBe("automatic-current");
  });

  test("long shell and cwd are cut at 900 characters without touching the deciding fields", () => {
    const digest = definitionDigest("npm test", "TESTS_OK", null);
    const ev = automaticEvidence({
      digest,
      outputSha256: SHA,
      outputBytes: 5,
      shell: "/bin/sh",
      cwd: "/" + "d".repeat(2000),
      pathFingerprint: "0123456789ab/3 entries",
    });
    expect(ev.length).toBe(900);
    expect(classifyEvidence(gateWith(ev).gate)).toBe("automatic-current");
  });

  test("control and bidi characters in shell and cwd become spaces", () => {
    const digest = definitionDigest("npm test", "TESTS_OK", null);
    const ev = automaticEvidence({
      digest,
      outputSha256: SHA,
      outputBytes: 5,
      shell: "/bin/sh",
      cwd: "/a\u001b[31m\u202eb\nc",
      pathFingerprint: "0123456789ab/3 entries",
    });
    expect(ev).toContain("cwd=/a [31m b c;");
  });

  const digest = definitionDigest("npm test", "TESTS_OK", null);
  const prefix = evidencePrefix(digest);
  const stale: [string, string][] = [
    ["uppercase hex digest", current(digest.toUpperCase())],
    ["short digest", current(digest.slice(0, 63))],
    ["digest of another definition", current(definitionDigest("npm test", "OTHER", null))],
    ["v2 header", current().replace("automatic-evidence=v1", "automatic-evidence=v2")],
    ["v1 header in the middle", `note: ${current()}`],
    ["exit=1", current().replace("exit=0", "exit=1")],
    ["EXPECT not matched", current().replace("EXPECT=matched", "EXPECT=not matched")],
    ["missing shell value", `${prefix} exit=0; EXPECT=matched; output-sha256=${SHA}; output-bytes=12; shell=`],
    ["no shell field", `${prefix} exit=0; EXPECT=matched; output-sha256=${SHA}; output-bytes=12`],
    ["leading zero byte count", current().replace("output-bytes=12", "output-bytes=012")],
    ["byte count above the cap", current().replace("output-bytes=12", "output-bytes=1048577")],
    ["eight-digit byte count", current().replace("output-bytes=12", "output-bytes=10000000")],
    ["uppercase output hash", current().replace(SHA, "A".repeat(64))],
    ["short output hash", current().replace(SHA, "a".repeat(63))],
    ["two spaces before exit", current().replace("; exit=0", ";  exit=0")],
    ["no space before exit", current().replace("; exit=0", ";exit=0")],
    ["longer than 900 characters", current(digest, "/bin/sh" + "x".repeat(900))],
    ["legacy transcript", "exit=0; shell=/bin/sh; 8/8 passed"],
    ["bare automatic marker", "automatic-evidence=v1"],
    ["header without the digest", "automatic-evidence=v1; exit=0; EXPECT=matched"],
    ["missing output-bytes", `${prefix} exit=0; EXPECT=matched; output-sha256=${SHA}; shell=/bin/sh`],
    ["negative byte count", current().replace("output-bytes=12", "output-bytes=-1")],
    ["fields out of order", `${prefix} EXPECT=matched; exit=0; output-sha256=${SHA}; output-bytes=12; shell=/bin/sh`],
    ["tab instead of space", current().replace("; exit=0", ";\texit=0")],
  ];
  for (const [name, value] of stale) {
    test(`runnable gate with ${name} is stale-unmet`, () => {
      const { ledger, gate } = gateWith(value);
      expect(gateState(gate, ledger)).toBe("stale-unmet");
    });
  }

  test("human prose on a runnable gate is stale-unmet", () => {
    const { ledger, gate } = gateWith("I ran it and it was fine");
    expect(classifyEvidence(gate)).toBe("human");
    expect(gateState(gate, ledger)).toBe("stale-unmet");
  });

  test("an edited CHECK, EXPECT or CWD makes current evidence stale", () => {
    const ev = current();
    expect(gateState(gateWith(ev, { check: "npm test -- --ci" }).gate, gateWith(ev).ledger)).toBe("stale-unmet");
    expect(gateState(gateWith(ev, { expect: "TESTS_OK!" }).gate, gateWith(ev).ledger)).toBe("stale-unmet");
    expect(gateState(gateWith(ev, { cwd: "." }).gate, gateWith(ev).ledger)).toBe("stale-unmet");
  });

  test("pending in any case, an empty value and a missing line classify as pending", () => {
    for (const v of ["pending", "PENDING", "Pending"]) expect(classifyEvidence(gateWith(v).gate)).toBe("pending");
    expect(classifyEvidence(gateWith(null).gate)).toBe("pending");
  });
});

describe("gate states", () => {
  const manual = (box: string, evidence: string | null) => {
    const text = `- [${box}] M1: copy reviewed\n${evidence === null ? "" : `  EVIDENCE: ${evidence}\n`}`;
    const ledger = parseLedger(text, "GATES");
    return gateState(ledger.gates[0]!, ledger);
  };

  test("manual gate: prose evidence is met, pending or missing is unmet-no-evidence", () => {
    expect(manual("x", "reviewed by Dana")).toBe("met");
    expect(manual("x", "pending")).toBe("unmet-no-evidence");
    expect(manual("X", null)).toBe("unmet-no-evidence");
    expect(manual("x", "")).toBe("unmet-no-evidence");
  });

  test("manual gate with machine evidence left over is stale-unmet (removing CHECK does not turn it into attestation)", () => {
    expect(manual("x", current())).toBe("stale-unmet");
    expect(manual("x", "exit=0; shell=/bin/sh")).toBe("stale-unmet");
  });

  test("adding CHECK/EXPECT to a human-attested manual gate makes it stale", () => {
    const { ledger, gate } = gateWith("reviewed by Dana");
    expect(gateState(gate, ledger)).toBe("stale-unmet");
  });

  test("an unchecked gate with current evidence is unmet", () => {
    const { ledger, gate } = gateWith(current(), { checked: false });
    expect(gateState(gate, ledger)).toBe("unmet");
  });

  test("abandonment overrides everything, stale evidence included", () => {
    const ledger = parseLedger(
      "- [x] G1: t\n  CHECK: a\n  EXPECT: b\n  EVIDENCE: forged\nABANDON: G1 impossible\n",
      "GATES",
    );
    expect(gateState(ledger.gates[0]!, ledger)).toBe("abandoned");
  });
});
