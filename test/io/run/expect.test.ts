import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { dropIdleWorkers, matchExpect, regexMatch } from "../../../src/io/run/expect.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

describe("EXPECT matching", () => {
  test("text EXPECT is a plain substring test (regex metacharacters are literal)", async () => {
    expect(await matchExpect({ text: "a.c", regex: null }, "xx a.c yy")).toEqual({ matched: true, error: null });
    expect(await matchExpect({ text: "a.c", regex: null }, "abc")).toEqual({ matched: false, error: null });
  });

  test("regex EXPECT matches with its flags in a worker", async () => {
    expect(
      await matchExpect({ text: "", regex: { source: "total: \\d+ items", flags: "" } }, "total: 12 items"),
    ).toEqual({ matched: true, error: null });
    expect(await regexMatch("^count=\\d+$", "m", "x\ncount=3\n")).toEqual({ matched: true, error: null });
    expect(await regexMatch("^count=\\d+$", "", "x\ncount=3\n")).toEqual({ matched: false, error: null });
    expect(await regexMatch("", "", "")).toEqual({ matched: true, error: null });
  });

  test("catastrophic backtracking is cut off at the 250 ms budget", async () => {
    const t0 = Date.now();
    const r = await regexMatch("(a+)+$", "", "a".repeat(30000) + "!");
    expect(r).toEqual({ matched: false, error: "EXPECT regex exceeded 250ms" });
    expect(Date.now() - t0).toBeLessThan(15_000); // unbounded, this pattern runs for hours
  });

  test("worker startup has its own limit, separate from the match budget", async () => {
    dropIdleWorkers(); // an idle worker from an earlier match would need no startup
    const r = await regexMatch("a", "", "a", { matchMs: 250, startupMs: 0 });
    expect(r.matched).toBe(false);
    expect(r.error).toBe("EXPECT worker startup exceeded 0ms");
  });

  test("thirty-two simultaneous regex matches all finish without startup or budget errors", async () => {
    const all = await Promise.all(
      Array.from({ length: 32 }, (_, i) => regexMatch(`^token-${i}$`, "m", `x\ntoken-${i}\n`)),
    );
    expect(all.every((r) => r.matched && r.error === null)).toBe(true);
  });

  test("workers serve the next match after a verdict or a pattern error, and never carry anything over", async () => {
    for (let i = 0; i < 20; i++) {
      expect(await regexMatch(`^t-${i}$`, "m", `x\nt-${i}\n`)).toEqual({ matched: true, error: null });
      expect(await regexMatch(`^t-${i}$`, "", `x\nt-${i}\n`)).toEqual({ matched: false, error: null });
      expect((await regexMatch("([a-", "", "x")).error).toContain("Invalid regular expression");
    }
  });

  test("after a match cut off by its budget, the next matches still answer in budget", async () => {
    const slow = regexMatch("(a+)+$", "", "a".repeat(30000) + "!");
    const next = await Promise.all(Array.from({ length: 8 }, (_, i) => regexMatch(`^n${i}$`, "", `n${i}`)));
    expect(await slow).toEqual({ matched: false, error: "EXPECT regex exceeded 250ms" });
    expect(next.every((r) => r.matched && r.error === null)).toBe(true);
    expect(await regexMatch("^after$", "", "after")).toEqual({ matched: true, error: null });
  });

  test("an invalid pattern reaching the worker is reported, never matched", async () => {
    const r = await regexMatch("([a-", "", "x");
    expect(r.matched).toBe(false);
    expect(r.error).toContain("Invalid regular expression");
  });
});
