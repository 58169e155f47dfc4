// Issue 30, problem "Root verification takes four calls": `check --scope S --reverify` stopped for
// approval, then failed S_STRUCTURE on the unsigned manual N2 that `kbz init --scope` creates, and
// neither the skill nor the VERIFY-ROOT advice said to sign it first. On the binary.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { flowRepo, leafGates, type FlowRepo } from "../helpers/flow.ts";
import { REPO } from "../helpers/kbz.ts";

setDefaultTimeout(120_000);

let repo: FlowRepo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

/** A scope of two independent leaves driven to verify-root through kbz verbs, with a regroup applied (S_STRUCTURE). */
function verifiedScope(): FlowRepo {
  const r = (repo = flowRepo("kbz-root-"));
  const ok = (args: string[]) => {
    const x = r.run(args);
    expect([args.join(" "), x.code, x.stderr]).toEqual([args.join(" "), 0, expect.anything()]);
    return x;
  };
  ok(["init", "--scope", "S"]);
  for (const [id, dir] of [
    ["1.1", "a"],
    ["1.2", "b"],
  ] as const) {
    ok(["plan", "add", "--scope", "S", id, "--owns", `src/${dir}/**`]);
    r.write(`.unlazy/S/gates/leaf-${id}.md`, leafGates(id, `src/${dir}/**`, `src/${dir}/done.txt`));
  }
  ok(["scope", "claim", "--scope", "S", "--leaf", "leaf-1.1"]);
  ok(["scope", "claim", "--scope", "S", "--leaf", "leaf-1.2"]);
  ok(["wave", "open", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1.1", "--leaf", "leaf-1.2"]);
  ok(["wave", "start", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1.1", "--handle", "agent-1"]);
  ok(["wave", "start", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1.2", "--handle", "agent-2"]);
  ok(["wave", "seal", "--scope", "S", "--wave", "w1"]);
  r.write("src/a/done.txt", "a\n");
  r.write("src/b/done.txt", "b\n");
  ok(["advance", "--scope", "S", "--leaf", "1.1", "--approve"]);
  ok(["advance", "--scope", "S", "--leaf", "1.2", "--approve"]);
  // A structure event (here: regroup the verified leaves) adds S_STRUCTURE to the root ledger.
  r.write("regroup.json", JSON.stringify({ schema: 1, operation: "regroup-1", contractRevision: 1, refinements: {} }));
  ok(["structure", "apply", "--scope", "S", "--request", "regroup.json"]);
  expect(r.read(".unlazy/S/GATES.md")).toContain("S_STRUCTURE");
  return r;
}

describe("root verification takes four calls", () => {
  test("VERIFY-ROOT names the manual gates a person signs first, then one kbz check --scope S --reverify reaches ALL MET", () => {
    const r = verifiedScope();
    const next = r.run(["next", "--scope", "S"]);
    expect(next.code).toBe(0);
    const [person, closing] = next.stdout.trim().split("\n").slice(-2);
    expect(closing).toStartWith(
      "VERIFY-ROOT: every task is VERIFIED: once the person signed, run kbz check --scope S --reverify",
    );
    // What waits for the person is one line the agent shows them (issue 43).
    expect(person).toBe('PERSON: 1 sign-off (N2); in their terminal: kbz sign .unlazy/S/GATES.md N2 --evidence "..."');
    const json = JSON.parse(r.run(["next", "--scope", "S", "--json"]).stdout);
    expect(json.signFirst).toEqual([
      {
        ledger: ".unlazy/S/GATES.md",
        gate: "N2",
        title: "the final report matches the current contract inventory in PLAN.md",
      },
    ]);
    // The person signs (this store is under the agent policy, so the test may act for them).
    expect(r.run(["sign", ".unlazy/S/GATES.md", "N2", "--evidence", "report reconciled with the inventory"]).code).toBe(
      0,
    );
    expect(JSON.parse(r.run(["next", "--scope", "S", "--json"]).stdout).signFirst).toBeUndefined();
    // One call: N1 and S_STRUCTURE run (approved in the same call, as the agent policy allows),
    // S_STRUCTURE after N1 was written back.
    const before = r.log.length;
    const check = r.run(["check", "--scope", "S", "--reverify", "--approve"]);
    expect([check.code, check.stdout]).toEqual([0, expect.stringContaining("ALL MET")]);
    expect(r.log.length - before).toBe(1);
    expect(r.run(["status", "--scope", "S"]).code).toBe(0);
  }, 120_000);

  test("the skill's verify-root step says to have the manual root gates signed before the one check", () => {
    const skill = fs.readFileSync(path.join(REPO, "skill", "SKILL.md"), "utf8").replace(/\s+/g, " ");
    expect(skill).toMatch(/verify-root.*sign.*N2.*kbz check --scope S --reverify/);
  });
});
