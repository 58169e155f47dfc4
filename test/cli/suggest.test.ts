// The nearest-word rule behind "did you mean" (src/cli/suggest.ts).
import { describe, expect, test } from "bun:test";
import { distance, nearest, suggestion } from "../../src/cli/suggest.ts";

describe("suggest", () => {
  test("distance counts a swap of neighbours as one edit", () => {
    expect(distance("statsu", "status")).toBe(1);
    expect(distance("stauts", "status")).toBe(1);
    expect(distance("chek", "check")).toBe(1);
    expect(distance("", "abc")).toBe(3);
  });
  test("nearest stays within a typo's reach and prefers the closest", () => {
    const verbs = ["status", "lint", "check", "scope", "sign", "init"];
    expect(nearest("statsu", verbs)).toBe("status");
    expect(nearest("lnit", verbs)).toBe("lint");
    expect(nearest("stat", verbs)).toBe("status");
    expect(nearest("deploy", verbs)).toBeNull();
    expect(nearest("status", verbs)).toBeNull();
  });
  test("messages it understands, and those it leaves alone", () => {
    const known = { verbs: ["status", "check"], options: ["json", "j", "scope"] };
    expect(suggestion("Unknown argument: chekc", ["chekc"], known)).toBe("did you mean kbz check?");
    expect(suggestion("Unknown argument: jsn", ["status", "--jsn"], known)).toBe("did you mean --json?");
    expect(suggestion("Unknown arguments: x, scoep", ["status", "x", "--scoep", "a"], known)).toBe(
      "did you mean --scope?",
    );
    expect(
      suggestion(
        'Invalid values:   Argument: action, Given: "lsit", Choices: "list", "revoke"',
        ["approvals", "lsit"],
        known,
      ),
    ).toBe("did you mean list?");
    expect(suggestion('unknown wave action "sael"; expected one of: open, start, seal', ["wave", "sael"], known)).toBe(
      "did you mean seal?",
    );
    expect(suggestion("Not enough arguments", [], known)).toBeNull();
  });
});
