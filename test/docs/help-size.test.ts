// Issue 30, "long answers": `kbz --help` 3.9 KB, `structure --help` 2.9 KB, `hook --help` 1.8 KB.
// An agent knows kbz through --help: the top level stays within 1.5 KB and each verb within 1.2 KB,
// with examples over prose (the long reference is docs/commands.md).
import { describe, expect, test } from "bun:test";
import { kbz } from "../helpers/kbz.ts";

const TOP = 1536;
const VERB = 1229;

describe("issue 30: long answers, --help", () => {
  const top = kbz(["--help"]);
  const verbs = [...top.stdout.matchAll(/^ {2}kbz ([a-z]+)/gm)].map((m) => m[1]!);

  test("long answers: kbz --help is at most 1.5 KB, names every verb and the two-call leaf loop", () => {
    expect([top.code, top.stderr]).toEqual([0, ""]);
    expect(Buffer.byteLength(top.stdout)).toBeLessThanOrEqual(TOP);
    expect(verbs.length).toBeGreaterThan(15);
    expect(top.stdout).toContain("kbz next --scope S --launch");
    expect(top.stdout).toContain("kbz advance --scope S --leaf ID");
    expect(kbz(["-h"]).stdout).toBe(top.stdout);
  });

  test("long answers: each verb's --help is at most 1.2 KB (hook stop's payload reference too)", () => {
    const sizes = [...verbs.map((v) => [v]), ["hook", "stop"]].map((args) => {
      const r = kbz([...args, "--help"]);
      expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
      return [args.join(" "), Buffer.byteLength(r.stdout)] as const;
    });
    expect(sizes.filter(([, n]) => n > VERB)).toEqual([]);
  });
});
