import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { appendStatus, statusLine, StatusLogError } from "../../../src/io/dispatch/statuslog.ts";
import { bindSession } from "../../../src/io/dispatch/session.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { hashTree, tempDir, writeTree } from "../../helpers/kbz.ts";

function scopeDir(): { root: string; log: string; outside: string } {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { ".unlazy/api/GATES.md": "- [ ] G1: x\n" });
  writeTree(outside, { victim: "victim bytes\n" });
  return { root, log: path.join(root, ".unlazy/api/status.log"), outside };
}

describe("status log append", () => {
  test("appends one line per call; CR/LF runs inside the text become one space", () => {
    const { log } = scopeDir();
    appendStatus(log, "first\r\n\r\nline");
    appendStatus(log, "second");
    expect(fs.readFileSync(log, "utf8")).toBe("first line\nsecond\n");
    expect(statusLine("a\rb\nc")).toBe("a b c\n");
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
  });

  const refusals: Record<string, (log: string, victim: string) => void> = {
    "a symlinked status.log": (log, victim) => fs.symlinkSync(victim, log),
    "a hard-linked status.log": (log, victim) => fs.linkSync(victim, log),
    "a FIFO status.log": (log) => spawnSync("mkfifo", [log]),
    "a directory named status.log": (log) => fs.mkdirSync(log),
  };
  for (const [what, make] of Object.entries(refusals)) {
    test(`${what} is refused promptly and the victim is untouched`, () => {
      const { log, outside } = scopeDir();
      make(log, path.join(outside, "victim"));
      const before = hashTree(outside);
      const t = Date.now();
      expect(() => appendStatus(log, "x")).toThrow(StatusLogError);
      expect(Date.now() - t).toBeLessThan(10_000);
      expect(hashTree(outside)).toBe(before);
    });
  }
});

describe("session binding", () => {
  test("writes the trimmed id plus a newline", () => {
    const { root } = scopeDir();
    expect(bindSession(root, "api", "  sess-123 \n")).toBe("sess-123");
    expect(fs.readFileSync(path.join(root, ".unlazy/api/session"), "utf8")).toBe("sess-123\n");
  });

  test("blank, unprintable and oversized ids are refused without writing", () => {
    const { root } = scopeDir();
    const before = hashTree(root);
    for (const id of ["   ", "a\nb", "a\u202eb", "x".repeat(4096)])
      expect(() => bindSession(root, "api", id)).toThrow(UsageError);
    expect(hashTree(root)).toBe(before);
  });

  test("a symlinked session file is never written through", () => {
    const { root, outside } = scopeDir();
    fs.symlinkSync(path.join(outside, "victim"), path.join(root, ".unlazy/api/session"));
    const before = hashTree(outside);
    expect(() => bindSession(root, "api", "s")).toThrow("refusing to replace a non-regular file");
    expect(hashTree(outside)).toBe(before);
  });
});
