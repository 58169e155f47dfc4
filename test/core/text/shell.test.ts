import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { shellQuote, shellWords } from "../../../src/core/text/shell.ts";

describe("shellQuote: the one quoting function", () => {
  test("plain words stay bare; anything else is single-quoted", () => {
    expect(shellQuote("/repo/a-b_c.d")).toBe("/repo/a-b_c.d");
    expect(shellQuote("a,b=c:d@e%f+g")).toBe("a,b=c:d@e%f+g");
    expect(shellQuote("my repo")).toBe("'my repo'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
  });
  test("sh reads each quoted word back unchanged, and shellWords splits it as sh does", () => {
    const words = ["plain", "two words", "it's", "$HOME", "`x`", 'a"b', "back\\slash", "new\nline", "*", ""];
    const r = spawnSync("sh", ["-c", `printf '%s\\0' ${words.map(shellQuote).join(" ")}`], { encoding: "utf8" });
    expect(r.stdout.split("\0").slice(0, -1)).toEqual(words);
    expect(
      shellWords(
        words
          .filter((w) => w !== "")
          .map(shellQuote)
          .join(" "),
      ),
    ).toEqual(words.filter((w) => w !== ""));
  });
});
