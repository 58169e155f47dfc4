// Signing a manual gate: human evidence, checked off, under the ledger's lock; runnable,
// abandoned and unknown gates and unusable text are refused without touching the ledger.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { signEvidence, signGate } from "../../src/ops/sign.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";

const LEDGER =
  "# Gates\n\n- [ ] G1: copy reviewed\n  EVIDENCE: pending\n\n- [ ] G2: builds\n  CHECK: true\n  EXPECT: x\n  EVIDENCE: pending\n\n- [ ] G3: no evidence line yet\n";

describe("signGate", () => {
  test("writes the evidence and checks the gate; signing again with the same text changes nothing", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER });
    const r = await signGate({ root, scope: null, qid: "GATES:G1", evidence: "  read the copy\nwith Dana  " });
    expect(r).toEqual({
      file: path.join(root, "GATES.md"),
      gateId: "G1",
      status: "written",
      inputs: null,
      replaced: null,
    });
    const text = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    expect(text).toContain("- [x] G1: copy reviewed\n  EVIDENCE: read the copy with Dana\n");
    expect(text).toContain("- [ ] G2: builds");
    expect((await signGate({ root, scope: null, qid: "GATES:G1", evidence: "read the copy with Dana" })).status).toBe(
      "unchanged",
    );
    await signGate({ root, scope: null, qid: "GATES:G3", evidence: "checked by hand" });
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toContain(
      "- [x] G3: no evidence line yet\n  EVIDENCE: checked by hand\n",
    );
  });

  test("refuses runnable and unknown gates, and text that is not evidence, leaving the ledger as it was", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER });
    const before = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    await expect(signGate({ root, scope: null, qid: "GATES:G2", evidence: "looked fine" })).rejects.toThrow(
      "has a CHECK and EXPECT",
    );
    await expect(signGate({ root, scope: null, qid: "GATES:G9", evidence: "looked fine" })).rejects.toThrow(
      "no gate GATES:G9",
    );
    for (const bad of [
      "",
      "   ",
      "pending",
      "automatic-evidence=v1; definition-sha256=00;",
      "ok \u202e evil",
      "x".repeat(901),
    ]) {
      expect(() => signEvidence(bad)).toThrow();
      await expect(signGate({ root, scope: null, qid: "GATES:G1", evidence: bad })).rejects.toThrow();
    }
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toBe(before);
  });
});
