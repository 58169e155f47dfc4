// `kbz next` and the vacuity probe (issue 18): a leaf whose ledger has a gate the last
// `kbz check --probe` found VACUOUS is a review item (`vacuous-gate`), read from the probe store
// with the same reader status and the Stop hook use (core/trace.ts gateVerdicts).
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixtureCopy, kbz, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { runCli } from "../helpers/cli.ts";
import { gateDigest } from "../../src/core/ledger/digest.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import { PROBES_DIR, recordProbes } from "../../src/io/check/probeRecords.ts";

const LEAF1 = ".unlazy/api/gates/leaf-1.md";
const PENDING = "OWNS: src/1/**\n\n- [ ] G1: leaf 1 deliverable\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: pending\n";

/** The golden scope with leaf 1's runnable gate passed by kbz check (its ledger text returned). */
function passed(): { dir: string; met: string } {
  const dir = fixtureCopy("next-golden");
  writeTree(dir, { [LEAF1]: PENDING });
  const r = kbz(["check", "--approve", LEAF1], { cwd: dir, env: agentEnv() });
  expect(r.code).toBe(0);
  return { dir, met: fs.readFileSync(path.join(dir, LEAF1), "utf8") };
}

/** ...and a probe record for that pass, in the store runProbes writes; then `edit` the ledger. */
async function probed(verdict: "vacuous" | "observes", edit = (t: string) => t, { dir, met } = passed()) {
  const file = path.join(dir, LEAF1);
  const g = parseLedger(met, "leaf-1").gates[0]!;
  await recordProbes(dir, file, {
    G1: {
      definition: gateDigest(g)!,
      evidence: g.evidence ?? "",
      verdict,
      hidden: [path.join(fs.realpathSync(dir), "src/1")],
      signature: "test",
    },
  });
  fs.writeFileSync(file, edit(met));
  return dir;
}

const next = (dir: string, extra: string[] = []) =>
  runCli(["next", "--scope", "api", "--slots", "4", ...extra], { cwd: dir });

describe("kbz next: vacuous-gate review item", () => {
  test("a leaf whose gate the last probe found VACUOUS is a vacuous-gate review item naming the gate and what was hidden", async () => {
    const dir = await probed("vacuous");
    const r = await next(dir, ["--json"]);
    expect(r.code).toBe(1);
    const o = JSON.parse(r.stdout);
    expect(o.action).toBe("review");
    expect(o.attention).toEqual([{ leaf: "1", reason: "vacuous-gate", gate: "G1", hidden: ["src/1"] }]);
    expect(o.launch).toEqual([]);
    expect(o.reviewHints).toEqual([
      "leaf-1's gate G1 still passed with src/1 hidden: re-write its CHECK so it observes its deliverable, then kbz check --probe .unlazy/api/gates/leaf-1.md again",
    ]);
    const text = await next(dir);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "  vacuous-gate 1 gate G1: concerns 1\n    next: leaf-1's gate G1 still passed with src/1 hidden",
    );
  });

  test("vacuous-gate: a probe that observed its deliverable, or a record the gate has outgrown, adds nothing (next --json byte-identical)", async () => {
    const plain = passed();
    expect(fs.existsSync(path.join(plain.dir, PROBES_DIR))).toBe(false);
    const base = (await next(plain.dir, ["--json"])).stdout;
    expect(JSON.parse(base).attention).toEqual([]);
    await probed("observes", undefined, plain);
    expect(fs.existsSync(path.join(plain.dir, PROBES_DIR))).toBe(true);
    expect((await next(plain.dir, ["--json"])).stdout).toBe(base);
    // The definition changed since the probe: the record no longer speaks for the gate.
    const outgrown = await probed("vacuous", (t) => t.replace("CHECK: echo ok", "CHECK: echo  ok"));
    expect(JSON.parse((await next(outgrown, ["--json"])).stdout).attention).toEqual([]);
    // A gate no longer met is unmet work, not a vacuous pass.
    const reopened = await probed("vacuous", (t) => t.replace(/EVIDENCE: .*/, "EVIDENCE: pending"));
    expect(JSON.parse((await next(reopened, ["--json"])).stdout).attention).toEqual([]);
  });
});
