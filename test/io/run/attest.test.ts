// kbz's attestations in the approval store (src/io/run/attest.ts), read back through the status
// snapshot under the person policy: the ledger-wide digests written after each change, and that a
// ledger changed after them is checked gate by gate (UNATTESTED, REMOVED) exactly as without them.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { attestedLedgerDigest } from "../../../src/core/trace.ts";
import { definitionDigest } from "../../../src/core/ledger/digest.ts";
import { automaticEvidence } from "../../../src/core/ledger/evidence.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { attest, noteApproved, readRootAttestations } from "../../../src/io/run/attest.ts";
import { snapshotForRequest } from "../../../src/io/read.ts";
import { privateApprovalDir, setApprovalPolicy } from "../../helpers/approvals.ts";
import { tempDir } from "../../helpers/tmp.ts";

/** A pass's automatic EVIDENCE line, as kbz writes it: it names the gate's definition digest. */
const evidence = (check: string, expect: string, out: string) =>
  automaticEvidence({ digest: definitionDigest(check, expect, null), outputSha256: out.repeat(32), outputBytes: 4, shell: "/bin/sh", cwd: "/r", pathFingerprint: "0123456789ab/5 entries" });

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
const FORGED = LEDGER.replace("- [ ] G3", "- [x] G3").replace("EVIDENCE: pending", `EVIDENCE: ${evidence("echo three", "three", "cc")}`);

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
  await attest(store, root, file, l.gates.filter((g) => g.checked).map((g) => ({ gate: g.id, kind: "pass" as const, evidence: g.evidence!, inputs: null, oracle: null })));
}

const record = () => readRootAttestations(store, root).ledgers.get(file)!;
const states = () => Object.fromEntries(snapshotForRequest({ root, files: [] }).gates.map((g) => [g.qid, g.reason ?? g.state]));

describe("attestations: the ledger-wide digests", () => {
  test("written only when every met gate is attested; the text digest is the ledger's as kbz left it", async () => {
    const l = parseLedger(LEDGER, "GATES");
    await attest(store, root, file, [{ gate: "G1", kind: "pass", evidence: l.gates[0]!.evidence!, inputs: null, oracle: null }]);
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
    expect(snapshotForRequest({ root, files: [] }).removed).toEqual(["GATES:G2 REMOVED (deleted from GATES.md; a person confirms with kbz approvals prune, or ABANDON it)"]);
  });

  test("an approval noted for a gate the ledger does not hold drops the text digest, so REMOVED is still walked", async () => {
    await attestMet();
    await noteApproved(store, root, file, ["G9"]);
    expect(record().text).toBeUndefined();
    expect(snapshotForRequest({ root, files: [] }).removed).toEqual(["GATES:G9 REMOVED (deleted from GATES.md; a person confirms with kbz approvals prune, or ABANDON it)"]);
  });

  test("a text digest edited into the store's file breaks its MAC: nothing is vouched for", async () => {
    await attestMet();
    const dir = path.dirname(path.join(store, "kbz", "attest", fs.readdirSync(path.join(store, "kbz", "attest"))[0]!, "x"));
    const name = fs.readdirSync(dir).find((n) => n.endsWith(".json"))!;
    const text = fs.readFileSync(path.join(dir, name), "utf8");
    const forgedDigest = attestedLedgerDigest(parseLedger(FORGED, "GATES"));
    fs.writeFileSync(path.join(dir, name), text.replace(/"text":"[0-9a-f]{32}"/, `"text":"${forgedDigest}"`));
    fs.writeFileSync(file, FORGED);
    expect(states()["GATES:G3"]).toStartWith("UNATTESTED");
  });
});
