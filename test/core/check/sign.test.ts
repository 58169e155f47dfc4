// Signing a manual gate (the one function behind kbz sign and the dashboard's s key): the box
// ticked and the evidence written; runnable, abandoned and unknown gates and unusable text are
// refused without touching the ledger.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { SignRefused, signEvidence, signGate } from "../../../src/core/check/sign.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";

const LEDGER = "# Gates\n\n- [ ] G1: copy reviewed\n  EVIDENCE: pending\n\n- [ ] G2: builds\n  CHECK: true\n  EXPECT: x\n  EVIDENCE: pending\n\n- [ ] G3: no evidence line yet\n";

function ledger() {
  const root = tempDir();
  writeTree(root, { "GATES.md": LEDGER });
  return { root, file: path.join(root, "GATES.md") };
}

describe("signGate", () => {
  test("writes the evidence and ticks the gate; the same text again changes nothing; a qualified id works", async () => {
    const { root, file } = ledger();
    expect(await signGate({ root, file, gate: "G1", evidence: "  read the copy with Dana  " })).toEqual({ qid: "GATES:G1", file: "GATES.md", evidence: "read the copy with Dana", status: "signed" });
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("- [x] G1: copy reviewed\n  EVIDENCE: read the copy with Dana\n");
    expect(text).toContain("- [ ] G2: builds");
    expect((await signGate({ root, file, gate: "GATES:G1", evidence: "read the copy with Dana" })).status).toBe("unchanged");
    await signGate({ root, file, gate: "G3", evidence: "checked by hand" });
    expect(fs.readFileSync(file, "utf8")).toContain("- [x] G3: no evidence line yet\n  EVIDENCE: checked by hand\n");
  });

  test("refuses runnable and unknown gates, and text that is not a person's evidence, leaving the ledger as it was", async () => {
    const { root, file } = ledger();
    const before = fs.readFileSync(file, "utf8");
    await expect(signGate({ root, file, gate: "G2", evidence: "looked fine" })).rejects.toBeInstanceOf(SignRefused);
    await expect(signGate({ root, file, gate: "G9", evidence: "looked fine" })).rejects.toThrow("GATE: no gate G9 in GATES.md (have: G1, G2, G3)");
    for (const bad of ["", "   ", "pending", "automatic-evidence=v1; definition-sha256=00;", "ok \u202e evil", "two\nlines", "x".repeat(501)]) {
      expect(() => signEvidence(bad)).toThrow("--evidence: expected");
      await expect(signGate({ root, file, gate: "G1", evidence: bad })).rejects.toThrow();
    }
    expect(fs.readFileSync(file, "utf8")).toBe(before);
  });
});
