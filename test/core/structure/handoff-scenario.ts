// The handoff timeline of docs/formats.md#handoff on disk: A runs in wave w1 as host-w1-A, its worker reports
// that A should split (turn 1), A returns and its lease is released, then the driver accepts.
import * as fs from "node:fs";
import * as path from "node:path";
import { applyStructure } from "../../../src/io/structure/apply.ts";
import { child, ledgerText, makeScope, refinement, request, textHash, writeDispatch, type TaskSpec } from "./scope.ts";

export const ARTIFACT = "src/A/notes.txt";
export const ARTIFACT_TEXT = "worker notes: card part done\n";

export function proposal(id = "r1", parent = "A", over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    parent,
    source: { wave: "w1", handle: `host-w1-${parent}` },
    checkpoint: {
      summary: "G0 done; the rest splits in two",
      completed: ["G0"],
      remaining: ["G1"],
      artifacts: parent === "A" ? [{ path: ARTIFACT, sha256: textHash(ARTIFACT_TEXT) }] : [],
    },
    refinement: refinement([child(parent, "x"), child(parent, "y")]),
    ...over,
  };
}

export const ACCEPT = {
  id: "r1",
  stopped: true,
  reviewed: true,
  stopEvidence: "host confirmed the worker stopped",
  reviewEvidence: "checkpoint and artifacts reviewed",
};

/** A (IN-FLIGHT in sealed wave w1, gate G0 met, G1 open) and an unrelated chain B → C. */
export function runningScope(extra: TaskSpec[] = []): string {
  const tasks: TaskSpec[] = [
    { id: "A", state: "IN-FLIGHT", gates: ["G0", "G1"] },
    { id: "B" },
    { id: "C", needs: ["B"] },
    ...extra,
  ];
  const root = makeScope(tasks);
  fs.writeFileSync(
    path.join(root, ".unlazy/s/gates/leaf-A.md"),
    ledgerText(["src/A/**"], ["G1"]).replace(
      "OWNS: src/A/**\n",
      "OWNS: src/A/**\n- [x] G0: outcome G0\n  EVIDENCE: reviewed by hand\n",
    ),
  );
  fs.mkdirSync(path.join(root, "src/A"), { recursive: true });
  fs.writeFileSync(path.join(root, ARTIFACT), ARTIFACT_TEXT);
  writeDispatch(root, { w1: { state: "sealed", leaves: ["A"], started: { A: "host-w1-A" } } });
  return root;
}

export function returnA(root: string): void {
  writeDispatch(root, { w1: { state: "complete", leaves: ["A"], started: { A: "host-w1-A" }, returned: ["A"] } });
}

/** Reported at turn 1 and returned: ready for an acceptance at turn 2 (revision 2). */
export async function acceptanceScenario(): Promise<{ root: string }> {
  const root = runningScope();
  const r = await applyStructure(root, "s", request("report-A", 1, {}, { reports: [proposal()] }));
  if (r.status !== "applied") throw new Error("report not applied");
  returnA(root);
  return { root };
}
