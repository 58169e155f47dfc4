// scripts/light-format.ts returns what node:util's format returns for every message yargs formats.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { format as nodeFormat } from "node:util";
import { format } from "../../scripts/light-format.ts";

const ROOT = path.resolve(import.meta.dir, "../..");

test("every yargs message (en locale) formats as util.format formats it, with fewer, as many and more arguments", () => {
  const locale = JSON.parse(readFileSync(path.join(ROOT, "node_modules/yargs/locales/en.json"), "utf8")) as Record<
    string,
    string | { one: string; other: string }
  >;
  const messages = Object.values(locale).flatMap((m) => (typeof m === "string" ? [m] : [m.one, m.other]));
  expect(messages.length).toBeGreaterThan(20);
  for (const m of messages) {
    for (const args of [[], ["a"], ["--x", "y z"], ["1", "2", "3", "4"], ["%s", "%%"]])
      expect(format(m, ...args)).toBe(nodeFormat(m, ...args));
  }
});

test("placeholders and arguments of every other kind give util.format's result", () => {
  const cases: unknown[][] = [
    ["100%"],
    ["100%", "x"],
    ["%%"],
    ["%%", "x"],
    ["%% %s", "a"],
    ["%%s", "a"],
    ["%s%s%s", "a"],
    ["%d items", "5"],
    ["%d items", 5],
    ["%j", { a: 1 }],
    ["%o %O", [1], { b: 2 }],
    ["%c", "color: red"],
    ["%s", { a: 1 }],
    [{ a: 1 }, "x"],
    [42],
    ["% s", "x"],
    ["a", "b", 3],
  ];
  for (const c of cases) expect(format(...(c as [unknown, ...unknown[]]))).toBe(nodeFormat(...c));
});
