// The typed `kbz …` builder: its table of verbs and flags matches the real CLI, and the files
// converted to it hand-build no `kbz VERB --flag` string.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, placeholder, VERB_FLAGS, type KbzVerb } from "../../../src/core/text/command.ts";
import { kbz as runKbz } from "../../helpers/kbz.ts";
import { SRC } from "../../helpers/sources.ts";

/** The files whose advice is built with kbz(): this list grows file by file. */
const CONVERTED = ["core/schedule/review-hints.ts", "core/plan/edit.ts"];

describe("kbz(): the one builder of printed kbz commands", () => {
  test("flags in the order given, values quoted, bare and repeated flags, placeholders as they are", () => {
    expect(kbz("advance", { scope: "api", leaf: "leaf-1" })).toBe("kbz advance --scope api --leaf leaf-1");
    expect(kbz("wave open", { scope: "api", wave: "w1", leaf: ["leaf-1", "leaf-2"] })).toBe("kbz wave open --scope api --wave w1 --leaf leaf-1 --leaf leaf-2");
    expect(kbz("scope release", { invalid: true })).toBe("kbz scope release --invalid");
    expect(kbz("check", { probe: true }, "my gates/GATES.md")).toBe("kbz check --probe 'my gates/GATES.md'");
    expect(kbz("wave start", { scope: "api", root: "/my repo", handle: placeholder("<agent handle>") })).toBe("kbz wave start --scope api --root '/my repo' --handle <agent handle>");
    expect(kbz("verify run")).toBe("kbz verify run");
  });

  test("every verb and flag of the table is one the CLI has (a renamed flag fails here)", () => {
    for (const verb of Object.keys(VERB_FLAGS) as KbzVerb[]) {
      const r = runKbz([...verb.split(" "), "--help"]);
      expect([verb, r.code]).toEqual([verb, 0]);
      for (const flag of VERB_FLAGS[verb]) expect([verb, flag, r.stdout.includes(`--${flag}`)]).toEqual([verb, flag, true]);
    }
  }, 60_000);

  test("a converted file builds no kbz command by hand", () => {
    const verbs = Object.keys(VERB_FLAGS).join("|");
    const handBuilt = new RegExp(`\\bkbz (${verbs})\\b[^\`"(]*(--|\\.md)`);
    for (const f of CONVERTED) {
      const lines = fs.readFileSync(path.join(SRC, f), "utf8").split("\n");
      expect([f, lines.filter((l) => !/^\s*(\/\/|\*)/.test(l) && handBuilt.test(l))]).toEqual([f, []]);
    }
  });
});
