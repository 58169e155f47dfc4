// core/trace.ts: one pure verifier for every record kind kbz keeps. Each kind is checked with
// records built the way its store builds them; plain data in, verdicts out, no files.
import { describe, expect, test } from "bun:test";
import { definitionDigest, gateDigest } from "../../src/core/ledger/digest.ts";
import { automaticEvidence, classifyEvidence } from "../../src/core/ledger/evidence.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import {
  approvalRecord,
  evidenceRecord,
  gateVerdicts,
  inputFileName,
  inputSetName,
  inputsReason,
  inputsRecord,
  probeRecord,
  receiptRecord,
  verify,
  type TraceData,
  type TraceRecord,
} from "../../src/core/trace.ts";

const record = (over: Partial<TraceRecord> = {}): TraceRecord => ({ kind: "x", subject: "s", decided: "met", key: { definition: "d1" }, depends: { a: "1", b: "2" }, ...over });

describe("verify", () => {
  test("valid while every key and dependency holds; no record is missing", () => {
    expect(verify(record(), { definition: "d1", a: "1", b: "2" })).toEqual({ status: "valid" });
    expect(verify(null, {})).toEqual({ status: "missing", differs: [] });
  });

  test("a changed or vanished dependency is stale, every changed name sorted", () => {
    expect(verify(record(), { definition: "d1", a: "9" })).toEqual({ status: "stale", changed: ["a", "b"] });
  });

  test("a key that differs means the record speaks for something else: missing, never stale, and its dependencies are not asked for", () => {
    const asked: string[] = [];
    const v = verify(record(), { digest: (n: string) => (asked.push(n), n === "definition" ? "d2" : "1") });
    expect(v).toEqual({ status: "missing", differs: ["definition"] });
    expect(asked).toEqual(["definition"]);
  });

  test("a member added to a set since the decision is a change", () => {
    const r = record({ depends: { "file:/r/a": "1" }, sets: { inputs: ["file:/r/a"] } });
    expect(verify(r, { digest: (n: string) => (n === "definition" ? "d1" : "1"), members: () => ["file:/r/a", "file:/r/b"] })).toEqual({ status: "stale", changed: ["file:/r/b"] });
  });

  test("a requirement on who gave it: a matching record from another actor is unattested", () => {
    const now = { definition: "d1", a: "1", b: "2" };
    expect(verify(record({ by: { actor: "agent" } }), now, { by: ["person"] })).toEqual({ status: "unattested" });
    expect(verify(record(), now, { by: ["person"] })).toEqual({ status: "unattested" });
    expect(verify(record({ by: { actor: "person", how: "terminal" } }), now, { by: ["person"] })).toEqual({ status: "valid" });
  });
});

describe("record kinds", () => {
  const ledger = parseLedger("- [x] G1: works\n  CHECK: echo ok\n  EXPECT: ok\n  INPUTS: a.txt\n  EVIDENCE: pending\n", "GATES");
  const g = ledger.gates[0]!;

  test("evidence: the definition digest an evidence line names holds while CHECK/EXPECT/CWD are the same", () => {
    const d = definitionDigest("echo ok", "ok", null);
    expect(verify(evidenceRecord("G1", d), { definition: gateDigest(g)! }).status).toBe("valid");
    expect(verify(evidenceRecord("G1", d), { definition: definitionDigest("echo ok2", "ok", null) })).toEqual({ status: "stale", changed: ["definition"] });
    // classifyEvidence is that check on the ledger's line.
    const line = automaticEvidence({ digest: d, outputSha256: "0".repeat(64), outputBytes: 3, shell: "/bin/sh", cwd: "/r", pathFingerprint: "000000000000/1 entries" });
    expect(classifyEvidence({ ...g, evidence: line })).toBe("automatic-current");
    expect(classifyEvidence({ ...g, check: "echo ok2", evidence: line })).toBe("automatic-stale");
  });

  const met = { ...g, evidence: "E" };
  const stored = { definition: gateDigest(met)!, evidence: "E", cwd: "/r", inputs: ["a.txt"], files: { "a.txt": "h1" } };
  const now = (digests: Record<string, string>, members: string[]) => ({ digest: (n: string) => digests[n], members: () => members });

  test("inputs: holds while every input has its digest; names the first changed, added or removed file", () => {
    const r = inputsRecord("/r/GATES.md", "G1", stored);
    expect(inputsReason(r, met, now({ [inputFileName("/r", "a.txt")]: "h1" }, [inputFileName("/r", "a.txt")]).digest)).toBeNull();
    expect(inputsReason(r, met, now({ [inputFileName("/r", "a.txt")]: "h2" }, []).digest)).toBe("STALE (input changed: a.txt)");
    expect(inputsReason(r, met, (n) => ({ [inputFileName("/r", "a.txt")]: "h1" })[n], () => [inputFileName("/r", "a.txt"), inputFileName("/r", "0.txt")])).toBe("STALE (input changed: 0.txt)");
    expect(inputsReason(r, met, () => undefined)).toBe("STALE (input changed: a.txt)");
  });

  test("inputs: a record of another evidence line is missing; a changed INPUTS declaration says so", () => {
    expect(inputsReason(inputsRecord("/r/GATES.md", "G1", { ...stored, evidence: "older" }), met, () => "h1")).toBe("STALE (no input digest recorded for this evidence; run kbz check --reverify)");
    expect(inputsReason(undefined, met, () => "h1")).toBe("STALE (no input digest recorded for this evidence; run kbz check --reverify)");
    expect(inputsReason(inputsRecord("/r/GATES.md", "G1", { ...stored, inputs: ["b.txt"] }), met, () => "h1")).toBe("STALE (INPUTS changed since the pass)");
  });

  test("probe: a vacuous verdict speaks for the gate while its definition and evidence are the ones probed", () => {
    const trace = (s: typeof stored & { evidence: string }): TraceData => ({
      records: new Map([["/r/GATES.md", [probeRecord("/r/GATES.md", "G1", { definition: s.definition, evidence: s.evidence, verdict: "vacuous", hidden: ["/r/src"], signature: "x" })]]]),
      current: { digests: {}, members: {} },
    });
    const plain = { ...met, inputs: null };
    expect(gateVerdicts(trace(stored), "/r", "/r/GATES.md", { ...ledger, gates: [plain] }, () => true).vacuous).toEqual(new Map([["G1", ["src"]]]));
    expect(gateVerdicts(trace({ ...stored, evidence: "other" }), "/r", "/r/GATES.md", { ...ledger, gates: [plain] }, () => true).vacuous.size).toBe(0);
  });

  test("receipt: keyed on the accepted ledger text, depending on the verification context", () => {
    const r = receiptRecord(".unlazy/s/gates/leaf-1.md", { status: "accepted", ledgerHash: "L", context: "C" });
    expect(verify(r, { ledger: "L", context: "C" }).status).toBe("valid");
    expect(verify(r, { ledger: "L2", context: "C" })).toEqual({ status: "missing", differs: ["ledger"] });
    expect(verify(r, { ledger: "L", context: "C2" })).toEqual({ status: "stale", changed: ["context"] });
  });

  test("approval: consent to one oracle signature, given by a person unless said otherwise", () => {
    const r = approvalRecord("/r/GATES.md", "G1", "sig");
    expect(r.by).toEqual({ actor: "person" });
    expect(verify(r, { oracle: "sig" }, { by: ["person"] }).status).toBe("valid");
    expect(verify(r, { oracle: "sig2" })).toEqual({ status: "stale", changed: ["oracle"] });
  });

  test("gateVerdicts: a met INPUTS gate is STALE by its record, an unmet one is not judged", () => {
    const r = inputsRecord("/r/GATES.md", "G1", stored);
    const data: TraceData = { records: new Map([["/r/GATES.md", [r]]]), current: { digests: { [inputFileName("/r", "a.txt")]: "h2" }, members: { [inputSetName("/r", ["a.txt"])]: [inputFileName("/r", "a.txt")] } } };
    const l = { ...ledger, gates: [met] };
    expect(gateVerdicts(data, "/r", "/r/GATES.md", l, () => true).stale).toEqual(new Map([["G1", "STALE (input changed: a.txt)"]]));
    expect(gateVerdicts(data, "/r", "/r/GATES.md", l, () => false).stale.size).toBe(0);
  });
});

describe("gateVerdicts without records", () => {
  test("a met INPUTS gate of a ledger with no record at all is STALE (evidence written elsewhere)", () => {
    const l = parseLedger("- [x] G1: works\n  CHECK: echo ok\n  EXPECT: ok\n  INPUTS: a.txt\n  EVIDENCE: E\n", "GATES");
    const none: TraceData = { records: new Map(), current: { digests: {}, members: {} } };
    expect(gateVerdicts(none, "/r", "/r/GATES.md", l, () => true).stale).toEqual(new Map([["G1", "STALE (no input digest recorded for this evidence; run kbz check --reverify)"]]));
  });
});
