// kbz's attestations in the approval store (src/io/run/attest.ts), read back through the status
// snapshot under the person policy: the ledger-wide digests written after each change, and that a
// ledger changed after them is checked gate by gate (UNATTESTED, REMOVED) exactly as without them.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { attestedEvidence, attestedLedgerDigest } from "../../../src/core/trace.ts";
import { definitionDigest } from "../../../src/core/ledger/digest.ts";
import { automaticEvidence } from "../../../src/core/ledger/evidence.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { attest, forget, noteApproved, readRootAttestations } from "../../../src/io/run/attest.ts";
import { attestSecret } from "../../../src/io/run/personal.ts";
import { hmacSha256Hex, sha256Hex } from "../../../src/core/util/hash.ts";
import { snapshotForRequest } from "../../../src/ops/snapshot.ts";
import { privateApprovalDir, setApprovalPolicy } from "../../helpers/approvals.ts";
import { tempDir } from "../../helpers/tmp.ts";

/** A pass's automatic EVIDENCE line, as kbz writes it: it names the gate's definition digest. */
const evidence = (check: string, expect: string, out: string) =>
  automaticEvidence({
    digest: definitionDigest(check, expect, null),
    outputSha256: out.repeat(32),
    outputBytes: 4,
    shell: "/bin/sh",
    cwd: "/r",
    pathFingerprint: "0123456789ab/5 entries",
  });

const LEDGER = [
  "# Gates: attest",
  "",
  "- [x] G1: one",
  "  CHECK: echo one",
  "  EXPECT: one",
  `  EVIDENCE: ${evidence("echo one", "one", "aa")}`,
  "",
  "- [x] G2: two",
  "  CHECK: echo two",
  "  EXPECT: two",
  `  EVIDENCE: ${evidence("echo two", "two", "bb")}`,
  "",
  "- [ ] G3: three",
  "  CHECK: echo three",
  "  EXPECT: three",
  "  EVIDENCE: pending",
  "",
].join("\n");
/** The ledger with evidence typed into G3 by hand (a line kbz never wrote here). */
const FORGED = LEDGER.replace("- [ ] G3", "- [x] G3").replace(
  "EVIDENCE: pending",
  `EVIDENCE: ${evidence("echo three", "three", "cc")}`,
);

let root: string;
let store: string;
let file: string;
let saved: string | undefined;

beforeEach(() => {
  root = tempDir("kbz-attest-");
  store = privateApprovalDir();
  setApprovalPolicy(store, "person");
  file = path.join(root, "GATES.md");
  fs.writeFileSync(file, LEDGER);
  saved = process.env.UNLAZY_APPROVAL_DIR;
  process.env.UNLAZY_APPROVAL_DIR = store;
});
afterEach(() => {
  if (saved === undefined) delete process.env.UNLAZY_APPROVAL_DIR;
  else process.env.UNLAZY_APPROVAL_DIR = saved;
});

async function attestMet(): Promise<void> {
  const l = parseLedger(fs.readFileSync(file, "utf8"), "GATES");
  await attest(
    store,
    root,
    file,
    l.gates
      .filter((g) => g.checked)
      .map((g) => ({ gate: g.id, kind: "pass" as const, evidence: g.evidence!, inputs: null, oracle: null })),
  );
}

const record = () => readRootAttestations(store, root).ledgers.get(file)!;
const states = () =>
  Object.fromEntries(snapshotForRequest({ root, files: [] }).gates.map((g) => [g.qid, g.reason ?? g.state]));

describe("attestations: the ledger-wide digests", () => {
  test("written only when every met gate is attested; the text digest is the ledger's as kbz left it", async () => {
    const l = parseLedger(LEDGER, "GATES");
    await attest(store, root, file, [
      { gate: "G1", kind: "pass", evidence: l.gates[0]!.evidence!, inputs: null, oracle: null },
    ]);
    // G2 is met but not attested: neither digest may vouch for the ledger.
    expect(record().all).toBeUndefined();
    expect(record().text).toBeUndefined();
    expect(states()["GATES:G2"]).toStartWith("UNATTESTED");
    await attestMet();
    expect(record().text).toBe(attestedLedgerDigest(parseLedger(LEDGER, "GATES")));
    expect(record().all).toBeString();
    expect(states()).toEqual({ "GATES:G1": "met", "GATES:G2": "met", "GATES:G3": "unmet" });
  });

  test("evidence forged into the unmet gate after the digests were written is UNATTESTED", async () => {
    await attestMet();
    fs.writeFileSync(file, FORGED);
    const s = states();
    expect(s["GATES:G3"]).toStartWith("UNATTESTED");
    expect(s["GATES:G1"]).toBe("met");
  });

  test("a gate deleted after the digests were written is REMOVED", async () => {
    await attestMet();
    fs.writeFileSync(file, LEDGER.slice(0, LEDGER.indexOf("- [x] G2")));
    expect(snapshotForRequest({ root, files: [] }).removed).toEqual([
      "GATES:G2 REMOVED (deleted from GATES.md; a person confirms with kbz approvals prune, or ABANDON it)",
    ]);
  });

  test("an approval noted for a gate the ledger does not hold drops the text digest, so REMOVED is still walked", async () => {
    await attestMet();
    await noteApproved(store, root, file, ["G9"]);
    expect(record().text).toBeUndefined();
    expect(snapshotForRequest({ root, files: [] }).removed).toEqual([
      "GATES:G9 REMOVED (deleted from GATES.md; a person confirms with kbz approvals prune, or ABANDON it)",
    ]);
  });

  test("a text digest edited into the store's file breaks its MAC: nothing is vouched for", async () => {
    await attestMet();
    const dir = path.join(store, "kbz", "attest");
    const name = fs.readdirSync(dir).find((n) => n.endsWith(".json"))!;
    const text = fs.readFileSync(path.join(dir, name), "utf8");
    const forgedDigest = attestedLedgerDigest(parseLedger(FORGED, "GATES"));
    fs.writeFileSync(path.join(dir, name), text.replace(/"text":"[0-9a-f]{32}"/, `"text":"${forgedDigest}"`));
    fs.writeFileSync(file, FORGED);
    expect(states()["GATES:G3"]).toStartWith("UNATTESTED");
  });
});

describe("attestations: one file per root", () => {
  test("every ledger of a root is in one file; forgetting a ledger's last gate drops it from the file", async () => {
    await attestMet();
    const other = path.join(root, "gates", "api.md");
    fs.mkdirSync(path.dirname(other));
    fs.writeFileSync(other, LEDGER);
    const l = parseLedger(LEDGER, "api");
    await attest(store, root, other, [
      { gate: "G1", kind: "pass", evidence: l.gates[0]!.evidence!, inputs: null, oracle: null },
    ]);
    expect(fs.readdirSync(path.join(store, "kbz", "attest")).filter((n) => !n.endsWith(".lock"))).toHaveLength(1);
    expect([...readRootAttestations(store, root).ledgers.keys()].sort()).toEqual([file, other].sort());
    await forget(store, root, other, "all");
    expect([...readRootAttestations(store, root).ledgers.keys()]).toEqual([file]);
  });

  test("a per-ledger file of the previous layout is read, and folded into the root's file by its next write", async () => {
    const secret = attestSecret(store, true)!;
    const key = (p: string) => sha256Hex(p).slice(0, 24);
    const dir = path.join(store, "kbz", "attest", key(root));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const l = parseLedger(LEDGER, "GATES");
    const gates = Object.fromEntries(
      l.gates.filter((g) => g.checked).map((g) => [g.id, attestedEvidence("pass", g.evidence!)]),
    );
    const body = JSON.stringify({ schema: 2, root, ledger: file, gates, approved: ["G3"] });
    fs.writeFileSync(
      path.join(dir, `${key(file)}.json`),
      `${hmacSha256Hex(secret, ["kbz.attestation\0", body])}\n${body}\n`,
      { mode: 0o600 },
    );
    expect(states()).toEqual({ "GATES:G1": "met", "GATES:G2": "met", "GATES:G3": "unmet" });
    // Another ledger's write folds it in: its gates stay attested and approved, the old folder is gone.
    const other = path.join(root, "gates", "api.md");
    fs.mkdirSync(path.dirname(other));
    fs.writeFileSync(other, LEDGER);
    await attest(store, root, other, [
      { gate: "G1", kind: "pass", evidence: l.gates[0]!.evidence!, inputs: null, oracle: null },
    ]);
    expect(fs.existsSync(dir)).toBe(false);
    expect(record().approved).toEqual(["G3"]);
    expect(states()).toMatchObject({ "GATES:G1": "met", "GATES:G2": "met", "GATES:G3": "unmet", "api:G1": "met" });
    // A previous-layout file whose MAC does not verify vouches for nothing, but its gate ids still count for REMOVED.
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const forged = JSON.stringify({
      schema: 2,
      root,
      ledger: other,
      gates: { G1: "0".repeat(32), G7: "0".repeat(32) },
      approved: [],
    });
    fs.writeFileSync(path.join(dir, `${key(other)}.json`), `${"0".repeat(64)}\n${forged}\n`, { mode: 0o600 });
    await noteApproved(store, root, file, ["G1"]);
    expect(readRootAttestations(store, root).ledgers.get(other)!.approved).toContain("G7");
  });
});
