// Issue 20.2 (state transitions by kbz) and 20.3 (scaffolding that validates).
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { flowRepoInProcess, leafGates, type InProcessFlowRepo } from "../../helpers/flow.ts";

setDefaultTimeout(60_000);
const repos: InProcessFlowRepo[] = [];
afterAll(() => repos.forEach((r) => r.cleanup()));
const repo = () => {
  const r = flowRepoInProcess();
  repos.push(r);
  return r;
};
const row = (r: InProcessFlowRepo, id: string) =>
  r
    .read(".unlazy/S/PLAN.md")
    .split("\n")
    .find((l) => l.startsWith(`| ${id} |`));

describe("issue 20.3: scaffolding validates", () => {
  test("init --scope then next: no validation failure, one line saying how to add the first leaf", async () => {
    const r = repo();
    expect((await r.run(["init", "--scope", "S"])).code).toBe(0);
    const n = await r.run(["next", "--scope", "S", "--slots", "2"]);
    expect([n.code, n.stdout]).toEqual([
      1,
      "REVIEW: scope S has no leaves yet: add leaves with kbz plan add --scope S LEAF --owns GLOB [--needs A,B]\n",
    ]);
    expect(JSON.parse((await r.run(["next", "--scope", "S", "--slots", "2", "--json"])).stdout)).toMatchObject({
      schema: 1,
      exit: 1,
      action: "review",
    });
  });

  test("plan add writes the PLAN row, the ACCESS entry and the leaf ledger consistently; next passes at once", async () => {
    const r = repo();
    await r.run(["init", "--scope", "S"]);
    expect((await r.run(["plan", "add", "--scope", "S", "1.1", "--owns", "src/a/**"])).stdout).toBe(
      "ADDED leaf-1.1 (wave 1, READY); write its gates in .unlazy/S/gates/leaf-1.1.md\n",
    );
    expect(
      (
        await r.run([
          "plan",
          "add",
          "leaf-2.1",
          "--owns",
          "src/b/**,test/b/**",
          "--needs",
          "1.1",
          "--reads",
          "src/a/**",
          "--resource-writes",
          "db:test",
        ])
      ).code,
    ).toBe(0);
    expect(row(r, "2.1")).toBe("| 2.1 | src/b/**, test/b/** | 1.1 | judgment | 2 | WAITING |");
    expect(JSON.parse(r.read(".unlazy/S/ACCESS.json")).leaves["2.1"]).toEqual({
      complete: true,
      reads: ["src/a/**"],
      resourceReads: [],
      resourceWrites: ["db:test"],
    });
    expect(r.read(".unlazy/S/gates/leaf-2.1.md")).toContain("OWNS: src/b/**, test/b/**\n");
    const n = await r.run(["next", "--scope", "S", "--slots", "2"]);
    expect(n.code).toBe(0);
    expect(n.stdout).toContain("LAUNCH 1: 1.1");
  });

  test("every validation error names the field and what is expected; nothing is written", async () => {
    const r = repo();
    await r.run(["init", "--scope", "S"]);
    await r.run(["plan", "add", "1.1", "--owns", "src/a/**"]);
    const before = r.read(".unlazy/S/PLAN.md") + r.read(".unlazy/S/ACCESS.json");
    const cases: [string[], RegExp][] = [
      [["plan", "add", "2"], /--owns: expected at least one path glob/],
      [
        ["plan", "add", "2", "--owns", "../x"],
        /--owns contains an invalid or placeholder path: \.\.\/x; expected relative path globs/,
      ],
      [
        ["plan", "add", "2", "--owns", "x/**", "--needs", "9"],
        /--needs: unknown leaf 9; expected leaves already in PLAN.md \(have: 1.1\)/,
      ],
      [
        ["plan", "add", "2", "--owns", "x/**", "--resource-reads", "DB"],
        /--resource-reads: "DB" is not a resource id; expected lowercase/,
      ],
      [["plan", "add", "2", "--owns", "x/**", "--tier", "hard"], /--tier: expected judgment or mechanical/],
      [
        ["plan", "add", "2", "--owns", "x/**", "--needs", "1.1", "--wave", "1"],
        /--wave: expected a wave after its needs' latest \(1\)/,
      ],
      [["plan", "add", "bad id", "--owns", "x/**"], /LEAF: expected a leaf id like 1.1/],
      [["plan", "add", "1.1", "--owns", "x/**"], /leaf 1.1 is already in PLAN.md/],
      [["plan", "set", "1.1", "DONE"], /STATE: expected one of WAITING, READY, IN-FLIGHT, VERIFIED, ABANDONED/],
    ];
    for (const [args, message] of cases) {
      const x = await r.run(args);
      expect([x.code, x.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(r.read(".unlazy/S/PLAN.md") + r.read(".unlazy/S/ACCESS.json")).toBe(before);
  });
});

describe("issue 20.2: plan state is changed by kbz, never by hand", () => {
  test("plan set validates transitions; setting the current state is a no-op", async () => {
    const r = repo();
    await r.run(["init", "--scope", "S"]);
    await r.run(["plan", "add", "1", "--owns", "a/**"]);
    await r.run(["plan", "add", "2", "--owns", "b/**", "--needs", "1"]);
    expect((await r.run(["plan", "set", "2", "READY"])).stderr).toContain(
      "2 cannot be READY: its needs 1 are not VERIFIED",
    );
    expect((await r.run(["plan", "set", "1", "VERIFIED"])).stderr).toContain(
      "1 cannot move from READY to VERIFIED (allowed from READY: WAITING, IN-FLIGHT, ABANDONED)",
    );
    expect((await r.run(["plan", "set", "1", "IN-FLIGHT"])).stdout).toBe("leaf-1: READY -> IN-FLIGHT\n");
    expect((await r.run(["plan", "set", "1", "in-flight"])).stdout).toBe("leaf-1 is already IN-FLIGHT\n");
    expect((await r.run(["plan", "set", "1", "VERIFIED"])).stderr).toContain("gates/leaf-1.md is not ALL MET");
    expect((await r.run(["plan", "set", "1", "ABANDONED"])).code).toBe(0);
    expect(row(r, "1")).toBe("| 1 | a/** | - | judgment | 1 | ABANDONED |");
  });

  test("wave start marks IN-FLIGHT; advance verifies from the root, releases, promotes and advises; a retry is a no-op", async () => {
    const r = repo();
    await r.run(["init", "--scope", "S"]);
    await r.run(["plan", "add", "1", "--owns", "a/**"]);
    await r.run(["plan", "add", "2", "--owns", "b/**", "--needs", "1"]);
    r.write(".unlazy/S/gates/leaf-1.md", leafGates("1", "a/**", "a/done"));
    const launch = (await r.run(["next", "--scope", "S", "--slots", "1"])).stdout;
    expect(launch).not.toContain("PLAN.md");
    await r.run(["scope", "claim", "--scope", "S", "--leaf", "leaf-1"]);
    await r.run(["wave", "open", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1"]);
    await r.run(["wave", "start", "--scope", "S", "--wave", "w1", "--leaf", "leaf-1", "--handle", "agent-1"]);
    expect(row(r, "1")).toEndWith("| IN-FLIGHT |");
    await r.run(["wave", "seal", "--scope", "S", "--wave", "w1"]);
    r.write("a/done", "");
    const pending = await r.run(["advance", "--scope", "S", "--leaf", "1"]);
    expect(pending.code).toBe(1);
    expect(pending.stdout).toBe(
      "NOT APPROVED leaf-1:G1 (nothing of it ran)\nPERSON: 1 oracle to approve; in their terminal: kbz approve --scope S\nNOT VERIFIED leaf-1: 1 of 1 gate(s) unmet\n",
    );
    const a = await r.run(["advance", "--scope", "S", "--leaf", "1", "--approve"]);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain("VERIFIED leaf-1 (1 gate passed); lease released; READY now: 2\n");
    expect(a.stdout).toEndWith("LAUNCH 2: kbz next --scope S --launch\n");
    expect(a.stdout).not.toContain("PLAN.md");
    expect(row(r, "1")).toEndWith("| VERIFIED |");
    expect(row(r, "2")).toEndWith("| READY |");
    expect(JSON.parse((await r.run(["scope", "list", "--json"])).stdout).leases).toEqual([]);
    const again = await r.run(["advance", "--scope", "S", "--leaf", "leaf-1"]);
    expect([again.code, again.stdout.split("\n")[0]]).toEqual([0, "ALREADY VERIFIED leaf-1"]);
  });
});
