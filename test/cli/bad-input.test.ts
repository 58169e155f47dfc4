import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { hashTree, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";

/** Every bad input: exit 2, only `<file>:<line>: <message>` lines on stderr, nothing on stdout, no file changes. */
async function expectRejected(setup: (dir: string) => void, expected: RegExp[], args: string[] = ["status"]) {
  const dir = tempDir();
  setup(dir);
  const before = hashTree(dir);
  const r = await runCli(args, { cwd: dir, timeoutMs: 10_000 });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(expected.length);
  lines.forEach((line, i) => expect(line).toMatch(expected[i]!));
  expect(hashTree(dir)).toBe(before);
}

const ledger = (text: string) => (dir: string) => writeTree(dir, { "GATES.md": text });

describe("malformed ledgers from the spec", () => {
  const cases: [string, string, RegExp][] = [
    [
      "outcome without id",
      "- [ ] outcome without id\n",
      /^GATES\.md:1: gate needs an explicit ID followed by a colon$/,
    ],
    ["blank outcome", "- [ ] G1:\n", /^GATES\.md:1: gate G1 has a blank outcome$/],
    ["CHECK at column 0", "- [ ] G1: t\nCHECK: x\n", /^GATES\.md:2: unindented CHECK is not attached to a gate/],
    [
      "indented ABANDON",
      "- [ ] G1: t\n  ABANDON: G1 reason\n",
      /^GATES\.md:2: indented ABANDON is not applied; start ABANDON at column 1$/,
    ],
    ["ABANDON without a reason", "- [ ] G1: t\nABANDON: G1\n", /^GATES\.md:2: ABANDON G1 needs a non-blank reason$/],
    [
      "ABANDON of an unknown id",
      "- [ ] G1: t\nABANDON: TYPO reason\n",
      /^GATES\.md:2: ABANDON references unknown gate TYPO$/,
    ],
    [
      "CHECK without EXPECT",
      "- [ ] G1: t\n  CHECK: x\n",
      /^GATES\.md:1: gate G1: runnable gates require both non-blank CHECK and EXPECT$/,
    ],
    ["an invalid regex", "- [ ] G1: t\n  CHECK: x\n  EXPECT: /[/\n", /^GATES\.md:3: gate G1: invalid EXPECT regex: /],
    ["headings only", "# Gates\n## nothing\n", /^GATES\.md:1: ledger contains zero live gates$/],
    [
      "a duplicate id",
      "- [ ] G1: a\n- [ ] G1: b\n",
      /^GATES\.md:2: duplicate gate id G1 \(first declared on line 1\)$/,
    ],
    ["an orphan CHECK", "  CHECK: x\n- [ ] G1: t\n", /^GATES\.md:1: CHECK line is not attached to a gate$/],
    ["a blank ABANDON", "- [ ] G1: t\nABANDON:\n", /^GATES\.md:2: ABANDON needs a gate id and a reason$/],
    ["an unclosed fence", "- [ ] G1: t\n```\n", /^GATES\.md:2: fenced block opened on line 2 is never closed$/],
    [
      "an OWNS path with traversal",
      "OWNS: ../x\n- [ ] G1: t\n",
      /^GATES\.md:1: OWNS path cannot contain traversal: \.\.\/x$/,
    ],
  ];
  for (const [name, text, re] of cases) {
    test(`${name}: one located error, exit 2, nothing written`, () => expectRejected(ledger(text), [re]));
  }
});

describe("hostile files", () => {
  test("binary junk is located at its first NUL byte", async () => {
    await expectRejected(
      (d) => writeTree(d, { "GATES.md": Buffer.from([0x2d, 0x20, 0x0a, 0x0a, 0x00, 0x01, 0xfe, 0xff]) }),
      [/^GATES\.md:3: contains a NUL byte; a ledger is UTF-8 text, not binary data$/],
    );
  });

  test("invalid UTF-8 is located by line", async () => {
    await expectRejected(
      (d) =>
        writeTree(d, {
          "GATES.md": Buffer.concat([
            Buffer.from("- [ ] G1: t\n- [ ] G2: caf"),
            Buffer.from([0xe9]),
            Buffer.from("\n"),
          ]),
        }),
      [/^GATES\.md:2: invalid UTF-8 at byte 25; a ledger must be UTF-8 text$/],
    );
  });

  test("an empty file has zero live gates", async () => {
    await expectRejected(ledger(""), [/^GATES\.md:1: ledger contains zero live gates$/]);
  });

  test("a 9 MiB file is refused before parsing", async () => {
    await expectRejected(ledger("- [ ] G1: t\n" + "y".repeat(9 * 1024 * 1024)), [
      /^GATES\.md:1: gate ledger exceeds 8388608 bytes$/,
    ]);
  });

  test("a directory named GATES.md is not a ledger", async () => {
    await expectRejected(
      (d) => fs.mkdirSync(path.join(d, "GATES.md")),
      [/^GATES\.md:1: gate ledger must be one unchanged regular single-link file$/],
    );
  });

  // A FIFO without a writer would hold a blocking open forever: an answer at all is the behaviour.
  test("a FIFO named GATES.md is refused without waiting for a writer", async () => {
    await expectRejected(
      (d) => execFileSync("mkfifo", [path.join(d, "GATES.md")]),
      [/^GATES\.md:1: gate ledger must be one unchanged regular single-link file$/],
    );
  });

  test("a symlink leaving the root is refused and the outside file is never printed", async () => {
    const outside = tempDir();
    writeTree(outside, { "secret.md": "- [ ] CANARY: outside data\n" });
    await expectRejected(
      (d) => fs.symlinkSync(path.join(outside, "secret.md"), path.join(d, "GATES.md")),
      [/^GATES\.md:1: gate ledger must be one unchanged regular single-link file$/],
    );
  });

  test("a hard-linked ledger is refused", async () => {
    await expectRejected(
      (d) => {
        writeTree(d, { "real.txt": "- [ ] G1: t\n" });
        fs.linkSync(path.join(d, "real.txt"), path.join(d, "GATES.md"));
      },
      [/^GATES\.md:1: gate ledger must be one unchanged regular single-link file$/],
    );
  });

  test("a symlinked gates/ directory is a discovery error", async () => {
    const outside = tempDir();
    writeTree(outside, { "x.md": "- [ ] CANARY: outside\n" });
    await expectRejected(
      (d) => fs.symlinkSync(outside, path.join(d, "gates")),
      [/^gates:1: gates directory must be a real directory inside the repository$/],
    );
  });

  test("every problem of every ledger is reported in one pass", async () => {
    await expectRejected(
      (d) => writeTree(d, { "GATES.md": "- [ ] G1:\n", "gates/b.md": "# none\n" }),
      [/^GATES\.md:1: gate G1 has a blank outcome$/, /^gates\/b\.md:1: ledger contains zero live gates$/],
    );
  });

  test("an explicit file that does not exist", async () => {
    await expectRejected(() => {}, [/^missing\.md:1: no such gate file$/], ["status", "missing.md"]);
  });
});

describe("bad flags", () => {
  for (const args of [
    ["status", "--nope"],
    ["status", "-x"],
    ["frobnicate"],
    ["status", "--root"],
    ["status", "--root="],
    ["status", "--scope", "a", "--scope", "b"],
    ["status", "--root", "/definitely/not/here"],
  ]) {
    test(`kbz ${args.join(" ")} is a usage error (exit 2) that writes nothing`, async () => {
      const dir = tempDir();
      writeTree(dir, { "GATES.md": "- [ ] G1: t\n" });
      const before = hashTree(dir);
      const r = await runCli(args, { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toStartWith("kbz: ");
      // The usage error names the page of the verb it was given to (issue 43), not kbz --help.
      expect(r.stderr).toMatch(/run kbz (status )?--help for /);
      expect(hashTree(dir)).toBe(before);
    });
  }
});
