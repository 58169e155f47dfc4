// The typed `kbz …` builder: it prints what it is given in order, quoted, and its table of verbs,
// actions and flags matches the real CLI (each verb's yargs options), so a renamed flag fails here.
import { describe, expect, test } from "bun:test";
import yargs from "yargs";
import { attached, kbz, optional, placeholder, VERB_FLAGS } from "../../../src/core/text/command.ts";
import type { Verb } from "../../../src/cli/index.ts";
import { TOP_HELP } from "../../../src/cli/help.ts";
import { runCli } from "../../helpers/cli.ts";

describe("kbz(): the one builder of printed kbz commands", () => {
  test("flags in the order given, values quoted, bare and repeated flags, placeholders as they are", () => {
    expect(kbz("advance", { scope: "api", leaf: "leaf-1" })).toBe("kbz advance --scope api --leaf leaf-1");
    expect(kbz("wave open", { scope: "api", wave: "w1", leaf: ["leaf-1", "leaf-2"] })).toBe(
      "kbz wave open --scope api --wave w1 --leaf leaf-1 --leaf leaf-2",
    );
    expect(kbz("scope release", { invalid: true })).toBe("kbz scope release --invalid");
    expect(kbz("check", { probe: true }, "my gates/GATES.md")).toBe("kbz check --probe 'my gates/GATES.md'");
    expect(kbz("wave start", { scope: "api", root: "/my repo", handle: placeholder("<agent handle>") })).toBe(
      "kbz wave start --scope api --root '/my repo' --handle <agent handle>",
    );
    expect(kbz("verify run")).toBe("kbz verify run");
  });

  test("positionals and flags interleave in the order given; optional and attached flags", () => {
    const ph = placeholder;
    expect(kbz("plan add", { scope: "api" }, ph("LEAF"), { owns: ph("GLOB"), needs: optional(ph("A,B")) })).toBe(
      "kbz plan add --scope api LEAF --owns GLOB [--needs A,B]",
    );
    expect(kbz("check", { approve: attached(ph("SIG")) })).toBe("kbz check --approve=SIG");
    expect(kbz("scope claim", { scope: optional(ph("S")), leaf: optional(ph("LEAF")) })).toBe(
      "kbz scope claim [--scope S] [--leaf LEAF]",
    );
    expect(kbz("lint", { strict: optional(true) })).toBe("kbz lint [--strict]");
    expect(kbz("sign", "it's.md", "G1", { evidence: "ran it; ok" })).toBe(
      `kbz sign 'it'\\''s.md' G1 --evidence 'ran it; ok'`,
    );
    expect(kbz("scope release", { scope: "x", coordinator: "files" })).toBe(
      "kbz scope release --scope x --coordinator files",
    );
  });

  test("every verb, action and flag of the table is one the CLI has (a renamed flag fails here)", async () => {
    expect(await tableProblems(VERB_FLAGS)).toEqual([]);
  }, 60_000);

  test("every verb kbz --help lists is in the table (suggestions name verbs from the CLI's own list)", () => {
    const listed = [...TOP_HELP.matchAll(/^  kbz ([a-z]+)/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(15);
    expect(listed.filter((v) => !(v in VERB_FLAGS))).toEqual([]);
  });

  test("the table check can fail: a renamed flag and an unknown action are found", async () => {
    expect(
      await tableProblems({
        "wave start": ["scope", "handles"],
        "wave launch": [],
        next: ["launch"],
        "approvals purge": [],
        lint: ["probe"],
      }),
    ).toEqual([
      "wave start: no flag --handles",
      "wave launch: kbz wave --help names no action launch",
      "approvals purge: kbz approvals --help names no action purge",
    ]);
  });
});

/** What in `table` the CLI does not have: each verb's yargs options and the actions its help names. */
async function tableProblems(table: Record<string, readonly string[]>): Promise<string[]> {
  const modules: Record<string, () => Promise<Verb>> = {
    dash: async () => (await import("../../../src/cli/dash.ts")).verb,
    demo: async () => (await import("../../../src/cli/dash.ts")).demoVerb,
  };
  const problems: string[] = [];
  for (const [entry, flags] of Object.entries(table)) {
    const [name, action] = entry.split(" ") as [string, string | undefined];
    const verb = await (modules[name] ?? (async () => (await import(`../../../src/cli/${name}.ts`)).verb as Verb))();
    if (String(verb.command).split(" ")[0] !== name) problems.push(`${entry}: the CLI has no verb ${name}`);
    const opts = (verb.builder(yargs([])) as any).getOptions();
    // coordinator is kbz's global option (cli/index.ts).
    const known = new Set<string>([
      "coordinator",
      ...Object.keys(opts.key ?? {}),
      ...Object.values((opts.alias ?? {}) as Record<string, string[]>).flat(),
    ]);
    for (const flag of flags) if (!known.has(flag)) problems.push(`${entry}: no flag --${flag}`);
    if (action !== undefined) {
      // The actions are the first words of the verb page's indented lines (`  add LEAF …`,
      // `  plan|apply --request F`), each with its own page (issue 43).
      const help = (await runCli([name, "--help"])).stdout;
      const named = help
        .split("\n")
        .filter((l) => /^ {2}[a-z]/.test(l))
        .flatMap((l) => l.trim().split(/\s/)[0]!.split("|"));
      if (!named.includes(action)) problems.push(`${entry}: kbz ${name} --help names no action ${action}`);
    }
  }
  return problems;
}
