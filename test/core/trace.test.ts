// core/trace.ts: one pure verifier for every record kind kbz keeps. Each kind is checked with
// records built the way its store builds them; plain data in, verdicts out, no files.
import { describe, expect, test } from "bun:test";
import { definitionDigest, gateDigest } from "../../src/core/ledger/digest.ts";
import { automaticEvidence, classifyEvidence } from "../../src/core/ledger/evidence.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import {
  attestedLedgerDigest,
  approvalRecord,
  attestationReason,
  attestationRecord,
  attestedEvidence,
  decodeAttestation,
  evidenceRecord,
  metListDigest,
  NO_RECORD,
  oracleReason,
  oracleRecord,
  recordDigest,
  gateVerdicts,
  inputsReason,
  inputsRecord,
  probeRecord,
  receiptRecord,
  unattestedGates,
  verify,
  type TraceData,
  type TraceRecord,
  type World,
} from "../../src/core/trace.ts";

const record = (over: Partial<TraceRecord> = {}): TraceRecord => ({
  kind: "x",
  subject: "s",
  decided: "met",
  key: { definition: "d1" },
  depends: { a: "1", b: "2" },
  ...over,
});

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
    expect(
      verify(r, {
        digest: (n: string) => (n === "definition" ? "d1" : "1"),
        members: () => ["file:/r/a", "file:/r/b"],
      }),
    ).toEqual({ status: "stale", changed: ["file:/r/b"] });
  });

  test("a requirement on who gave it: a matching record from another actor is unattested", () => {
    const now = { definition: "d1", a: "1", b: "2" };
    expect(verify(record({ by: { actor: "agent" } }), now, { by: ["person"] })).toEqual({ status: "unattested" });
    expect(verify(record(), now, { by: ["person"] })).toEqual({ status: "unattested" });
    expect(verify(record({ by: { actor: "person", how: "terminal" } }), now, { by: ["person"] })).toEqual({
      status: "valid",
    });
  });
});

describe("record kinds", () => {
  const ledger = parseLedger(
    "- [x] G1: works\n  CHECK: echo ok\n  EXPECT: ok\n  INPUTS: a.txt\n  EVIDENCE: pending\n",
    "GATES",
  );
  const g = ledger.gates[0]!;

  test("evidence: the definition digest an evidence line names holds while CHECK/EXPECT/CWD are the same", () => {
    const d = definitionDigest("echo ok", "ok", null);
    expect(verify(evidenceRecord("G1", d), { definition: gateDigest(g)! }).status).toBe("valid");
    expect(verify(evidenceRecord("G1", d), { definition: definitionDigest("echo ok2", "ok", null) })).toEqual({
      status: "stale",
      changed: ["definition"],
    });
    // classifyEvidence is that check on the ledger's line.
    const line = automaticEvidence({
      digest: d,
      outputSha256: "0".repeat(64),
      outputBytes: 3,
      shell: "/bin/sh",
      cwd: "/r",
      pathFingerprint: "000000000000/1 entries",
    });
    expect(classifyEvidence({ ...g, evidence: line })).toBe("automatic-current");
    expect(classifyEvidence({ ...g, check: "echo ok2", evidence: line })).toBe("automatic-stale");
  });

  const met = { ...g, evidence: "E" };
  const stored = {
    definition: gateDigest(met)!,
    evidence: "E",
    cwd: "/r",
    inputs: ["a.txt"],
    files: { "a.txt": "h1" },
  };
  /** The world as data: the files the INPUTS match now, and what the checks of the record's directory and the cap say. */
  const world = (files: Record<string, string>, o: { dir?: string | null; refusal?: string } = {}): World => ({
    checkDir: (cwd) => (o.dir === undefined ? cwd : o.dir),
    refusal: () => o.refusal ?? null,
    inputs: () => ({ files: o.refusal ? {} : files, refusal: o.refusal ?? null }),
  });

  test("inputs: holds while every input has its digest; names the first changed, added or removed file", () => {
    const r = inputsRecord("/r/GATES.md", "G1", stored);
    expect(inputsReason(r, met, world({ "a.txt": "h1" }), "/r/GATES.md")).toBeNull();
    expect(inputsReason(r, met, world({ "a.txt": "h2" }), "/r/GATES.md")).toBe("STALE (input changed: a.txt)");
    expect(inputsReason(r, met, world({ "a.txt": "h1", "0.txt": "h0" }), "/r/GATES.md")).toBe(
      "STALE (input changed: 0.txt)",
    );
    expect(inputsReason(r, met, world({}), "/r/GATES.md")).toBe("STALE (input changed: a.txt)");
  });

  test("inputs: a record of another evidence line is missing; a changed INPUTS declaration, a directory outside the root and the cap say so", () => {
    const w = world({ "a.txt": "h1" });
    expect(
      inputsReason(inputsRecord("/r/GATES.md", "G1", { ...stored, evidence: "older" }), met, w, "/r/GATES.md"),
    ).toBe("STALE (no input digest recorded for this evidence; run kbz check --reverify)");
    expect(inputsReason(undefined, met, w, "/r/GATES.md")).toBe(
      "STALE (no input digest recorded for this evidence; run kbz check --reverify)",
    );
    expect(
      inputsReason(inputsRecord("/r/GATES.md", "G1", { ...stored, inputs: ["b.txt"] }), met, w, "/r/GATES.md"),
    ).toBe("STALE (INPUTS changed since the pass)");
    const r = inputsRecord("/r/GATES.md", "G1", stored);
    expect(inputsReason(r, met, world({ "a.txt": "h1" }, { dir: null }), "/r/GATES.md")).toBe(
      "STALE (the recorded CHECK directory is not inside the repository; run kbz check --reverify)",
    );
    expect(inputsReason(r, met, world({}, { refusal: "too many" }), "/r/GATES.md")).toBe("STALE (too many)");
  });

  test("probe: a vacuous verdict speaks for the gate while its definition and evidence are the ones probed", () => {
    const trace = (s: typeof stored & { evidence: string }): TraceData => ({
      records: new Map([
        [
          "/r/GATES.md",
          [
            probeRecord("/r/GATES.md", "G1", {
              definition: s.definition,
              evidence: s.evidence,
              verdict: "vacuous",
              hidden: ["/r/src"],
              signature: "x",
            }),
          ],
        ],
      ]),
      world: world({}),
    });
    const plain = { ...met, inputs: null };
    expect(gateVerdicts(trace(stored), "/r", "/r/GATES.md", { ...ledger, gates: [plain] }, () => true).vacuous).toEqual(
      new Map([["G1", ["src"]]]),
    );
    expect(
      gateVerdicts(
        trace({ ...stored, evidence: "other" }),
        "/r",
        "/r/GATES.md",
        { ...ledger, gates: [plain] },
        () => true,
      ).vacuous.size,
    ).toBe(0);
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

  test("attestation: keyed on the attested evidence, depending on the INPUTS and oracle pass records written with it", () => {
    const oracle = oracleRecord("/r/GATES.md", "G1", {
      definition: "d",
      evidence: "e",
      signature: "sig",
      files: { "check.mjs": "h1" },
    });
    const att = { evidence: attestedEvidence("pass", "e"), inputs: NO_RECORD, oracle: recordDigest(oracle) };
    const r = attestationRecord("/r/GATES.md", "G1", "pass", att);
    expect(r.by).toEqual({ actor: "kbz" });
    expect(attestationRecord("/r/GATES.md", "M1", "sign", att).by).toEqual({ actor: "person" });
    const now = { attested: attestedEvidence("pass", "e"), inputs: NO_RECORD, oracle: recordDigest(oracle) };
    expect(verify(r, now).status).toBe("valid");
    expect(attestationReason(verify(r, now), "pass")).toBeNull();
    // Other evidence (a forged line, a signature where a pass was attested): no record speaks for it.
    const forged = verify(r, { ...now, attested: attestedEvidence("pass", "e2") });
    expect(forged).toEqual({ status: "missing", differs: ["attested"] });
    expect(attestationReason(forged, "pass")).toBe(
      "UNATTESTED (kbz has no record of this pass; run kbz check --reverify)",
    );
    expect(verify(r, { ...now, attested: attestedEvidence("sign", "e") }).status).toBe("missing");
    expect(attestationReason(verify(null, now), "sign")).toBe(
      "UNATTESTED (no person signed this here; a person signs it with kbz sign in a terminal)",
    );
    // The oracle pass record deleted ("-") or edited: stale, and said so.
    const edited = oracleRecord("/r/GATES.md", "G1", {
      definition: "d",
      evidence: "e",
      signature: "sig",
      files: { "check.mjs": "h2" },
    });
    for (const o of [NO_RECORD, recordDigest(edited)]) {
      const v = verify(r, { ...now, oracle: o });
      expect(v).toEqual({ status: "stale", changed: ["oracle"] });
      expect(attestationReason(v, "pass")).toBe(
        "UNATTESTED (kbz's record of the oracle this pass ran under is missing or altered; run kbz check --reverify)",
      );
    }
    const withInputs = attestationRecord("/r/GATES.md", "M1", "sign", {
      evidence: attestedEvidence("sign", "e"),
      inputs: recordDigest(inputsRecord("/r/GATES.md", "M1", { ...stored, evidence: "e" })),
      oracle: NO_RECORD,
    });
    expect(
      attestationReason(
        verify(withInputs, { ...now, attested: attestedEvidence("sign", "e"), oracle: NO_RECORD, inputs: NO_RECORD }),
        "sign",
      ),
    ).toBe(
      "UNATTESTED (kbz's record of the INPUTS this signature bound is missing or altered; a person signs it with kbz sign in a terminal)",
    );
  });

  test("oracle: a pass's record of the files its CHECK runs holds while each has its digest; a changed, added or removed file says which", () => {
    const plain = { ...met, inputs: null };
    const files = { "check.mjs": "h1", "package.json#scripts.test": "h2" };
    const r = oracleRecord("/r/GATES.md", "G1", {
      definition: gateDigest(plain)!,
      evidence: "E",
      signature: "sig",
      files,
    });
    const now = (f: Record<string, string> | { error: string }): World => ({ ...world({}), oracle: () => f });
    expect(r.by).toEqual({ actor: "kbz" });
    expect(oracleReason(r, plain, now(files), "/r/GATES.md")).toBeNull();
    expect(oracleReason(r, plain, now({ ...files, "check.mjs": "h9" }), "/r/GATES.md")).toBe(
      "STALE (oracle changed: check.mjs; needs a person's approval again)",
    );
    expect(oracleReason(r, plain, now({ ...files, "lib.mjs": "h3" }), "/r/GATES.md")).toBe(
      "STALE (oracle changed: lib.mjs; needs a person's approval again)",
    );
    expect(oracleReason(r, plain, now({ "check.mjs": "h1" }), "/r/GATES.md")).toBe(
      "STALE (oracle changed: package.json#scripts.test; needs a person's approval again)",
    );
    expect(oracleReason(r, plain, now({ error: "the CHECK directory is gone" }), "/r/GATES.md")).toBe(
      "STALE (oracle cannot be bound: the CHECK directory is gone)",
    );
    // A record of another pass (other evidence), no record, or a world without oracle records: read as before.
    expect(oracleReason(r, { ...plain, evidence: "E2" }, now({}), "/r/GATES.md")).toBeNull();
    expect(oracleReason(undefined, plain, now({}), "/r/GATES.md")).toBeNull();
    expect(oracleReason(r, plain, world({}), "/r/GATES.md")).toBeNull();
  });

  test("attestations of a ledger: its met gates as data in, the ones kbz does not vouch for out, with status's words", () => {
    const l = parseLedger(
      "- [x] G1: runs\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: E1\n- [x] M1: looked at\n  EVIDENCE: signed by me\n",
      "GATES",
    );
    const [g1, m1] = l.gates as [typeof g, typeof g];
    const stored = { G1: attestedEvidence("pass", "E1"), M1: attestedEvidence("sign", "signed by me") };
    expect(decodeAttestation(stored.G1)).toEqual({ evidence: stored.G1, inputs: NO_RECORD, oracle: NO_RECORD });
    expect(decodeAttestation(`${stored.G1} - x`)).toEqual({ evidence: stored.G1, inputs: NO_RECORD, oracle: "x" });
    expect(decodeAttestation(42)).toBeNull();
    // Both vouched for; none attested at all; one evidence line edited since.
    expect(unattestedGates("/r/GATES.md", [g1, m1], { gates: stored }, undefined).size).toBe(0);
    expect(unattestedGates("/r/GATES.md", [g1, m1], undefined, undefined)).toEqual(
      new Map([
        ["G1", "UNATTESTED (kbz has no record of this pass; run kbz check --reverify)"],
        ["M1", "UNATTESTED (no person signed this here; a person signs it with kbz sign in a terminal)"],
      ]),
    );
    expect([
      ...unattestedGates("/r/GATES.md", [{ ...g1, evidence: "forged" }, m1], { gates: stored }, undefined).keys(),
    ]).toEqual(["G1"]);
    // The pass recorded an oracle record: deleting it from the repository (no record now) makes the gate UNATTESTED.
    const oracle = oracleRecord("/r/GATES.md", "G1", {
      definition: gateDigest(g1)!,
      evidence: "E1",
      signature: "sig",
      files: { "a.mjs": "1" },
    });
    const withOracle = { gates: { ...stored, G1: `${stored.G1} ${NO_RECORD} ${recordDigest(oracle)}` } };
    expect(unattestedGates("/r/GATES.md", [g1], withOracle, [oracle]).size).toBe(0);
    expect(unattestedGates("/r/GATES.md", [g1], withOracle, [])).toEqual(
      new Map([
        [
          "G1",
          "UNATTESTED (kbz's record of the oracle this pass ran under is missing or altered; run kbz check --reverify)",
        ],
      ]),
    );
    // The ledger-wide digest vouches for the whole met list at once, and only for that list.
    const all = metListDigest([
      { id: "G1", kind: "pass", evidence: "E1", inputs: NO_RECORD, oracle: NO_RECORD },
      { id: "M1", kind: "sign", evidence: "signed by me", inputs: NO_RECORD, oracle: NO_RECORD },
    ]);
    expect(unattestedGates("/r/GATES.md", [g1, m1], { gates: {}, all }, undefined).size).toBe(0);
    expect(unattestedGates("/r/GATES.md", [g1], { gates: {}, all }, undefined)).toEqual(
      new Map([["G1", "UNATTESTED (kbz has no record of this pass; run kbz check --reverify)"]]),
    );
  });

  test("attestations of a ledger by its whole text: one hash when the ledger is the one kbz attested, gate by gate otherwise", () => {
    const text =
      "- [x] G1: runs\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: E1\n- [ ] G2: later\n  CHECK: echo two\n  EXPECT: two\n  EVIDENCE: pending\n";
    const l = parseLedger(text, "GATES");
    const g1 = l.gates[0]!;
    const stored = { G1: attestedEvidence("pass", "E1") };
    const sealed = { gates: stored, text: attestedLedgerDigest(l) };
    expect(attestedLedgerDigest(parseLedger(text, "GATES"))).toBe(sealed.text);
    expect(unattestedGates("/r/GATES.md", [g1], sealed, undefined, l).size).toBe(0);
    // The same text does not vouch for a gate the file holds no attestation of (a met list it never saw).
    expect([...unattestedGates("/r/GATES.md", [g1], { gates: {}, text: sealed.text }, undefined, l).keys()]).toEqual([
      "G1",
    ]);
    // Evidence forged into the unmet gate: another text, so each met gate is checked on its own.
    const forged = parseLedger(
      text.replace("- [ ] G2", "- [x] G2").replace("EVIDENCE: pending", "EVIDENCE: E2"),
      "GATES",
    );
    expect([...unattestedGates("/r/GATES.md", forged.gates, sealed, undefined, forged).keys()]).toEqual(["G2"]);
    // An edit elsewhere in the ledger falls back to the per-gate check, which still vouches for G1.
    const edited = parseLedger(text + "\nA note.\n", "GATES");
    expect(unattestedGates("/r/GATES.md", [edited.gates[0]!], sealed, undefined, edited).size).toBe(0);
    // The pass wrote an oracle record: the text alone never vouches for it; deleting it makes G1 UNATTESTED.
    const oracle = oracleRecord("/r/GATES.md", "G1", {
      definition: gateDigest(g1)!,
      evidence: "E1",
      signature: "sig",
      files: { "a.mjs": "1" },
    });
    const withOracle = { gates: { G1: `${stored.G1} ${NO_RECORD} ${recordDigest(oracle)}` }, text: sealed.text };
    expect(unattestedGates("/r/GATES.md", [g1], withOracle, [oracle], l).size).toBe(0);
    expect([...unattestedGates("/r/GATES.md", [g1], withOracle, [], l).keys()]).toEqual(["G1"]);
    // A record planted for a gate attested without one does not pass the text check either.
    expect([...unattestedGates("/r/GATES.md", [g1], sealed, [oracle], l).keys()]).toEqual(["G1"]);
  });

  test("recordDigest: a record's content, whatever its subject and the order of its digests", () => {
    const a = oracleRecord("/r/GATES.md", "G1", {
      definition: "d",
      evidence: "e",
      signature: "sig",
      files: { "a.mjs": "1", "b.mjs": "2" },
    });
    const b = oracleRecord("/elsewhere/GATES.md", "G1", {
      definition: "d",
      evidence: "e",
      signature: "sig",
      files: { "b.mjs": "2", "a.mjs": "1" },
    });
    expect(recordDigest(a)).toBe(recordDigest(b));
    expect(recordDigest(a)).toMatch(/^[0-9a-f]{32}$/);
    for (const other of [{ files: { "a.mjs": "1", "b.mjs": "3" } }, { evidence: "e2" }, { signature: "sig2" }]) {
      expect(
        recordDigest(
          oracleRecord("/r/GATES.md", "G1", {
            definition: "d",
            evidence: "e",
            signature: "sig",
            files: { "a.mjs": "1", "b.mjs": "2" },
            ...other,
          }),
        ),
      ).not.toBe(recordDigest(a));
    }
  });

  test("gateVerdicts: a met INPUTS gate is STALE by its record, an unmet one is not judged", () => {
    const r = inputsRecord("/r/GATES.md", "G1", stored);
    const data: TraceData = { records: new Map([["/r/GATES.md", [r]]]), world: world({ "a.txt": "h2" }) };
    const l = { ...ledger, gates: [met] };
    expect(gateVerdicts(data, "/r", "/r/GATES.md", l, () => true).stale).toEqual(
      new Map([["G1", "STALE (input changed: a.txt)"]]),
    );
    expect(gateVerdicts(data, "/r", "/r/GATES.md", l, () => false).stale.size).toBe(0);
    // Not met yet, over the cap: it can never be met, and says so before it is run.
    expect(
      gateVerdicts({ ...data, world: world({}, { refusal: "too many" }) }, "/r", "/r/GATES.md", l, () => false).stale,
    ).toEqual(new Map([["G1", "too many"]]));
  });
});

describe("gateVerdicts without records", () => {
  test("a met INPUTS gate of a ledger with no record at all is STALE (evidence written elsewhere)", () => {
    const l = parseLedger("- [x] G1: works\n  CHECK: echo ok\n  EXPECT: ok\n  INPUTS: a.txt\n  EVIDENCE: E\n", "GATES");
    const none: TraceData = {
      records: new Map(),
      world: { checkDir: () => null, refusal: () => null, inputs: () => ({ files: {}, refusal: null }) },
    };
    expect(gateVerdicts(none, "/r", "/r/GATES.md", l, () => true).stale).toEqual(
      new Map([["G1", "STALE (no input digest recorded for this evidence; run kbz check --reverify)"]]),
    );
  });
});
