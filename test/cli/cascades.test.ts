// Issue 30, problem "Cascades": one added comment in src/parse.js made `kbz next` list five REVIEW
// items (four leaves whose INPUTS changed, plus a receipt), each cleared by its own command. Now
// next groups them under their cause and one `kbz check --scope S --stale` refreshes them. On the binary.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { flowRepo, type FlowRepo } from "../helpers/flow.ts";

setDefaultTimeout(180_000);

let repo: FlowRepo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

const LEAVES = ["1.1", "1.2", "1.3", "1.4"];

/** Four VERIFIED leaves whose gates read src/parse.js, and a closed receipt for leaf 1.1. */
function cascadeScope(): FlowRepo {
  const r = (repo = flowRepo("kbz-cascade-"));
  const ok = (args: string[]) => {
    const x = r.run(args);
    expect([args.join(" "), x.code]).toEqual([args.join(" "), 0]);
    return x;
  };
  r.write("src/parse.js", "export const parse = (s) => s.split(',');\n");
  ok(["init", "--scope", "S"]);
  for (const id of LEAVES) {
    const d = id.replace(".", "_");
    ok(["plan", "add", "--scope", "S", id, "--owns", `src/l${d}/**`, "--reads", "src/parse.js"]);
    r.write(
      `.unlazy/S/gates/leaf-${id}.md`,
      `# Gates: leaf ${id}\nOWNS: src/l${d}/**\n\n- [ ] G1: leaf ${id} uses the parser\n  CHECK: grep -q split src/parse.js && test -f src/l${d}/out.txt && echo LEAF_${d}_OK\n  EXPECT: LEAF_${d}_OK\n  INPUTS: src/parse.js, src/l${d}/out.txt\n  EVIDENCE: pending\n`,
    );
    r.write(`src/l${d}/out.txt`, `${id}\n`);
  }
  for (const id of LEAVES) ok(["scope", "claim", "--scope", "S", "--leaf", `leaf-${id}`]);
  ok(["wave", "open", "--scope", "S", "--wave", "w1", ...LEAVES.flatMap((id) => ["--leaf", `leaf-${id}`])]);
  for (const id of LEAVES)
    ok(["wave", "start", "--scope", "S", "--wave", "w1", "--leaf", `leaf-${id}`, "--handle", `agent-${id}`]);
  ok(["wave", "seal", "--scope", "S", "--wave", "w1"]);
  for (const id of LEAVES) ok(["advance", "--scope", "S", "--leaf", id, "--approve"]);
  ok(["verify", "run", "--closed", "--approve", "--inputs", "src/parse.js,src/l1_1", ".unlazy/S/gates/leaf-1.1.md"]);
  expect(r.run(["next", "--scope", "S"]).stdout).toContain("VERIFY-ROOT");
  return r;
}

describe("cascades", () => {
  test("one added comment in src/parse.js: kbz next groups the cascade under its cause, and one kbz check --scope S --stale refreshes every stale gate and receipt", () => {
    const r = cascadeScope();
    r.write("src/parse.js", "// a comment\nexport const parse = (s) => s.split(',');\n");
    const next = r.run(["next", "--scope", "S"]);
    expect(next.code).toBe(1);
    expect(next.stdout).toContain("src/parse.js changed: 4 gates, 1 receipt");
    // One command for the whole cascade, not one per item.
    expect(next.stdout.match(/kbz check --scope S --stale/g)).toHaveLength(1);
    expect(next.stdout).not.toContain("kbz verify explain");
    const json = JSON.parse(r.run(["next", "--scope", "S", "--json"]).stdout);
    expect(json.cascades).toEqual([
      { cause: "src/parse.js", gates: 4, receipts: 1, leaves: LEAVES, next: "kbz check --scope S --stale" },
    ]);

    const before = r.log.length;
    const refresh = r.run(["check", "--scope", "S", "--stale"]);
    expect([refresh.code, refresh.stdout]).toEqual([0, expect.stringContaining("refreshed 4 gates, 1 receipt")]);
    expect(r.log.length - before).toBe(1);
    const after = r.run(["next", "--scope", "S"]);
    expect([after.code, after.stdout]).toEqual([0, expect.stringContaining("VERIFY-ROOT")]);
    expect(r.run(["verify", "audit", ".unlazy/S/gates/leaf-1.1.md"]).code).toBe(0);
  });

  test("kbz check --stale with nothing stale runs nothing and says so", () => {
    const r = cascadeScope();
    const refresh = r.run(["check", "--scope", "S", "--stale"]);
    expect([refresh.code, refresh.stdout.trim()]).toEqual([0, "nothing stale in scope S"]);
  });
});
