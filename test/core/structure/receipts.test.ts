// A VERIFIED leaf whose receipt is no longer current blocks every structure event and fails the
// structure check with `verification-<reason>` (kill §4.11.3 step 2, §4.12.1).
import { describe, expect, test } from "bun:test";
import * as path from "node:path";
import { verifyRun } from "../../../src/core/receipts/run.ts";
import { loadStructure } from "../../../src/core/structure/load.ts";
import { verifyStructure } from "../../../src/core/structure/verify.ts";
import { privateApprovalDir } from "../../helpers/approvals.ts";
import { writeTree } from "../../helpers/kbz.ts";
import { applyError, child, makeScope, refinement, request, SCOPE, setState, writeScope } from "./scope.ts";

describe("receipts in the structure check", () => {
  test("a stale receipt on a VERIFIED leaf is verification-<reason> and blocks events; a current one does not", async () => {
    const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }]);
    writeScope(root, "gates/leaf-A.md", "OWNS: src/A/**\n- [ ] G1: value\n  CHECK: grep -q good src/A/value.txt && echo LEAF_OK\n  EXPECT: LEAF_OK\n  EVIDENCE: pending\n");
    writeTree(root, { "src/A/value.txt": "good\n" });
    const store = privateApprovalDir();
    const env = { UNLAZY_APPROVAL_DIR: store, PATH: "/usr/bin:/bin", HOME: path.join(store, "home") };
    const [r] = await verifyRun({ root, ledgers: [`.unlazy/${SCOPE}/gates/leaf-A.md`], policy: { inputs: ["src/A"], env: [], closed: true }, approve: true, reviewed: false, env });
    expect(r!.status).toBe("ACCEPTED");
    setState(root, "A", "VERIFIED");
    expect(verifyStructure(loadStructure(root, SCOPE, { env })).ok).toBe(true);
    writeTree(root, { "src/A/value.txt": "good, edited\n" });
    const m = loadStructure(root, SCOPE, { env });
    expect(verifyStructure(m).errors).toEqual([{ code: "verification-changed-inputs-or-verifier", id: "A" }]);
    const before = JSON.stringify(m.files);
    const err = await applyError(root, request("split-B", 1, { B: refinement([child("B", "1"), child("B", "2")]) }));
    expect(err).toStartWith("base structure invalid: ");
    expect(err).toContain("verification-");
    expect(JSON.stringify(loadStructure(root, SCOPE, { env }).files)).toBe(before);
  });
});
