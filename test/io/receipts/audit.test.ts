// The reuse rule's reasons, one by one and in the spec's order (docs/formats.md#receipts), and the
// scheduler's view of it (docs/formats.md#receipts). Receipts are written straight into the store here, so every
// combination can be set up without running checks.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { inspectReceipt, managedEvidenceIssue } from "../../../src/io/receipts/audit.ts";
import { computeContext, type Policy } from "../../../src/io/receipts/context.ts";
import { readLedger } from "../../../src/io/receipts/ledger.ts";
import { RECEIPTS_FILE, type Receipt } from "../../../src/io/receipts/file.ts";
import { sha256Hex } from "../../../src/core/util/hash.ts";
import { current, GATES, policy, stale, workspace, type Workspace } from "./workspace.ts";

const METGATES = GATES.replace("- [ ] G1", "- [x] G1").replace("EVIDENCE: pending", "EVIDENCE: reviewed by hand");
// A manual gate with human evidence is met without running anything.
const MET = "# Gates: value\n- [x] G1: a person checked the value\n  EVIDENCE: checked by Ana on the staging build\n";

function accept(ws: Workspace, p: Policy = policy(), extra: Partial<Receipt> = {}): void {
  const led = readLedger(ws.root, "GATES.md");
  const ctx = computeContext(ws.root, led, p, { env: ws.env });
  const receipt: Receipt = {
    status: "accepted",
    policy: p,
    context: ctx.value,
    ledgerHash: sha256Hex(led.text),
    fingerprint: ctx.fingerprint,
    ...extra,
  };
  ws.write(RECEIPTS_FILE, JSON.stringify({ schema: 1, receipts: { "GATES.md": receipt } }));
}

describe("reuse rule reasons (kill §4.14.4)", () => {
  test("current when accepted, closed, all met and both hashes match", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    expect(ws.audit()).toEqual(current());
  });

  test("1 missing-receipt: no receipt for the key (an absent store is empty)", () => {
    const ws = workspace({ "GATES.md": MET });
    expect(ws.audit()).toEqual(stale("missing-receipt"));
    expect(fs.existsSync(path.join(ws.root, RECEIPTS_FILE))).toBe(false);
  });

  test("2 unfinished-verification: pending and rejected receipts", () => {
    for (const status of ["pending", "rejected"] as const) {
      const ws = workspace({ "GATES.md": MET });
      ws.write(RECEIPTS_FILE, JSON.stringify({ schema: 1, receipts: { "GATES.md": { status, policy: policy() } } }));
      expect(ws.audit()).toEqual(stale("unfinished-verification"));
    }
  });

  test("3 fresh-observation-required: accepted without --closed", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws, policy({ closed: false }));
    expect(ws.audit()).toEqual(stale("fresh-observation-required"));
  });

  test("4 changed-policy: only when an expected policy is given and differs (key order included)", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    expect(ws.audit("GATES.md", policy())).toEqual(current());
    expect(ws.audit("GATES.md", policy({ env: ["X"] }))).toEqual(stale("changed-policy"));
    expect(ws.audit("GATES.md", policy({ portable: true }))).toEqual(stale("changed-policy"));
    const reordered = { closed: true, inputs: ["src", "tests"], env: [] } as Policy;
    expect(ws.audit("GATES.md", reordered)).toEqual(stale("changed-policy"));
  });

  test("5 changed-ledger-or-evidence: a gate no longer met, or evidence text edited", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    ws.write("GATES.md", MET.replace("- [x]", "- [ ]"));
    expect(ws.audit()).toEqual(stale("changed-ledger-or-evidence"));
    ws.write("GATES.md", MET.replace("by Ana", "by Bo"));
    expect(ws.audit()).toEqual(stale("changed-ledger-or-evidence"));
  });

  test("6 changed-inputs-or-verifier: a declared input changed", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    ws.write("src/value.txt", "Good\n");
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
  });

  test("order: the first failing rule wins", () => {
    const ws = workspace({ "GATES.md": MET });
    ws.write("src/value.txt", "changed\n"); // would be reason 6 on its own
    ws.write(
      RECEIPTS_FILE,
      JSON.stringify({ schema: 1, receipts: { "GATES.md": { status: "pending", policy: policy({ closed: false }) } } }),
    );
    expect(ws.audit("GATES.md", policy({ env: ["X"] }))).toEqual(stale("unfinished-verification"));
    accept(ws, policy({ closed: false }));
    expect(ws.audit("GATES.md", policy({ env: ["X"] }))).toEqual(stale("fresh-observation-required"));
    accept(ws);
    ws.write("GATES.md", MET.replace("- [x]", "- [ ]"));
    ws.write("src/value.txt", "changed again\n");
    expect(ws.audit("GATES.md", policy({ env: ["X"] }))).toEqual(stale("changed-policy"));
    expect(ws.audit()).toEqual(stale("changed-ledger-or-evidence"));
  });

  test("audit never writes: the tree is byte-identical afterwards", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    const before = fs.readFileSync(path.join(ws.root, RECEIPTS_FILE));
    ws.write("src/value.txt", "x");
    inspectReceipt(ws.root, "GATES.md", { env: ws.env });
    expect(fs.readFileSync(path.join(ws.root, RECEIPTS_FILE))).toEqual(before);
    expect(fs.readdirSync(path.join(ws.root, ".unlazy"))).toEqual(["verification-receipts.json"]);
  });
});

describe("managedEvidenceIssue (kill §4.14.5)", () => {
  const issue = (ws: Workspace) => managedEvidenceIssue(ws.root, "GATES.md", { env: ws.env });

  test("no receipt: null (scopes that never opted in are unaffected)", () => {
    expect(issue(workspace({ "GATES.md": MET }))).toBeNull();
  });

  test("accepted without --closed: only the ledger check counts", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws, policy({ closed: false }));
    ws.write("src/value.txt", "changed\n");
    expect(issue(ws)).toBeNull();
    ws.write("GATES.md", METGATES);
    expect(issue(ws)).toBe("changed-ledger-or-evidence");
  });

  test("closed receipts report the reuse rule's reason, null when current", () => {
    const ws = workspace({ "GATES.md": MET });
    accept(ws);
    expect(issue(ws)).toBeNull();
    ws.write("tests/check.sh", "changed");
    expect(issue(ws)).toBe("changed-inputs-or-verifier");
    ws.write(
      RECEIPTS_FILE,
      JSON.stringify({ schema: 1, receipts: { "GATES.md": { status: "pending", policy: policy() } } }),
    );
    expect(issue(ws)).toBe("unfinished-verification");
  });
});
