// The scheduler's receipt attention (docs/formats.md#scheduling, docs/formats.md#receipts) through the same audit as
// `kbz verify`, on plain data and in a real scope (docs/formats.md#scheduling test 14).
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { verifyRun } from "../../../src/ops/verifyRun.ts";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { readScheduleFacts } from "../../../src/ops/facts.ts";
import { agentApprovalDir } from "../../helpers/approvals.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";
import { scope } from "./build.ts";
import { ACCESS, PLAN, receiptScope } from "./receipt-scope.ts";

describe("verification attention on plain data", () => {
  test("a VERIFIED leaf with a stale receipt forces review, after verified-ledger-not-met and before verified-before-dependency", () => {
    const snap = scope([
      { id: "1", state: "VERIFIED", needs: ["0"], gates: ["stale-unmet"] },
      { id: "0" },
      { id: "2", needs: ["1"] },
    ]);
    snap.tasks.get("1")!.verification = "changed-inputs-or-verifier";
    const a = adviseNext(snap, { details: true });
    expect(a.action).toBe("review");
    expect(a.launch).toEqual([]);
    expect(a.attention).toEqual([
      { leaf: "1", reason: "verified-ledger-not-met" },
      { leaf: "1", reason: "verification-changed-inputs-or-verifier" },
      { leaf: "1", reason: "verified-before-dependency" },
    ]);
    expect(a.blocked["attention-required"]).toBe(2);
  });

  test("no receipt issue, no attention", () => {
    const snap = scope([
      { id: "1", state: "VERIFIED" },
      { id: "2", needs: ["1"] },
    ]);
    snap.tasks.get("1")!.verification = null;
    expect(adviseNext(snap, { details: false }).launch).toEqual(["2"]);
  });
});

describe("kill §5.4 test 14: receipts in a real scheduler scope", () => {
  test("an accepted receipt lets the successor launch; a contract revision bump or a source change forces review", async () => {
    const root = tempDir("kbz-sched-receipts-");
    writeTree(root, receiptScope());
    const store = agentApprovalDir();
    const env = { UNLAZY_APPROVAL_DIR: store, PATH: "/usr/bin:/bin", HOME: path.join(store, "home") };
    const next = () =>
      adviseNext(readScheduleFacts({ root, scope: "api", slots: 2, order: "natural", env }), { details: false });
    const [r] = await verifyRun({
      root,
      ledgers: [".unlazy/api/gates/leaf-1.md"],
      policy: { inputs: ["src/1"], env: [], closed: true },
      approve: true,
      reviewed: false,
      env,
    });
    expect(r!.status).toBe("ACCEPTED");
    expect(next()).toMatchObject({ action: "dispatch", launch: ["2"], attention: [] });

    writeTree(root, { ".unlazy/api/PLAN.md": PLAN(2), ".unlazy/api/ACCESS.json": ACCESS(2) });
    expect(next()).toMatchObject({
      action: "review",
      launch: [],
      attention: [{ leaf: "1", reason: "verification-changed-inputs-or-verifier" }],
    });

    writeTree(root, { ".unlazy/api/PLAN.md": PLAN(1), ".unlazy/api/ACCESS.json": ACCESS(1) });
    expect(next().action).toBe("dispatch");
    writeTree(root, { "src/1/value.txt": "good, edited\n" });
    expect(next()).toMatchObject({
      action: "review",
      launch: [],
      attention: [{ leaf: "1", reason: "verification-changed-inputs-or-verifier" }],
    });
  });

  test("a corrupt receipt store is a schedule error naming the store", () => {
    const root = tempDir("kbz-sched-receipts-");
    writeTree(root, { ...receiptScope(), ".unlazy/verification-receipts.json": "{torn" });
    expect(() => readScheduleFacts({ root, scope: "api", slots: 2, order: "natural" })).toThrow(
      "invalid verification registry",
    );
    expect(fs.readFileSync(path.join(root, ".unlazy/verification-receipts.json"), "utf8")).toBe("{torn");
  });
});
