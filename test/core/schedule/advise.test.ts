import { describe, expect, test } from "bun:test";
import { adviseNext, exitFor } from "../../../src/core/schedule/advise.ts";
import { ScheduleInputError } from "../../../src/core/plan/errors.ts";
import { lease, scope, wave, type ScopeSpec, type TaskSpec } from "./build.ts";

const advise = (tasks: TaskSpec[], o: ScopeSpec = {}, details = true) => adviseNext(scope(tasks, o), { details });
const chain: TaskSpec[] = [{ id: "1" }, { id: "2", needs: ["1"] }, { id: "3", needs: ["2"] }];

describe("kill §5.1 schedule behaviours", () => {
  test("a chain is solo, launches only its head, one sequential group, two dependency deferrals", () => {
    const a = advise(chain);
    expect(a.mode).toBe("solo");
    expect(a.launch).toEqual(["1"]);
    expect(a.structure!.sequentialGroups).toEqual([["1", "2", "3"]]);
    expect(a.blocked).toEqual({ "dependencies-or-unreleased-leases": 2 });
    expect(a.structure!.deferred).toEqual([
      { leaf: "2", reason: "dependencies-or-unreleased-leases", needs: ["1"] },
      { leaf: "3", reason: "dependencies-or-unreleased-leases", needs: ["2"] },
    ]);
  });

  test("after the chain head is verified its successor launches, is promoted, and continues the head", () => {
    const a = advise([{ id: "1", state: "VERIFIED" }, chain[1]!, chain[2]!]);
    expect(a.launch).toEqual(["2"]);
    expect(a.promote).toEqual(["2"]);
    expect(a.continuations).toEqual([{ leaf: "2", after: "1", handle: null }]);
  });

  test("fork/join/re-fork is orchestrated and launches [1], [2,3], [3], [4], [5,6], then verify-root", () => {
    const base: TaskSpec[] = [
      { id: "1" },
      { id: "2", needs: ["1"] },
      { id: "3", needs: ["1"] },
      { id: "4", needs: ["2", "3"] },
      { id: "5", needs: ["4"] },
      { id: "6", needs: ["4"] },
    ];
    const verifiedUpTo = (done: string[]) =>
      base.map((t) => (done.includes(t.id) ? { ...t, state: "VERIFIED" as const } : t));
    const steps: [string[], string[]][] = [
      [[], ["1"]],
      [["1"], ["2", "3"]],
      [["1", "2"], ["3"]],
      [["1", "2", "3"], ["4"]],
      [
        ["1", "2", "3", "4"],
        ["5", "6"],
      ],
    ];
    for (const [done, launch] of steps) {
      const a = advise(verifiedUpTo(done));
      expect(a.mode).toBe("orchestrated");
      expect(a.launch).toEqual(launch);
      expect(a.action).toBe("dispatch");
    }
    const end = advise(verifiedUpTo(["1", "2", "3", "4", "5", "6"]));
    expect(end.action).toBe("verify-root");
    expect(exitFor(end.action)).toBe(0);
  });

  test("shared reads launch together; a read of the other's writes or a shared write serializes", () => {
    expect(advise([{ id: "1" }, { id: "2" }]).launch).toEqual(["1", "2"]);
    expect(advise([{ id: "1" }, { id: "2", reads: ["src/1/**"] }]).launch).toEqual(["1"]);
    expect(advise([{ id: "1", reads: ["src/2/**"] }, { id: "2" }]).launch).toEqual(["1"]);
    const shared = advise([
      { id: "1", owns: ["src/x/**"] },
      { id: "2", owns: ["src/x/**"] },
    ]);
    expect(shared.launch).toEqual(["1"]);
    expect(shared.blocked).toEqual({ "selected-conflict": 1 });
    expect(shared.mode).toBe("solo");
  });

  test("a resource written by one task and read by the other conflicts", () => {
    expect(
      advise([
        { id: "1", resourceWrites: ["db:test"] },
        { id: "2", resourceReads: ["db:test"] },
      ]).launch,
    ).toEqual(["1"]);
    expect(
      advise([
        { id: "1", resourceReads: ["db:test"] },
        { id: "2", resourceReads: ["db:test"] },
      ]).launch,
    ).toEqual(["1", "2"]);
  });

  test("a read glob differing only in case conflicts (globs are case-folded)", () => {
    expect(advise([{ id: "1" }, { id: "2", reads: ["SRC/1/**"] }]).launch).toEqual(["1"]);
  });

  test("slots count active tasks; an active task's reads steer the choice to the next candidate", () => {
    const tasks: TaskSpec[] = [{ id: "1", state: "IN-FLIGHT" }, { id: "2" }, { id: "3" }];
    const one = advise(tasks, { slots: 1 });
    expect(one.launch).toEqual([]);
    expect(one.action).toBe("wait-or-verify");
    expect(one.blocked).toEqual({ slots: 2 });
    expect(advise(tasks, { slots: 2 }).launch).toEqual(["2"]);
    const reading = advise([{ id: "1", state: "IN-FLIGHT", reads: ["src/2/**"] }, { id: "2" }, { id: "3" }], {
      slots: 2,
    });
    expect(reading.launch).toEqual(["3"]);
    expect(reading.blocked).toEqual({ "active-conflict": 1 });
  });

  test("rolling: an unrelated in-flight sibling does not delay a newly unblocked task", () => {
    const a = advise(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", state: "IN-FLIGHT" },
        { id: "3", needs: ["2"] },
        { id: "4", needs: ["1"] },
      ],
      { slots: 2 },
    );
    expect(a.launch).toEqual(["4"]);
    expect(a.active).toEqual(["2"]);
  });

  test("a VERIFIED dependency that still holds its lease blocks its dependent until released", () => {
    const tasks: TaskSpec[] = [
      { id: "1", state: "VERIFIED" },
      { id: "2", needs: ["1"] },
    ];
    const held = advise(tasks, { leases: [lease("api", "leaf-1", ["src/1/**"])] });
    expect(held.launch).toEqual([]);
    expect(held.blocked).toEqual({ "dependencies-or-unreleased-leases": 1 });
    expect(held.action).toBe("review");
    expect(held.explain!.blocked[0]!.why).toContain("still holds its lease leaf-1");
    expect(advise(tasks).launch).toEqual(["2"]);
  });

  test("a candidate holding its own lease is alreadyClaimed; after its ownership changes the stale lease forces review", () => {
    const own = advise([{ id: "1" }], { leases: [lease("api", "leaf-1", ["src/1/**"])] });
    expect(own.launch).toEqual(["1"]);
    expect(own.alreadyClaimed).toEqual(["1"]);
    const amended = advise([{ id: "1", owns: ["src/one/**"] }], { leases: [lease("api", "leaf-1", ["src/1/**"])] });
    expect(amended.action).toBe("review");
    expect(amended.launch).toEqual([]);
    expect(amended.attention).toEqual([{ leaf: "1", reason: "lease-ownership-mismatch" }]);
  });

  test("dispatch records: an open wave forces review; a started leaf is active; a returned one awaits verification", () => {
    const tasks: TaskSpec[] = [{ id: "1" }, { id: "2" }];
    const open = advise(tasks, { waves: [wave("w1", "open", ["leaf-1"])] });
    expect(open.action).toBe("review");
    expect(open.attention).toEqual([{ wave: "w1", reason: "resume-open-wave" }]);
    expect(open.blocked).toEqual({ "attention-required": 2 });

    const sealed = [wave("w1", "sealed", ["leaf-1"], { "leaf-1": "agent-1" })];
    const running = advise(tasks, { waves: sealed });
    expect(running.active).toEqual(["1"]);
    expect(running.launch).toEqual(["2"]);
    const full = advise(tasks, { waves: sealed, slots: 1 });
    expect(full.launch).toEqual([]);
    expect(full.action).toBe("wait-or-verify");

    const back = [wave("w1", "complete", ["leaf-1"], { "leaf-1": "agent-1" }, ["leaf-1"])];
    const returned = advise(tasks, { waves: back });
    expect(returned.awaitVerification).toEqual(["1"]);
    expect(returned.active).toEqual(["1"]);
    expect(returned.launch).toEqual(["2"]);
    const done = advise([{ id: "1", state: "VERIFIED" }, { id: "2" }], { waves: back });
    expect(done.awaitVerification).toEqual([]);
    expect(done.active).toEqual([]);
  });

  test("a sequential successor's continuation carries the predecessor's last recorded handle", () => {
    const waves = [
      wave("w1", "complete", ["leaf-1"], { "leaf-1": "agent-old" }, ["leaf-1"]),
      {
        ...wave("w2", "complete", ["leaf-1"], { "leaf-1": "agent-new" }, ["leaf-1"]),
        started: new Map([["leaf-1", { handle: "agent-new", at: "2026-09-24T00:00:00.000Z" }]]),
      },
    ];
    const a = advise(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"] },
      ],
      { waves },
    );
    expect(a.continuations).toEqual([{ leaf: "2", after: "1", handle: "agent-new" }]);
  });

  test("an abandoned leaf gate is a handoff: review and no launch", () => {
    const a = advise([{ id: "1", gates: ["met", "abandoned"] }, { id: "2" }]);
    expect(a.action).toBe("review");
    expect(a.launch).toEqual([]);
    expect(a.attention).toEqual([{ leaf: "1", reason: "handoff" }]);
    expect(exitFor(a.action)).toBe(1);
  });

  test("a VERIFIED predecessor whose ledger is not met (stale evidence) forces review", () => {
    const a = advise([
      { id: "1", state: "VERIFIED", gates: ["stale-unmet"] },
      { id: "2", needs: ["1"] },
    ]);
    expect(a.action).toBe("review");
    expect(a.launch).toEqual([]);
    expect(a.attention).toEqual([{ leaf: "1", reason: "verified-ledger-not-met" }]);
  });

  test("a lease held by another scope forces review and names the tasks it touches", () => {
    const a = advise([{ id: "1" }, { id: "2" }], { leases: [lease("web", "leaf-9", ["src/2/**"])] });
    expect(a.action).toBe("review");
    expect(a.launch).toEqual([]);
    expect(a.attention).toEqual([{ reason: "external-or-invalid-lease-needs-review" }]);
    expect(a.explain!.attention[0]).toEqual({
      reason: "external-or-invalid-lease-needs-review",
      leases: ["web/leaf-9"],
      tasks: ["2"],
    });
    expect(a.blocked).toEqual({ "attention-required": 1, "live-lease-conflict": 1 });
  });

  test("two calls give deep-equal advice; without details there is no structure, and it stays small", () => {
    const s = scope([{ id: "1" }, { id: "2", needs: ["1"] }, { id: "3" }]);
    const a = adviseNext(s, { details: false });
    expect(adviseNext(s, { details: false })).toEqual(a);
    expect("structure" in a).toBe(false);
    expect("explain" in a).toBe(false);
    expect(JSON.stringify(a).length).toBeLessThan(1000);
  });
});

describe("attention and leases beyond §5.1", () => {
  test("a lease on an unknown leaf of this scope is unknown-lease-owner", () => {
    const a = advise([{ id: "1" }], { leases: [lease("api", "leaf-zz", ["docs/**"])] });
    expect(a.attention).toEqual([{ reason: "unknown-lease-owner" }]);
  });

  test("an invalid lease (globs **) is external review and blocks every candidate by lease", () => {
    const a = advise([{ id: "1" }], {
      leases: [{ scope: "(invalid)", leaf: "x.lease", globs: ["**"], invalid: true }],
    });
    expect(a.attention).toEqual([{ reason: "external-or-invalid-lease-needs-review" }]);
    expect(a.blocked).toEqual({ "live-lease-conflict": 1 });
  });

  test("a VERIFIED task with an unverified need is verified-before-dependency and names both", () => {
    const a = advise([{ id: "1" }, { id: "2", needs: ["1"], state: "VERIFIED" }]);
    expect(a.attention).toEqual([{ leaf: "2", reason: "verified-before-dependency" }]);
    expect(a.explain!.attention[0]!.tasks).toEqual(["2", "1"]);
  });

  test("a VERIFIED task with an unreturned attempt is verified-before-return and still active", () => {
    const a = advise([{ id: "1", state: "VERIFIED" }], {
      waves: [wave("w1", "sealed", ["leaf-1"], { "leaf-1": "h" })],
    });
    expect(a.attention).toEqual([{ leaf: "1", reason: "verified-before-return" }]);
    expect(a.active).toEqual(["1"]);
  });

  test("an abandoned wave asks to resume and names the wave's tasks", () => {
    const a = advise([{ id: "1" }, { id: "2" }], {
      waves: [wave("w1", "abandoned", ["leaf-1", "leaf-2"], { "leaf-1": "h" })],
    });
    expect(a.attention).toEqual([{ wave: "w1", reason: "resume-abandoned-wave" }]);
    expect(a.explain!.attention[0]!.tasks).toEqual(["1", "2"]);
  });

  test("a wave naming a leaf outside PLAN is invalid input naming the leaf and wave", () => {
    expect(() => advise([{ id: "1" }], { waves: [wave("w1", "open", ["leaf-7"])] })).toThrow(
      new ScheduleInputError("dispatch references unknown leaf leaf-7 (wave w1)"),
    );
  });

  test("an ABANDONED row is a handoff and never counts towards verify-root", () => {
    const a = advise([
      { id: "1", state: "VERIFIED" },
      { id: "2", state: "ABANDONED" },
    ]);
    expect(a.attention).toEqual([{ leaf: "2", reason: "handoff" }]);
    expect(a.action).toBe("review");
  });

  test("nothing launchable and nothing active with unfinished work is review", () => {
    const a = advise(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"] },
      ],
      { leases: [lease("api", "leaf-1", ["src/1/**"])] },
    );
    expect(a.action).toBe("review");
    expect(a.attention).toEqual([]);
  });
});

describe("mode", () => {
  test("orchestrated when only a non-adjacent pair is independent", () => {
    // Kahn order 1, 2, 3: both adjacent pairs conflict through 2's write of everything.
    const a = advise([
      { id: "1", owns: ["a/**"] },
      { id: "2", owns: ["**"] },
      { id: "3", owns: ["b/**"] },
    ]);
    expect(a.mode).toBe("orchestrated");
  });

  test("solo when every pair is on one dependency path, whatever the access", () => {
    expect(advise([{ id: "1" }, { id: "2", needs: ["1"] }, { id: "3", needs: ["1", "2"] }]).mode).toBe("solo");
  });
});

describe("ordering and explanations", () => {
  const ten = Array.from({ length: 10 }, (_, k) => ({ id: String(k + 1), owns: ["src/shared/**"] }));

  test("ids sort naturally by default: 2 is chosen before 10", () => {
    const a = advise([{ id: "10" }, { id: "2" }], { slots: 1 });
    expect(a.launch).toEqual(["2"]);
    expect(advise(ten, { slots: 1 }).structure!.deferred.map((d) => d.leaf)).toEqual([
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "10",
    ]);
  });

  test("the original order (code units) chooses 10 before 2, as schedule.mjs does", () => {
    expect(advise([{ id: "10" }, { id: "2" }], { slots: 1, order: "original" }).launch).toEqual(["10"]);
    expect(advise(ten, { order: "original" }).launch).toEqual(["1"]);
    expect(advise(ten, { order: "original" }).structure!.deferred[0]!.leaf).toBe("10");
  });

  test("every blocked task is explained with the exact dependency, lease or conflict", () => {
    const a = advise(
      [
        { id: "1", state: "IN-FLIGHT" },
        { id: "2", reads: ["src/1/x.ts"] },
        { id: "3" },
        { id: "4", owns: ["src/3/**"] },
        { id: "5", needs: ["1"] },
        { id: "6", owns: ["lib/**"] },
        { id: "7" },
      ],
      { slots: 3, leases: [lease("api", "leaf-1", ["src/1/**"]), lease("api", "leaf-6", ["lib/**"])] },
    );
    expect(a.launch).toEqual(["3", "6"]);
    expect(a.alreadyClaimed).toEqual(["6"]);
    expect(a.explain!.blocked).toEqual([
      {
        leaf: "2",
        reason: "live-lease-conflict",
        blockedBy: ["api/leaf-1"],
        why: "src/1/x.ts overlaps src/1/** leased by api/leaf-1",
      },
      {
        leaf: "4",
        reason: "selected-conflict",
        blockedBy: ["3"],
        why: "writes src/3/**, selected task 3 writes src/3/**",
      },
      { leaf: "5", reason: "dependencies-or-unreleased-leases", blockedBy: ["1"], why: "needs 1 (IN-FLIGHT)" },
      { leaf: "7", reason: "slots", blockedBy: [], why: "no free slot: 3 slot(s), 1 active, 2 selected" },
    ]);
  });

  test("an active-conflict names the active task and the overlapping paths or the dependency path", () => {
    const byAccess = advise([{ id: "1", state: "IN-FLIGHT", owns: ["src/**"] }, { id: "2" }]);
    expect(byAccess.explain!.blocked).toEqual([
      { leaf: "2", reason: "active-conflict", blockedBy: ["1"], why: "writes src/2/**, active task 1 writes src/**" },
    ]);
    // 2 is IN-FLIGHT while its dependency 1 is not verified: related by a path, so not independent.
    const byPath = advise([{ id: "1" }, { id: "2", needs: ["1"], state: "IN-FLIGHT" }]);
    expect(byPath.explain!.blocked).toEqual([
      { leaf: "1", reason: "active-conflict", blockedBy: ["2"], why: "active task 2 depends on it" },
    ]);
  });

  test("forks list children in PLAN row order and joins list their needs", () => {
    const a = advise([
      { id: "1" },
      { id: "3", needs: ["1"] },
      { id: "2", needs: ["1"] },
      { id: "4", needs: ["3", "2"] },
    ]);
    expect(a.structure!.forks).toEqual([{ after: "1", children: ["3", "2"] }]);
    expect(a.structure!.joins).toEqual([{ leaf: "4", needs: ["3", "2"] }]);
  });
});
