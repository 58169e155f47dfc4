// The graph shows split parents with their children and the worker reports still pending.
import { afterEach, describe, expect, test } from "bun:test";
import { cleanup } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { loadPlanView } from "../../src/ops/dashboardPlan.ts";
import { noteDetail, noteText, structureNote } from "../../src/tui/structure.ts";
import { applyStructure } from "../../src/io/structure/apply.ts";
import { proposal, runningScope } from "../core/structure/handoff-scenario.ts";
import { child, refinement, request, SCOPE } from "../core/structure/scope.ts";
import { frame, renderAt, waitForFrame } from "../helpers/ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

/** B split into B.1, B.2 and a pending report on A, in one event. */
async function scope(): Promise<string> {
  const root = runningScope();
  await applyStructure(
    root,
    SCOPE,
    request("split-and-report", 1, { B: refinement([child("B", "1"), child("B", "2")]) }, { reports: [proposal()] }),
  );
  return root;
}

describe("structure on the graph", () => {
  test("the note names a split parent's children and a leaf's pending report; plain leaves have none", async () => {
    const root = await scope();
    const view = loadPlanView(root, SCOPE, 4, [])!;
    expect(structureNote(view, "B")).toEqual({ children: ["B.1", "B.2"], pending: [] });
    expect(structureNote(view, "A")).toEqual({
      children: [],
      pending: [{ id: "r1", returned: false, leaseReleased: true }],
    });
    expect(structureNote(view, "C")).toBeNull();
    expect(noteText(structureNote(view, "B"))).toBe("⊃ B.1, B.2");
    expect(noteText(structureNote(view, "A"))).toBe("report r1 pending");
    expect(noteDetail(structureNote(view, "A"))[0]!.value).toContain("not returned yet, lease released");
  });

  test("the graph panel draws the split and the pending report on their rows", async () => {
    const root = await scope();
    const r = await renderAt(
      <App root={root} scope={SCOPE} theme={plain} watch={false} initialPanel="graph" />,
      120,
      30,
    );
    const f = await waitForFrame(r, (x) => x.includes("B.1, B.2"));
    const line = (id: string) => f.split("\n").find((l) => new RegExp(`\\s${id.replace(".", "\\.")}\\s`).test(l)) ?? "";
    expect(line("B")).toContain("⊃ B.1, B.2");
    expect(line("A")).toContain("report r1 pending");
    expect(frame(r)).not.toContain("structure verification failed");
  });
});
