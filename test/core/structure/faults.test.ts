// Crash injection: for an apply of N write steps, interrupt after each k = 0..N; recovery (or a
// retry of the same request) must reach exactly the bytes of the uninterrupted apply, and a
// further retry must change nothing (T(T(S)) = T(S)).
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { loadStructure } from "../../../src/io/structure/model.ts";
import { StructureError } from "../../../src/core/structure/model.ts";
import { adviseNext } from "../../../src/core/schedule/advise.ts";
import { readScheduleFacts } from "../../../src/ops/facts.ts";
import { hashTree, tempDir } from "../../helpers/kbz.ts";
import { child, errorOf, makeScope, refinement, request, SCOPE, type TaskSpec } from "./scope.ts";
import { acceptanceScenario } from "./handoff-scenario.ts";

interface Scenario {
  name: string;
  setup: () => Promise<string>; // a root ready for the event
  request: Record<string, unknown>;
  rows: number;
}

const tasks: TaskSpec[] = [{ id: "A" }, { id: "B", needs: ["A"] }, { id: "C" }];
const scenarios: Scenario[] = [
  {
    name: "a split with a node ledger and a downstream task",
    setup: async () =>
      makeScope(tasks, { extra: { "gates/node-1.md": "- [x] N1: branch\n  EVIDENCE: reviewed by hand\n" } }),
    request: request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) }),
    rows: 5,
  },
  {
    name: "a report acceptance in a later turn",
    setup: async () => (await acceptanceScenario()).root,
    request: request(
      "accept-A",
      2,
      {},
      {
        acceptReports: [
          {
            id: "r1",
            stopped: true,
            reviewed: true,
            stopEvidence: "host confirmed stop",
            reviewEvidence: "checkpoint reviewed",
          },
        ],
      },
    ),
    rows: 5,
  },
];

function copyOf(root: string): string {
  const to = tempDir("kbz-fault-");
  fs.cpSync(root, to, { recursive: true });
  return to;
}

async function crashAfter(root: string, req: unknown, k: number): Promise<void> {
  let message = "";
  try {
    await applyStructure(root, SCOPE, req, {
      afterWrite: (step) => {
        if (step === k) throw new StructureError(`injected interruption after write ${k}`);
      },
    });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toBe(`injected interruption after write ${k}`);
}

describe("crash after every write step of an apply", () => {
  for (const s of scenarios) {
    test(`${s.name}: recovery and retry reach the uninterrupted bytes for every k; a retry then changes nothing`, async () => {
      const base = await s.setup();
      const reference = copyOf(base);
      const written: string[] = [];
      const r = await applyStructure(reference, SCOPE, s.request, { afterWrite: (_, rel) => written.push(rel) });
      expect(r.status).toBe("applied");
      const N = written.length;
      expect(written[0]).toBe("GATES.md");
      expect(written[1]).toBe("STRUCTURE.pending.json");
      expect(written[N - 2]).toBe("STRUCTURE.json");
      const want = hashTree(reference);
      expect(loadStructure(reference, SCOPE).rows.length).toBe(s.rows);

      for (let k = 0; k <= N; k++) {
        const root = copyOf(base);
        if (k > 0) await crashAfter(root, s.request, k);
        const pending = fs.existsSync(`${root}/.unlazy/${SCOPE}/STRUCTURE.pending.json`);
        expect(pending).toBe(k >= 2 && k < N);
        if (pending) {
          expect(errorOf(() => loadStructure(root, SCOPE))).toBe("pending structure transaction: recover first");
          expect(() =>
            adviseNext(readScheduleFacts({ root, scope: SCOPE, slots: 4, order: "original" }), { details: false }),
          ).toThrow(/pending/);
        }
        // k = 2 .. N-1 leaves a journal: recover rolls it forward; otherwise the retry applies.
        const rec = await recoverStructure(root, SCOPE);
        expect(rec.status).toBe(pending ? "applied" : "nothing-to-recover");
        expect(await recoverStructure(root, SCOPE)).toEqual({ status: "nothing-to-recover" });
        const retry = await applyStructure(root, SCOPE, s.request);
        expect(retry.status).toBe(k <= 1 ? "applied" : "already-applied");
        expect(hashTree(root)).toBe(want);
        expect(await applyStructure(root, SCOPE, s.request)).toEqual({
          status: "already-applied",
          operation: s.request.operation as string,
        });
        expect(hashTree(root)).toBe(want);
      }
    });
  }
});
