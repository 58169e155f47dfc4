import { describe, expect, test } from "bun:test";
import { runRolling } from "../../../src/core/check/pool.ts";

describe("rolling pool", () => {
  test("never runs more than the limit at once, and a free slot takes the next task immediately", async () => {
    let active = 0;
    let peak = 0;
    const events: string[] = [];
    // Task 0 may end only once task 2 has started: a pool that waited for its whole batch would
    // start task 2 after task 0, which then ends by its fallback (no hang, and the order says so).
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((r) => (releaseFirst = r));
    await runRolling([0, 1, 2, 3, 4], 2, async (i) => {
      events.push(`start ${i}`);
      active++;
      peak = Math.max(peak, active);
      if (i === 0) await Promise.race([firstMayEnd, new Promise((r) => setTimeout(r, 2000))]);
      else {
        if (i === 2) releaseFirst();
        await Promise.resolve();
      }
      events.push(`end ${i}`);
      active--;
    });
    expect(peak).toBe(2);
    // Task 2 starts when task 1 frees its slot, before its batch partner (task 0) ends.
    expect(events.indexOf("start 2")).toBeLessThan(events.indexOf("end 0"));
  });

  test("results come back in task order whatever order they finish in", async () => {
    const out = await runRolling([30, 1, 15], 3, async (ms) => {
      await new Promise((r) => setTimeout(r, ms));
      return ms;
    });
    expect(out).toEqual([30, 1, 15]);
  });
});
