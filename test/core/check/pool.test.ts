import { describe, expect, test } from "bun:test";
import { runRolling } from "../../../src/core/check/pool.ts";

describe("rolling pool", () => {
  test("never runs more than the limit at once, and a free slot takes the next task immediately", async () => {
    let active = 0;
    let peak = 0;
    const startedAt: number[] = [];
    const durations = [50, 10, 10, 10, 10];
    const t0 = performance.now();
    await runRolling(durations, 2, async (ms, i) => {
      startedAt[i] = performance.now() - t0;
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, ms));
      active--;
    });
    expect(peak).toBe(2);
    // Task 2 starts when task 1 (10 ms) frees its slot, not after the 50 ms batch partner.
    expect(startedAt[2]!).toBeLessThan(40);
  });

  test("results come back in task order whatever order they finish in", async () => {
    const out = await runRolling([30, 1, 15], 3, async (ms) => {
      await new Promise((r) => setTimeout(r, ms));
      return ms;
    });
    expect(out).toEqual([30, 1, 15]);
  });
});
