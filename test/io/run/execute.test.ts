import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { executeCheck, failureSummary } from "../../../src/io/run/execute.ts";
import { tempDir } from "../../helpers/kbz.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const env = { PATH: "/usr/bin:/bin" };
const exec = (
  check: string,
  expectText: string,
  regex: { source: string; flags: string } | null = null,
  timeoutMs = 20_000,
) => executeCheck({ shell: "/bin/sh", check, expect: { text: expectText, regex }, cwd: tempDir(), env, timeoutMs });

describe("one CHECK, end to end", () => {
  test("passes only with exit 0 and an EXPECT match", async () => {
    const ok = await exec("echo TOKEN", "TOKEN");
    expect([ok.ok, ok.exitCode, ok.matched, ok.error, ok.summary]).toEqual([true, 0, true, null, null]);
    const noToken = await exec("echo other", "TOKEN");
    expect([noToken.ok, noToken.matched]).toEqual([false, false]);
  });

  test("a non-zero exit never passes, even when the output holds the EXPECT token", async () => {
    const r = await exec("echo TOKEN; exit 7", "TOKEN");
    expect([r.ok, r.exitCode, r.matched]).toEqual([false, 7, true]);
  });

  test("the fingerprint of one invalid byte is the golden U+FFFD hash with bytes=3", async () => {
    const r = await exec("printf '\\377'; exit 1", "x");
    expect(r.outputSha256).toBe("83d544ccc223c057d2bf80d3f2a32982c32c3c0db8e2674820da5064783fb097");
    expect(r.bytes).toBe(3);
  });

  test("exactly 1 MiB on one stream passes with bytes=1048576", async () => {
    const r = await exec("head -c 1048576 /dev/zero | tr '\\0' a", "aaa");
    expect([r.ok, r.bytes, r.error]).toEqual([true, 1048576, null]);
  });

  test("524287 + 524288 bytes split across the streams is 1 MiB with the separator and passes", async () => {
    const r = await exec("head -c 524287 /dev/zero | tr '\\0' a; head -c 524288 /dev/zero | tr '\\0' b >&2", "b");
    expect([r.ok, r.bytes]).toEqual([true, 1048576]);
  });

  test("349525 invalid bytes plus 'a' is exactly 1 MiB after expansion and passes", async () => {
    const r = await exec("head -c 349525 /dev/zero | tr '\\0' '\\377'; printf a", "a");
    expect([r.ok, r.bytes]).toEqual([true, 1048576]);
  });

  test("stream separator or invalid-byte expansion past 1 MiB fails as a combined overflow", async () => {
    for (const check of [
      "head -c 524288 /dev/zero | tr '\\0' a; head -c 524288 /dev/zero | tr '\\0' b >&2",
      "head -c 349525 /dev/zero | tr '\\0' '\\377'; printf ab",
    ]) {
      const r = await exec(check, "a");
      expect(r.ok).toBe(false);
      expect(r.error).toBe("output exceeded 1048576 bytes after stdout/stderr UTF-8 combination");
    }
  });

  test("1.1 MB of raw output fails with the raw overflow message", async () => {
    const r = await exec("head -c 1100000 /dev/zero | tr '\\0' a", "a");
    expect(r.ok).toBe(false);
    expect(r.error).toBe("output exceeded 1048576 bytes");
  });

  test("a timeout names its seconds and never counts as matched", async () => {
    const r = await exec("echo TOKEN; sleep 10", "TOKEN", null, 1000);
    expect([r.ok, r.matched, r.error, r.signal]).toEqual([false, false, "timed out after 1s", "SIGKILL"]);
  });

  test("a catastrophic regex EXPECT fails with the budget error", async () => {
    const r = await exec("head -c 30000 /dev/zero | tr '\\0' a; echo '!'", "", { source: "(a+)+$", flags: "" });
    expect([r.ok, r.error]).toEqual([false, "EXPECT regex exceeded 250ms"]);
  });
});

describe("failure summary", () => {
  test("empty output reads (no output)", () => {
    expect(failureSummary("")).toBe("(no output)");
    expect(failureSummary("  \n\n")).toBe("(no output)");
  });

  test("up to 8 trimmed non-blank lines are joined with ' | '", () => {
    expect(failureSummary(" a \n\n b\n")).toBe("a | b");
  });

  test("more lines keep the first 6 and the last 2 around '...', so the early assertion and the trailer survive", () => {
    const lines = ["AssertionError: expected 1", ...Array.from({ length: 19 }, (_, i) => `trailer-${i + 1}`)];
    const s = failureSummary(lines.join("\n"));
    expect(s).toBe(
      "AssertionError: expected 1 | trailer-1 | trailer-2 | trailer-3 | trailer-4 | trailer-5 | ... | trailer-18 | trailer-19",
    );
  });

  test("the summary is capped at 480 characters", () => {
    expect(failureSummary("x".repeat(2000)).length).toBe(480);
  });
});
