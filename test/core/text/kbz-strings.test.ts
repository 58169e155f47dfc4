// Issue 26: every `kbz …` command kbz prints is built with core/text/command.ts kbz(), so a renamed
// verb or flag cannot leave stale advice. This test reads src/ as TypeScript syntax trees and fails
// on string text (a literal, a template's text, JSX text) that spells `kbz VERB` by hand.
// An exception needs a comment above its statement (or property) saying why, with the words
// "hand-written kbz commands:"; the flags such text names are still checked against the table.
// KNOWN lists the files not converted yet: it may only shrink.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { handBuilt, unknownFlags } from "../../helpers/kbzStrings.ts";
import { sources, SRC } from "../../helpers/sources.ts";

const KNOWN = new Set<string>([
  "cli/advance.ts",
  "cli/approvals.ts",
  "cli/approve.ts",
  "cli/check.ts",
  "cli/context.ts",
  "cli/coordinator.ts",
  "cli/dash.ts",
  "cli/dashboard.ts",
  "cli/demo.ts",
  "cli/doctor.ts",
  "cli/help.ts",
  "cli/hook.ts",
  "cli/index.ts",
  "cli/init.ts",
  "cli/lint.ts",
  "cli/next.ts",
  "cli/nextText.ts",
  "cli/pipeline.ts",
  "cli/plan.ts",
  "cli/render.ts",
  "cli/scope.ts",
  "cli/sign.ts",
  "cli/skill.ts",
  "cli/structure.ts",
  "cli/verify.ts",
  "cli/wave.ts",
  "demo/driver.ts",
  "hook/help.ts",
  "hook/install-fallback.ts",
  "io/check/attested.ts",
  "io/check/chain.ts",
  "io/check/run.ts",
  "io/check/writeback.ts",
  "io/hook/doctor.ts",
  "io/hook/plugin.ts",
  "io/hook/shim.ts",
  "io/hook/status.ts",
  "io/plan/write.ts",
  "io/read.ts",
  "io/receipts/explain.ts",
  "io/root.ts",
  "io/coordination/etcd/client.ts",
  "io/coordination/move.ts",
  "ops/approve.ts",
  "ops/init.ts",
  "ops/launch.ts",
  "ops/refresh.ts",
  "ops/sign.ts",
  "ops/verify.ts",
  "tui/gateDetail.ts",
  "tui/keys.ts",
  "tui/panels/Approvals.tsx",
  "tui/panels/Gates.tsx",
  "tui/panels/Graph.tsx",
  "tui/panels/Queue.tsx",
]);

describe("no hand-built kbz command in src/ (issue 26)", () => {
  test("the scan finds a hand-built command in a literal, a template and JSX, and honours a marked exception", () => {
    const src = [
      `const a = "run kbz check --reverify";`,
      "const b = `kbz advance --scope ${s} --leaf L`;",
      `const c = <Text>kbz next says</Text>;`,
      `const d = \`run \${kbz("check", { reverify: true })}\`;`,
      `// kbz status in a comment is not text`,
      `// Hand-written kbz commands: help text in columns.`,
      `const e = "kbz wave open    --scope S --wave W";`,
      `const f = "kbz: warning: the kbz status line is ours";`,
    ].join("\n");
    const r = handBuilt("a.tsx", src);
    expect(r.hand.map((f) => f.line)).toEqual([1, 2, 3, 8]);
    expect(r.marked.map((f) => f.line)).toEqual([7]);
  });

  test("exception text is still held to the table: an unknown flag or action flag is named", () => {
    expect(unknownFlags("kbz wave open    --scope S --wave W --leaf L [--leaf L ...]\n  kbz wave seal --scope S --leaf L")).toEqual(["kbz wave seal --leaf"]);
    expect(unknownFlags("run kbz check --reverify first, then kbz check --probes")).toEqual(["kbz check --probes"]);
    expect(unknownFlags("kbz hook stop [--agent HOST] < payload.json")).toEqual([]);
  });

  test("src/ builds every kbz command with kbz() (beyond the known list, which holds only files still to convert)", () => {
    const hand: string[] = [];
    const wrong: string[] = [];
    const unconverted = new Set<string>();
    for (const f of sources()) {
      const rel = path.relative(SRC, f).split(path.sep).join("/");
      const r = handBuilt(rel, fs.readFileSync(f, "utf8"));
      if (r.hand.length > 0) unconverted.add(rel);
      if (!KNOWN.has(rel)) hand.push(...r.hand.map((x) => `${x.file}:${x.line}: ${x.text.slice(0, 120)}`));
      for (const m of r.marked) wrong.push(...unknownFlags(m.text).map((p) => `${m.file}:${m.line}: ${p}`));
    }
    expect(hand).toEqual([]);
    expect(wrong).toEqual([]);
    expect([...KNOWN].filter((k) => !unconverted.has(k))).toEqual([]);
  }, 60_000);
});
