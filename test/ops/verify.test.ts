// ops/verify.ts: the receipt policy a `kbz verify run` binds when --inputs is not given.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixtureCopy } from "../helpers/kbz.ts";
import { verifyLedgers, verifyPolicy } from "../../src/ops/verify.ts";

const LEAF2 = ".unlazy/web/gates/leaf-2.md";
const defaults = { env: [], closed: false, portable: false };

describe("verify's default inputs", () => {
  test("a scope leaf binds its OWNS and the reads its ACCESS.json declares, read by the scheduler's one ACCESS parser", () => {
    const root = fixtureCopy("dash-scope");
    expect(verifyPolicy(root, [LEAF2], defaults)).toEqual({ inputs: ["web/a", "web/b"], env: [], closed: false });
  });

  test("an ACCESS.json the scheduler refuses (revision not PLAN's) adds no reads: OWNS alone", () => {
    const root = fixtureCopy("dash-scope");
    const file = path.join(root, ".unlazy/web/ACCESS.json");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"contractRevision": 1', '"contractRevision": 2'));
    expect(verifyPolicy(root, [LEAF2], defaults).inputs).toEqual(["web/b"]);
    fs.writeFileSync(file, "{ not json");
    expect(verifyPolicy(root, [LEAF2], defaults).inputs).toEqual(["web/b"]);
  });

  test("--inputs, --env, --closed and --portable are taken as given, sorted and unique", () => {
    const root = fixtureCopy("dash-scope");
    expect(
      verifyPolicy(root, [LEAF2], { inputs: ["z", "a", "z"], env: ["B", "A"], closed: true, portable: true }),
    ).toEqual({ inputs: ["a", "z"], env: ["A", "B"], closed: true, portable: true });
  });

  test("the same ledger twice is a usage error", () => {
    const root = fixtureCopy("dash-scope");
    expect(() => verifyLedgers(root, [LEAF2, LEAF2])).toThrow("unique explicit ledgers required");
    expect(() => verifyLedgers(root, [])).toThrow("unique explicit ledgers required");
  });
});
