// Issues 30 and 43, "long answers": an agent read help pages for 44 % of its bytes, two of them
// twice (`plan add --help` was `plan --help`, `verify run --help` was `verify --help`). Now every
// page is at most 800 B (the top level 1.2 KB), an action's page shows that action only, no two
// pages are equal, and every flag a page names works there. On the binary.
import { describe, expect, test } from "bun:test";
import { kbz, tempDir } from "../helpers/kbz.ts";

const TOP = 1200;
const PAGE = 800;

const top = kbz(["--help"]);
const verbs = [...top.stdout.matchAll(/^ {2}kbz ([a-z]+)/gm)].map((m) => m[1]!);

/** The actions a verb's page lists: its indented lines' first word (`  add LEAF …`, `  stop …`). */
function actionsOf(page: string): string[] {
  const listed = [...page.matchAll(/^ {2}([a-z]+)(?:\|[a-z|]+)?\b/gm)]
    .flatMap((m) => m[0]!.trim().split("|"))
    .filter((w) => w !== "kbz");
  return page.includes("ACTION --help") ? [...new Set(listed)] : [];
}

const pages: { args: string[]; text: string }[] = [{ args: [], text: top.stdout }];
for (const v of verbs) {
  const page = kbz([v, "--help"]).stdout;
  pages.push({ args: [v], text: page });
  for (const a of actionsOf(page)) pages.push({ args: [v, a], text: kbz([v, a, "--help"]).stdout });
}

describe("issue 43: help pages", () => {
  test("kbz --help is at most 1.2 KB, names every verb", () => {
    expect([top.code, top.stderr]).toEqual([0, ""]);
    expect(Buffer.byteLength(top.stdout)).toBeLessThanOrEqual(TOP);
    expect(verbs.length).toBeGreaterThan(15);
    expect(kbz(["-h"]).stdout).toBe(top.stdout);
  });

  test("every page is at most 800 B, the sub-verb pages included (plan add, verify run, structure regroup, hook stop …)", () => {
    const names = pages.map((p) => p.args.join(" "));
    for (const want of [
      "plan add",
      "plan set",
      "verify run",
      "structure regroup",
      "structure check",
      "hook stop",
      "hook install",
      "scope claim",
      "wave open",
      "approvals explain",
    ])
      expect(names).toContain(want);
    const big = pages
      .filter((p) => p.args.length > 0 && Buffer.byteLength(p.text) > PAGE)
      .map((p) => [p.args.join(" "), Buffer.byteLength(p.text)]);
    expect(big).toEqual([]);
    for (const p of pages) expect([p.args.join(" "), p.text.length > 40]).toEqual([p.args.join(" "), true]);
  });

  test("no two pages are equal: an action's page shows that action, not its verb's (plan add --help was plan --help)", () => {
    const seen = new Map<string, string>();
    const same: string[] = [];
    for (const p of pages) {
      const was = seen.get(p.text);
      if (was !== undefined) same.push(`${p.args.join(" ")} = ${was}`);
      seen.set(p.text, p.args.join(" "));
    }
    expect(same).toEqual([]);
    // An action's page starts with its own usage line.
    for (const p of pages.filter((x) => x.args.length === 2)) expect(p.text).toStartWith(`kbz ${p.args.join(" ")}`);
  });

  test("hook stop --help shows an example payload and the answers", () => {
    const page = kbz(["hook", "stop", "--help"]).stdout;
    expect(page).toContain('{"session_id":"s1","cwd":"/repo","hook_event_name":"Stop","stop_hook_active":false}');
    expect(page).toContain('{"decision":"block","reason":');
  });

  test("every flag a page lists works there: never an unknown option (structure check --details was one)", () => {
    const dir = tempDir("kbz-help-flags-");
    const unknown: string[] = [];
    for (const p of pages.filter((x) => x.args.length > 0)) {
      // A flag named after another verb (`next --launch`, `check --reverify`) is that verb's.
      let own = p.text;
      for (const v of verbs.filter((x) => x !== p.args[0]))
        own = own.replace(new RegExp(`\\b${v}( [a-z]+)? --[a-z-]+`, "g"), "");
      const flags = new Set([...own.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!));
      for (const f of flags) {
        // --help with the flag: yargs validates the flag's name; the page is printed, nothing runs.
        const r = kbz([...p.args, `--${f}`, "--json"], { cwd: dir, env: { HOME: dir } });
        if (/Unknown argument|unknown or duplicate option/i.test(r.stdout + r.stderr))
          unknown.push(`${p.args.join(" ")} --${f}`);
      }
    }
    expect(unknown).toEqual([]);
  }, 300_000);
});
