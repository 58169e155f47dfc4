import { describe, expect, test } from "bun:test";
import { Progress } from "../../src/cli/progress.ts";

function fakeTerminal() {
  const writes: string[] = [];
  const stream = { columns: 40, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream;
  return { writes, stream };
}

describe("live progress", () => {
  test("draws one line per running gate with a spinner and elapsed seconds", () => {
    const { writes, stream } = fakeTerminal();
    const p = new Progress(stream);
    p.start("GATES:G1");
    p.start("GATES:G2");
    const last = writes[writes.length - 1]!;
    expect(last).toMatch(/^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] GATES:G1 0\.\ds\n  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] GATES:G2 0\.\ds\n$/);
    p.close();
  });

  test("redraws in place and erases everything on close, leaving the transcript clean", () => {
    const { writes, stream } = fakeTerminal();
    const p = new Progress(stream);
    p.start("GATES:G1");
    p.start("GATES:G2");
    p.finish("GATES:G1");
    expect(writes).toContain("\x1b[2A\x1b[J");
    p.close();
    expect(writes[writes.length - 1]).toBe("\x1b[1A\x1b[J");
  });

  test("repository text in a gate id cannot inject escapes; long lines are cut to the width", () => {
    const { writes, stream } = fakeTerminal();
    const p = new Progress(stream);
    p.start(`GATES:${"x".repeat(100)}\u001b[2J`);
    const drawn = writes[writes.length - 1]!;
    expect(drawn).not.toContain("\u001b");
    expect(drawn.trimEnd().length).toBeLessThanOrEqual(39);
    p.close();
  });

  test("without a terminal there is no progress at all", () => {
    const tty = process.stdout.isTTY;
    (process.stdout as { isTTY?: boolean }).isTTY = false;
    try {
      expect(Progress.forStdout(true)).toBe(null);
    } finally {
      (process.stdout as { isTTY?: boolean }).isTTY = tty;
    }
    expect(Progress.forStdout(false)).toBe(null);
  });
});
