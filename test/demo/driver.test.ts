import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { driveOnce, newDriverState } from "../../src/demo/driver.ts";
import { writeDemoFolder, DEMO_FILES, DEMO_SLOTS } from "../../src/demo/scope.ts";
import { idCompare } from "../../src/core/plan/order.ts";
import { parsePlan } from "../../src/core/plan/table.ts";
import { adviseNext } from "../../src/core/schedule/advise.ts";
import { readScheduleFacts } from "../../src/ops/facts.ts";
import { loadSnapshot } from "../../src/ops/snapshot.ts";
import { resolveTarget } from "../../src/io/discover.ts";
import { readLeaseRecords } from "../../src/io/read.ts";
import { tempDir } from "../helpers/kbz.ts";

describe("the demo scope", () => {
  test("is a valid plan: kbz next advises launching the two independent foundations", () => {
    const f = writeDemoFolder(tempDir());
    const snap = readScheduleFacts({ root: f.root, scope: f.scope, slots: DEMO_SLOTS, order: "natural" });
    const advice = adviseNext(snap, { details: false });
    expect(advice.action).toBe("dispatch");
    expect(advice.launch).toEqual(["1.1", "1.2"]);
    expect(Object.keys(DEMO_FILES)).toContain("ACCESS.json");
  });
});

describe("the demo driver", () => {
  test("advances every leaf to VERIFIED through claims, waves and ledger evidence, then stops at verify-root", async () => {
    const f = writeDemoFolder(tempDir());
    const s = newDriverState();
    const seenStates = new Set<string>();
    let steps = 0;
    while (await driveOnce(f, s)) {
      steps++;
      const plan = parsePlan(
        fs.readFileSync(path.join(f.root, ".unlazy/checkout/PLAN.md"), "utf8"),
        idCompare("natural"),
      );
      for (const r of plan.rows) seenStates.add(r.state);
      // Never more leases than slots, and a leaf is IN-FLIGHT only with its lease held.
      const leases = readLeaseRecords(f.root);
      expect(leases.length).toBeLessThanOrEqual(DEMO_SLOTS);
      for (const r of plan.rows.filter((r) => r.state === "IN-FLIGHT"))
        expect(leases.some((l) => !l.invalid && l.leaf === `leaf-${r.id}`)).toBe(true);
      expect(steps).toBeLessThan(300);
    }
    expect([...seenStates].sort()).toEqual(["IN-FLIGHT", "READY", "VERIFIED", "WAITING"]);
    const snap = readScheduleFacts({ root: f.root, scope: f.scope, slots: DEMO_SLOTS, order: "natural" });
    expect(adviseNext(snap, { details: false }).action).toBe("verify-root");
    expect(readLeaseRecords(f.root)).toEqual([]);
    const dispatch = JSON.parse(fs.readFileSync(path.join(f.root, ".unlazy/checkout/dispatch.json"), "utf8"));
    for (const w of Object.values(dispatch.waves) as { state: string }[]) expect(w.state).toBe("complete");
    // Every leaf gate is met with reviewed evidence; the root's gates wait for a person (approve I1 and I2, sign I3).
    const ledgers = loadSnapshot(resolveTarget({ root: f.root, scope: f.scope }));
    const unmet = ledgers.gates.filter((g) => g.state !== "met").map((g) => g.qid);
    expect(unmet).toEqual(["GATES:I1", "GATES:I2", "GATES:I3"]);
    expect(fs.readFileSync(path.join(f.root, "web/checkout/STATUS"), "utf8")).toBe("checkout wired\n");
    const log = fs.readFileSync(path.join(f.root, ".unlazy/checkout/status.log"), "utf8");
    expect(log).toContain("dispatch w1 opened: leaf-1.1, leaf-1.2");
    expect(log).toContain("demo: every leaf is VERIFIED");
    expect(await driveOnce(f, s)).toBe(false);
  });
});
