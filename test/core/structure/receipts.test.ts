// The structure checker audits VERIFIED leaves' receipts when it reads with root and scope
// (docs/formats.md#structure-verification `verification-<reason>`), so a stale receipt fails the check and blocks events.
import { describe, expect, test } from "bun:test";
import * as path from "node:path";
import { verifyRun } from "../../../src/ops/verifyRun.ts";
import { applyStructure, planStructure } from "../../../src/io/structure/apply.ts";
import { checkStructure } from "../../../src/io/structure/oracle.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { agentApprovalDir } from "../../helpers/approvals.ts";
import { writeTree } from "../../helpers/kbz.ts";
import { makeScope, request, SCOPE } from "./scope.ts";

describe("structure checker and receipts", () => {
  test("a VERIFIED leaf's stale receipt is a verification-<reason> issue for the checker and structural events, not for the scheduler's load", async () => {
    const root = makeScope([{ id: "A", state: "VERIFIED" }, { id: "B" }]);
    writeTree(root, { "src/A/value.txt": "v1\n" });
    expect((await applyStructure(root, SCOPE, request("init", 1))).status).toBe("applied");
    const store = agentApprovalDir();
    const [r] = await verifyRun({
      root,
      ledgers: [`.unlazy/${SCOPE}/gates/leaf-A.md`],
      policy: { inputs: ["src/A"], env: [], closed: true },
      approve: false,
      reviewed: true,
      env: { UNLAZY_APPROVAL_DIR: store, PATH: process.env.PATH, HOME: path.join(store, "home") },
    });
    expect(r!.status).toBe("ACCEPTED");
    expect(checkStructure(root, SCOPE).ok).toBe(true);

    writeTree(root, { "src/A/value.txt": "v2\n" });
    expect(checkStructure(root, SCOPE).errors).toEqual([{ code: "verification-changed-inputs-or-verifier", id: "A" }]);
    expect(() => planStructure(root, SCOPE, request("again", 1))).toThrow("base structure invalid");
    expect(loadStructure(root, SCOPE).receipts).toBeUndefined();
  });
});
