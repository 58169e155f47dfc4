// One truth (issue 26; issue 27 item 8): `kbz next`, the dashboard's queue and the Stop hook
// read one scope through their ops and agree. The scope has a VERIFIED leaf whose INPUTS file
// changed after its pass (STALE) and a leaf whose pass a probe found VACUOUS. Before the facts
// were built by one op the queue said `verify-root` where `kbz next` said `review`.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixtureCopy, kbz, writeTree } from "../helpers/kbz.ts";
import { agentEnv, setApprovalPolicy } from "../helpers/approvals.ts";
import { gateDigest } from "../../src/core/ledger/digest.ts";
import { parseLedger } from "../../src/core/ledger/parse.ts";
import { adviseNext } from "../../src/core/schedule/advise.ts";
import { recordProbes } from "../../src/io/check/probeRecords.ts";
import { recordVacuity } from "../../src/io/run/attest.ts";
import { readScheduleFacts } from "../../src/ops/facts.ts";
import { loadPlanView } from "../../src/ops/dashboardPlan.ts";
import { hookStop } from "../../src/ops/hookStop.ts";
import { HOSTS } from "../../src/hook/hosts.ts";

const LEAF1 = ".unlazy/api/gates/leaf-1.md";
const LEAF3 = ".unlazy/api/gates/leaf-3.md";
const gate = (n: number, inputs = "") =>
  `OWNS: src/${n}/**\n\n- [ ] G1: leaf ${n} deliverable\n  CHECK: cat src/${n}/a.txt\n  EXPECT: ok\n${inputs}  EVIDENCE: pending\n`;

/**
 * `person`: the store is put under the person policy after kbz's passes, and the VACUOUS verdict is
 * kbz's record in the approval store (as `kbz check --probe` keeps it there), with no probe record
 * in the repository.
 */
async function scope(person = false): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = fs.realpathSync(fixtureCopy("next-golden"));
  const env = agentEnv();
  writeTree(dir, {
    [LEAF1]: gate(1, "  INPUTS: src/1/a.txt\n"),
    [LEAF3]: gate(3),
    "src/1/a.txt": "ok\n",
    "src/3/a.txt": "ok\n",
  });
  const r = kbz(["check", "--approve", LEAF1, LEAF3], { cwd: dir, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const plan = path.join(dir, ".unlazy/api/PLAN.md");
  fs.writeFileSync(
    plan,
    fs
      .readFileSync(plan, "utf8")
      .replace("| 1 | src/1/** | - | mechanical | 1 | READY |", "| 1 | src/1/** | - | mechanical | 1 | VERIFIED |"),
  );
  const g = parseLedger(fs.readFileSync(path.join(dir, LEAF3), "utf8"), "leaf-3").gates[0]!;
  if (person) {
    setApprovalPolicy(env.UNLAZY_APPROVAL_DIR!, "person");
    await recordVacuity(env.UNLAZY_APPROVAL_DIR!, dir, path.join(dir, LEAF3), {
      G1: { definition: gateDigest(g)!, oracle: "-", hidden: ["src/3"] },
    });
  } else {
    await recordProbes(dir, path.join(dir, LEAF3), {
      G1: {
        definition: gateDigest(g)!,
        evidence: g.evidence ?? "",
        verdict: "vacuous",
        hidden: [path.join(dir, "src/3")],
        signature: "test",
      },
    });
  }
  fs.writeFileSync(path.join(dir, "src/1/a.txt"), "ok, changed\n");
  return { dir, env };
}

/** `kbz next`, the dashboard's queue, the Stop hook and the CLI read the scope: one answer. */
async function oneAnswer(dir: string, env: Record<string, string>): Promise<void> {
  const saved = process.env.UNLAZY_APPROVAL_DIR;
  process.env.UNLAZY_APPROVAL_DIR = env.UNLAZY_APPROVAL_DIR; // the in-process readers read this store
  try {
    const next = adviseNext(readScheduleFacts({ root: dir, scope: "api", slots: 4, order: "natural", env }), {
      details: true,
    });
    const queue = loadPlanView(dir, "api", 4, [])!.advice!;
    const attention = (a: typeof next) =>
      a.attention.map((x) => `${x.leaf} ${x.reason}${"gate" in x ? ` ${x.gate}` : ""}`);
    expect(attention(next)).toEqual(["1 verified-ledger-not-met", "3 vacuous-gate G1"]);
    expect(next.action).toBe("review");
    expect([queue.action, attention(queue), queue.launch]).toEqual([next.action, attention(next), next.launch]);

    const stop = HOSTS.claude.read({ cwd: dir, session_id: "one-truth", hook_event_name: "Stop" }, env);
    const hook = await hookStop({ scope: "api", stop, env, cwd: dir });
    expect(hook && "decision" in hook ? hook.decision : hook).toBe("block");
    const reason = (hook as { reason: string }).reason;
    expect(reason).toContain("leaf-1:G1 STALE (input changed: src/1/a.txt)");
    expect(reason).toContain("leaf-3:G1 VACUOUS (its CHECK passed with its deliverable hidden: src/3;");
    // And the CLI agrees with its op.
    const cli = JSON.parse(kbz(["next", "--scope", "api", "--slots", "4", "--json"], { cwd: dir, env }).stdout);
    expect(
      cli.attention.map(
        (x: { leaf: string; reason: string; gate?: string }) => `${x.leaf} ${x.reason}${x.gate ? ` ${x.gate}` : ""}`,
      ),
    ).toEqual(attention(next));
    const status = kbz(["status", "--scope", "api", "--json"], { cwd: dir, env });
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout).gates.find((x: { qid: string }) => x.qid === "leaf-3:G1").state).toBe("vacuous");
  } finally {
    if (saved === undefined) delete process.env.UNLAZY_APPROVAL_DIR;
    else process.env.UNLAZY_APPROVAL_DIR = saved;
  }
}

describe("one truth", () => {
  test("a changed INPUTS file and a VACUOUS probe: kbz next, the dashboard's queue and the Stop hook give one answer", async () => {
    const { dir, env } = await scope();
    await oneAnswer(dir, env);
  });

  test("the same under the person policy, the VACUOUS verdict being kbz's record in the approval store", async () => {
    const { dir, env } = await scope(true);
    expect(fs.existsSync(path.join(dir, ".kbz", "probes"))).toBe(false);
    await oneAnswer(dir, env);
  });
});
