// A two-leaf scope whose leaf 1 is VERIFIED and checks src/1/value.txt: receipts meet the scheduler.
export const PLAN = (rev: number) => `# Plan: receipts
Contract revision: ${rev}

| Leaf | Owns | Needs | Tier | Planned wave | State |
|---|---|---|---|---|---|
| 1 | src/1/** | - | mechanical | 1 | VERIFIED |
| 2 | src/2/** | 1 | mechanical | 2 | WAITING |
`;
export const ACCESS = (rev: number) =>
  JSON.stringify({
    schema: 1,
    contractRevision: rev,
    leaves: {
      "1": { complete: true, reads: [], resourceReads: [], resourceWrites: [] },
      "2": { complete: true, reads: ["src/1/**"], resourceReads: [], resourceWrites: [] },
    },
  });
export const LEAF1 =
  "OWNS: src/1/**\n\n- [ ] G1: leaf 1 value\n  CHECK: grep -q good src/1/value.txt && echo LEAF_OK\n  EXPECT: LEAF_OK\n  EVIDENCE: pending\n";
export const LEAF2 = "OWNS: src/2/**\n\n- [ ] G1: leaf 2 deliverable\n  EVIDENCE: pending\n";

/** The scope's files, leaf 1's input included. */
export function receiptScope(rev = 1): Record<string, string> {
  return {
    ".unlazy/api/PLAN.md": PLAN(rev),
    ".unlazy/api/ACCESS.json": ACCESS(rev),
    ".unlazy/api/gates/leaf-1.md": LEAF1,
    ".unlazy/api/gates/leaf-2.md": LEAF2,
    "src/1/value.txt": "good\n",
  };
}
