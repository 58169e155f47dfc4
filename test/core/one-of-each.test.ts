// Issue 26, "one of each": each rule below has one definition in src/. These tests read the
// sources as text and fail, naming the files, when a second copy comes back.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { sources, SRC } from "../helpers/sources.ts";

const TEXT = new Map(
  sources().map((f) => [path.relative(SRC, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8")]),
);

/** The files (relative to src/) whose text matches `re`, with the count of matches. */
export function filesMatching(re: RegExp, files: Map<string, string> = TEXT): string[] {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g");
  const out: string[] = [];
  for (const [f, text] of files) {
    const n = [...text.matchAll(g)].length;
    for (let i = 0; i < n; i++) out.push(f);
  }
  return out.sort();
}

describe("one of each (issue 26)", () => {
  test("the checker finds a second copy (it can fail)", () => {
    const fake = new Map([
      ["a.ts", "export const DEFAULT_SLOTS = 4;"],
      ["b.ts", "const DEFAULT_SLOTS = 4;"],
    ]);
    expect(filesMatching(/\bDEFAULT_SLOTS\s*=/, fake)).toEqual(["a.ts", "b.ts"]);
  });

  test("one slot default: DEFAULT_SLOTS in ops/next.ts, and no literal default in help texts", () => {
    expect(filesMatching(/\b[A-Z_]*SLOTS\s*=\s*\d/)).toEqual(["demo/scope.ts", "ops/next.ts"]); // the demo's own 3 is the demo's plan
    expect(filesMatching(/slots[^\n]*\(default \d/i)).toEqual([]);
    expect(filesMatching(/slots\s*\?\?\s*\d/)).toEqual([]);
  });

  test("one gate-label table: GATE_LABEL in core/ledger/state.ts", () => {
    expect(filesMatching(/"unmet-no-evidence":\s*"NO-EVIDENCE"/)).toEqual(["core/ledger/state.ts"]);
    expect(filesMatching(/\bstale-unmet"?:\s*"STALE"/)).toEqual(["core/ledger/state.ts"]);
  });

  test("one quoting function: shellQuote in core/text/shell.ts", () => {
    expect(filesMatching(/replace\(\/'\/g/)).toEqual(["core/text/shell.ts"]);
    expect(filesMatching(/'\\\\''/)).toEqual(["core/text/shell.ts"]);
  });

  test("one integer-flag parser: parseInteger in core/text/integer.ts; no verb parses digits itself", () => {
    const digitRule = /\^\[0-9\]\+\$|\^\[1-9\]\[0-9\]\*\$|\^\\d\+\$|\^\(0\|\[1-9\]/;
    // core/plan/table.ts reads PLAN.md's wave column (a file format, not a flag).
    expect(filesMatching(digitRule)).toEqual(["core/plan/table.ts", "core/text/integer.ts"]);
    expect(filesMatching(/(Number|parseInt|parseFloat)\(\s*(String\()?argv\b/)).toEqual([]);
    expect(filesMatching(/Number\.is(Safe)?Integer\(\s*argv\b/)).toEqual([]);
    expect(filesMatching(/type:\s*"number"/)).toEqual([]); // yargs' own number parsing would be a second rule
  });

  test("one reader and writer of gate record files: io/recordFiles.ts", () => {
    // io/run/attest.ts and io/check/attested.ts keep their own: attestations are MACed personal files (issue 27), their owner's to fold in.
    expect(filesMatching(/typeof v\??\.gates/)).toEqual(["io/recordFiles.ts", "io/run/attest.ts"]);
    expect(filesMatching(/sha256Hex\([^)]*\)\.slice\(0, 24\)\}\.json/)).toEqual(["io/recordFiles.ts"]);
    expect(filesMatching(/function realOf\(/)).toEqual([
      "io/check/attested.ts",
      "io/recordFiles.ts",
      "io/run/attest.ts",
    ]);
  });

  test("one reader of .kbz/settings.json: io/settings.ts", () => {
    expect(filesMatching(/"\.kbz", "settings\.json"/)).toEqual(["io/settings.ts"]);
    expect(filesMatching(/\bSETTINGS?_FILE\s*=/)).toEqual(["io/settings.ts"]);
  });

  test("one spelling of leaf ids: `leaf-<id>`, its ledger name and the prefix live in core/plan/leaf-id.ts", () => {
    // leafStem, leafLedgerName, leafIdOf, taskId, isLeafLedger, leafOfLedger: nothing spells them by hand.
    expect(filesMatching(/leaf-\$\{/)).toEqual([]);
    expect(filesMatching(/"leaf-"/)).toEqual(["core/plan/leaf-id.ts"]);
    expect(filesMatching(/startsWith\(["'`]leaf-/)).toEqual([]);
    expect(filesMatching(/\^leaf-\(/)).toEqual([]);
  });

  test("one lookup of a program on PATH: io/program.ts findProgram", () => {
    expect(filesMatching(/for \(const \w+ of \([^)]*PATH[^)]*\)\.split\(/)).toEqual([]);
    expect(filesMatching(/envValue\(env, "PATH"/)).toEqual(["io/program.ts"]);
    expect(filesMatching(/\.COM;\.EXE/)).toEqual(["io/program.ts"]);
  });
});
