// kbz structure through the compiled binary: the golden transcripts of docs/formats.md#scheduling E, usage and
// bad input (exit 2, no changes), crash injection by environment, the handoff verbs, and the
// S_STRUCTURE gate run by kbz check from a moved repository.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, fixtureCopy, hashTree, kbz, tempDir } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";
import { agentEnv } from "../helpers/approvals.ts";

const REQ = ".unlazy/st/request.json";
const json = (s: string) => JSON.parse(s.trim());
/** The verb's own fields of its envelope line; the envelope keys are checked on the way. */
const body = (s: string) => {
  expect(s.trimEnd().split("\n")).toHaveLength(1);
  const { schema, exit, verdict, errors, ...rest } = JSON.parse(s.trim());
  expect([schema, typeof exit, typeof verdict, Array.isArray(errors)]).toEqual([1, "number", "string", true]);
  if (exit === 2) expect([verdict, errors.length]).toEqual(["invalid", 1]);
  else expect(errors).toEqual([]);
  return rest;
};
const st = (root: string, rel: string) => fs.readFileSync(path.join(root, ".unlazy/st", rel), "utf8");

function golden(): string {
  return fixtureCopy("structure-golden");
}

describe("kill §7 E transcripts", () => {
  test("fixes Kill_bezzangyi bug: check before any event reports the plan as it is (STRUCTURE_OK, exit 0), where structure-check.mjs said STRUCTURE_INVALID (registry not initialized), exit 2", async () => {
    const root = golden();
    const before = hashTree(root);
    const r = await runCli(["structure", "check", "--scope", "st", "--json"], { cwd: root });
    expect(r.code).toBe(0);
    expect(body(r.stdout)).toEqual({ marker: "STRUCTURE_OK", ok: true, residual: 0, findings: [] });
    expect(hashTree(root)).toBe(before);
  });

  test("plan is read-only with the golden summary, details, turn, check and complexity", async () => {
    const root = golden();
    const before = hashTree(root);
    const r = await runCli(["structure", "plan", "--scope", "st", "--request", REQ, "--json"], { cwd: root });
    expect(r.code).toBe(0);
    const o = body(r.stdout);
    expect(Object.keys(o)).toEqual(["status", "operation", "snapshot", "actions", "turn", "check", "complexity"]);
    expect(o.actions).toEqual({ expanded: 1, merged: 1, reported: 0, accepted: 0, rejected: 0, resumed: 0 });
    expect([o.status, o.operation, o.turn]).toEqual(["planned", "split-A-1", 1]);
    expect(o.check).toEqual({ ok: true, residual: 0, errors: [] });
    expect(o.complexity).toEqual({ groups: 2, boundaryEdges: 1, depth: 1 });
    const d = body(
      (await runCli(["structure", "plan", "--scope", "st", "--request", REQ, "--details", "--json"], { cwd: root }))
        .stdout,
    );
    expect(d.actions).toEqual([
      { action: "expand", parent: "A", children: ["A.1", "A.2"] },
      { action: "group", members: ["A", "A.1"] },
    ]);
    expect(d.groups).toEqual([["A", "A.1"], ["A.2"]]);
    expect(d.splits).toEqual([
      {
        parent: "A",
        children: ["A.1", "A.2"],
        definitionHash: "008fb519bc1fb4177e054e5141e32ef32039acf1b11ab13c20ed84dfb7075ad4",
      },
    ]);
    expect(hashTree(root)).toBe(before);
  });

  test("apply, apply again, and the files it writes match the golden texts", async () => {
    const root = golden();
    const a = await runCli(["structure", "apply", "--scope", "st", "--request", REQ, "--json"], { cwd: root });
    expect(body(a.stdout)).toEqual({
      status: "applied",
      operation: "split-A-1",
      turn: 1,
      actions: { expanded: 1, merged: 1, reported: 0, accepted: 0, rejected: 0, resumed: 0 },
      complexity: { groups: 2, boundaryEdges: 1, depth: 1 },
    });
    const after = hashTree(root);
    const again = await runCli(["structure", "apply", "--scope", "st", "--request", REQ, "--json"], { cwd: root });
    expect(body(again.stdout)).toEqual({ status: "already-applied", operation: "split-A-1" });
    expect(hashTree(root)).toBe(after);
    expect(st(root, "PLAN.md")).toBe(
      "# Plan: split demo\nContract revision: 2.\n\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n" +
        "| A | src/** | A.1, A.2 | judgment | 2 | WAITING |\n| A.1 | src/a/** | - | mechanical | 1 | READY |\n| A.2 | src/b/** | - | mechanical | 1 | READY |\n\n" +
        "<!-- kill-bezzangyi:expanded-topology -->\n## Expanded topology\n\n- A integrates A.1, A.2; parent ledger: gates/leaf-A.md\n<!-- /kill-bezzangyi:expanded-topology -->\n",
    );
    expect(st(root, "GATES.md")).toBe(
      "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending\n\n- [ ] S_STRUCTURE: All required work remains accounted for, integrated and settled\n" +
        "  CHECK: kbz structure check --scope st --final\n  EXPECT: STRUCTURE_OK\n  EVIDENCE: pending\n",
    );
    const access = json(st(root, "ACCESS.json"));
    expect(access.contractRevision).toBe(2);
    expect(Object.keys(access.leaves)).toEqual(["A", "A.1", "A.2"]);
    expect(st(root, "ACCESS.json")).toBe(JSON.stringify(access, null, 2) + "\n");
    expect(st(root, "gates/leaf-A.1.md")).toBe("OWNS: src/a/**\n- [ ] G1: module a\n  EVIDENCE: pending\n");
    const reg = json(st(root, "STRUCTURE.json"));
    expect(Object.keys(reg)).toEqual([
      "schema",
      "initial",
      "expected",
      "requiredEdges",
      "requiredGates",
      "requiredIntegrations",
      "splits",
      "groups",
      "operations",
      "turn",
      "reports",
    ]);
    expect([reg.initial, reg.expected, reg.turn, reg.operations.length]).toEqual([["A"], ["A", "A.1", "A.2"], 1, 1]);

    const c = await runCli(["structure", "check", "--scope", "st", "--json"], { cwd: root });
    expect([c.code, body(c.stdout)]).toEqual([0, { marker: "STRUCTURE_OK", ok: true, residual: 0, findings: [] }]);
    const f = await runCli(["structure", "check", "--scope", "st", "--final", "--json"], { cwd: root });
    expect(f.code).toBe(1);
    expect(body(f.stdout)).toEqual({
      marker: "STRUCTURE_UNMET",
      ok: false,
      residual: 4,
      findings: [
        { code: "unfinished-task", id: "A" },
        { code: "unfinished-task", id: "A.1" },
        { code: "unfinished-task", id: "A.2" },
        { code: "unfinished-integration", id: "GATES.md:ROOT" },
      ],
    });
    const n = body((await runCli(["next", "--scope", "st", "--slots", "4", "--json"], { cwd: root })).stdout);
    expect([n.action, n.launch, n.counts.sequentialGroups, n.handoffs]).toEqual([
      "dispatch",
      ["A.1", "A.2"],
      2,
      { turn: 1, pending: [] },
    ]);
    expect(body((await runCli(["structure", "recover", "--scope", "st", "--json"], { cwd: root })).stdout)).toEqual({
      status: "nothing-to-recover",
    });
    const reused = await runCli(
      ["structure", "apply", "--scope", "st", "--request", ".unlazy/st/request2.json", "--json"],
      { cwd: root },
    );
    expect([reused.code, body(reused.stdout)]).toEqual([
      2,
      { status: "invalid", error: "operation id reused with different request" },
    ]);
    expect(hashTree(root)).toBe(after);
  });

  test("a purely sequential split is rejected", async () => {
    const r = await runCli(["structure", "plan", "--scope", "st", "--request", ".unlazy/st/request3.json", "--json"], {
      cwd: golden(),
    });
    expect(r.code).toBe(2);
    expect(body(r.stdout).error).toBe("no independent child pair; keep sequential work together");
  });
});

describe("usage and bad input: exit 2, one error, no changes", () => {
  const cases: [string, string[], string | RegExp][] = [
    ["an unknown option", ["structure", "plan", "--unknown", "--json"], /^unknown or duplicate option/],
    ["no action", ["structure", "--json"], /^expected plan, apply, regroup, split, recover/],
    [
      "an unknown action",
      ["structure", "explode", "--scope", "st", "--json"],
      /^expected plan, apply, regroup, split, recover/,
    ],
    ["an invalid scope", ["structure", "plan", "--scope", "../x", "--request", REQ, "--json"], "invalid scope"],
    ["no request", ["structure", "apply", "--scope", "st", "--json"], "request file required"],
    [
      "recover with a request",
      ["structure", "recover", "--scope", "st", "--request", REQ, "--json"],
      "recover takes only root and scope",
    ],
    [
      "a request outside the root",
      ["structure", "plan", "--scope", "st", "--request", "/etc/hostname", "--json"],
      /^\/etc\/hostname: request file is outside the allowed root$/,
    ],
    [
      "a request that is not JSON",
      ["structure", "plan", "--scope", "st", "--request", ".unlazy/st/PLAN.md", "--json"],
      "request file is not valid JSON",
    ],
    [
      "a request that is not a request",
      ["structure", "plan", "--scope", "st", "--request", ".unlazy/st/ACCESS.json", "--json"],
      "invalid structure request: operation must be a new id (letters, digits, . _ -), e.g. split-2",
    ],
    [
      "a missing value",
      ["structure", "plan", "--scope", "st", "--request", "--json"],
      /^missing option value|^request file required/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const root = golden();
      const before = hashTree(root);
      const r = await runCli(args, { cwd: root });
      expect(r.code).toBe(2);
      const o = body(r.stdout);
      expect(o.status).toBe("invalid");
      if (typeof message === "string") expect(o.error).toBe(message);
      else expect(o.error).toMatch(message);
      expect(hashTree(root)).toBe(before);
    });
  }

  test("without --json a usage error is a kbz: line, its hint and the --help pointer on stderr", async () => {
    const r = await runCli(["structure", "apply", "--scope", "st"], { cwd: golden() });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      "kbz: request file required\n  hint: write a request from skill/references/structure-request.schema.json and pass --request FILE\nrun kbz --help for usage\n",
    );
  });

  const broken: [string, (root: string) => void, string][] = [
    [
      "ACCESS with another revision",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/ACCESS.json"), '{"schema":1,"contractRevision":9,"leaves":{}}'),
      "ACCESS revision/schema mismatch",
    ],
    [
      "ACCESS missing a leaf",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/ACCESS.json"), '{"schema":1,"contractRevision":1,"leaves":{}}'),
      "ACCESS inventory mismatch",
    ],
    ["no root GATES.md", (r) => fs.rmSync(path.join(r, ".unlazy/st/GATES.md")), "root GATES.md required"],
    [
      "an extra leaf ledger",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/gates/leaf-Z.md"), "OWNS: z/**\n- [ ] Z1: z\n"),
      "leaf inventory mismatch",
    ],
    [
      "a broken leaf ledger",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/gates/leaf-A.md"), "OWNS: src/**\n- [ ] : no id\n"),
      "invalid leaf ledger A",
    ],
    [
      "an OWNS mirror mismatch",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/gates/leaf-A.md"), "OWNS: lib/**\n- [ ] P1: x\n"),
      "OWNS mirror mismatch A",
    ],
    [
      "a broken node ledger",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/gates/node-1.md"), "no gates here\n"),
      "invalid integration ledger gates/node-1.md",
    ],
    [
      "an invalid dispatch.json",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/dispatch.json"), "{"),
      "invalid dispatch",
    ],
    [
      "a dispatch leaf outside PLAN",
      (r) =>
        fs.writeFileSync(
          path.join(r, ".unlazy/st/dispatch.json"),
          '{"schema":1,"waves":{"w1":{"leaves":["leaf-Q"],"state":"open","openedAt":"2026-09-23T10:00:00.000Z","started":{},"returned":{}}}}',
        ),
      "orphan dispatch leaf",
    ],
    [
      "an invalid lease",
      (r) => {
        fs.mkdirSync(path.join(r, ".unlazy/locks"), { recursive: true });
        fs.writeFileSync(path.join(r, ".unlazy/locks/x.lease"), "junk");
      },
      "invalid lease",
    ],
    [
      "a symlinked PLAN",
      (r) => {
        fs.renameSync(path.join(r, ".unlazy/st/PLAN.md"), path.join(r, "PLAN.real"));
        fs.symlinkSync(path.join(r, "PLAN.real"), path.join(r, ".unlazy/st/PLAN.md"));
      },
      "PLAN.md: PLAN.md must be one unchanged regular single-link file",
    ],
    [
      "a corrupt journal",
      (r) => fs.writeFileSync(path.join(r, ".unlazy/st/STRUCTURE.pending.json"), "{}"),
      "invalid recovery journal",
    ],
  ];
  for (const [what, breakIt, message] of broken) {
    test(`${what}: "${message}"`, async () => {
      const root = golden();
      breakIt(root);
      const before = hashTree(root);
      const r = await runCli(["structure", "apply", "--scope", "st", "--request", REQ, "--json"], { cwd: root });
      expect(r.code).toBe(2);
      expect(body(r.stdout).error.startsWith(message)).toBe(true);
      expect(hashTree(root)).toBe(before);
    });
  }

  test("recover refuses a corrupt journal and writes nothing", async () => {
    const root = golden();
    fs.writeFileSync(path.join(root, ".unlazy/st/STRUCTURE.pending.json"), "{}");
    const before = hashTree(path.join(root, ".unlazy/st"));
    const r = await runCli(["structure", "recover", "--scope", "st", "--json"], { cwd: root });
    expect([r.code, body(r.stdout).error]).toEqual([2, "invalid recovery journal"]);
    expect(hashTree(path.join(root, ".unlazy/st"))).toBe(before);
  });
});

describe("crash injection through the binary", () => {
  // The status log is the audit trail, not part of the transaction: its lines carry the time
  // and say how the operation completed, so it is read aside and the rest compared byte for byte.
  const takeLog = (root: string) => {
    const file = path.join(root, ".unlazy/st/status.log");
    const text = fs.readFileSync(file, "utf8");
    fs.rmSync(file);
    return text
      .trimEnd()
      .split("\n")
      .map((l) => l.replace(/^\S+ /, ""));
  };

  test("KBZ_TEST_FAULT_AFTER interrupts an apply; recover rolls forward to the uninterrupted bytes", async () => {
    const reference = golden();
    await runCli(["structure", "apply", "--scope", "st", "--request", REQ], { cwd: reference });
    const applied = takeLog(reference);
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatch(/^structure \S+ applied as turn \d+: /);
    for (const k of [1, 2, 3, 5]) {
      const root = golden();
      const r = await runCli(["structure", "apply", "--scope", "st", "--request", REQ, "--json"], {
        cwd: root,
        env: { KBZ_TEST_FAULT_AFTER: String(k) },
      });
      expect([r.code, body(r.stdout).error]).toEqual([2, `injected interruption after write ${k}`]);
      const n = await runCli(["next", "--scope", "st", "--slots", "2", "--json"], { cwd: root });
      if (k >= 2) expect(body(n.stdout).error).toContain("pending structure transaction");
      await runCli(["structure", "recover", "--scope", "st"], { cwd: root });
      await runCli(["structure", "apply", "--scope", "st", "--request", REQ], { cwd: root });
      const log = k >= 2 ? takeLog(root) : [];
      if (k >= 2) expect(log[0]).toMatch(/^structure \S+ recovered/);
      else expect(takeLog(root)).toEqual(applied);
      expect(hashTree(root)).toBe(hashTree(reference));
    }
  });
});

async function run(root: string, args: string[], env: Record<string, string> = {}) {
  return await runCli(args, { cwd: root, env });
}

describe("the handoff verbs", () => {
  test("report, then accept in a later turn, each persisted as requests/<op>.json and idempotent", async () => {
    const root = golden();
    fs.writeFileSync(
      path.join(root, ".unlazy/st/gates/leaf-A.md"),
      "OWNS: src/**\n- [x] P0: groundwork\n  EVIDENCE: reviewed by hand\n- [ ] P1: modules a and b integrated\n  EVIDENCE: pending\n",
    );
    const wave = (returned: boolean) =>
      JSON.stringify({
        schema: 1,
        waves: {
          w1: {
            leaves: ["leaf-A"],
            state: returned ? "complete" : "sealed",
            openedAt: "2026-09-23T10:00:00.000Z",
            sealedAt: "2026-09-23T10:00:02.000Z",
            started: { "leaf-A": { handle: "agent-1", at: "2026-09-23T10:00:01.000Z" } },
            returned: returned ? { "leaf-A": { at: "2026-09-23T10:05:00.000Z" } } : {},
            ...(returned ? { completedAt: "2026-09-23T10:05:00.000Z" } : {}),
          },
        },
      });
    fs.writeFileSync(path.join(root, ".unlazy/st/dispatch.json"), wave(false));
    fs.writeFileSync(
      path.join(root, ".unlazy/st/PLAN.md"),
      st(root, "PLAN.md").replace("| 1 | READY |", "| 1 | IN-FLIGHT |"),
    );
    const request = json(st(root, "request.json"));
    const proposal = {
      id: "r1",
      parent: "A",
      source: { wave: "w1", handle: "agent-1" },
      checkpoint: { summary: "P0 done", completed: ["P0"], remaining: ["P1"], artifacts: [] },
      refinement: request.refinements.A,
    };
    fs.writeFileSync(path.join(root, "proposal.json"), JSON.stringify(proposal));
    const rep = await run(root, [
      "structure",
      "report",
      "--scope",
      "st",
      "--operation",
      "report-A",
      "--proposal",
      "proposal.json",
      "--json",
    ]);
    expect([rep.code, body(rep.stdout).status, body(rep.stdout).actions.reported]).toEqual([0, "applied", 1]);
    expect(json(st(root, "requests/report-A.json")).reports[0].id).toBe("r1");
    const pending = body((await run(root, ["next", "--scope", "st", "--slots", "2", "--json"])).stdout).handoffs;
    expect(pending).toEqual({ turn: 1, pending: [{ id: "r1", parent: "A", returned: false, leaseReleased: true }] });
    expect((await run(root, ["next", "--scope", "st", "--slots", "2"])).stdout).toContain(
      "REPORT r1 on A pending: not returned yet, lease released",
    );
    const early = await run(root, [
      "structure",
      "accept",
      "--scope",
      "st",
      "--operation",
      "accept-A",
      "--report",
      "r1",
      "--stop-evidence",
      "stopped",
      "--review-evidence",
      "reviewed",
      "--json",
    ]);
    expect(body(early.stdout).error).toBe("reported execution must have returned before handoff");
    expect(fs.existsSync(path.join(root, ".unlazy/st/requests/accept-A.json"))).toBe(false);
    fs.writeFileSync(path.join(root, ".unlazy/st/dispatch.json"), wave(true));
    const ok = await run(root, [
      "structure",
      "accept",
      "--scope",
      "st",
      "--operation",
      "accept-A",
      "--report",
      "r1",
      "--stop-evidence",
      "stopped",
      "--review-evidence",
      "reviewed",
      "--json",
    ]);
    expect([ok.code, body(ok.stdout).turn, body(ok.stdout).actions.accepted]).toEqual([0, 2, 1]);
    const retry = await run(root, [
      "structure",
      "accept",
      "--scope",
      "st",
      "--operation",
      "accept-A",
      "--report",
      "r1",
      "--stop-evidence",
      "stopped",
      "--review-evidence",
      "reviewed",
      "--json",
    ]);
    expect(body(retry.stdout)).toEqual({ status: "already-applied", operation: "accept-A" });
    const other = await run(root, [
      "structure",
      "accept",
      "--scope",
      "st",
      "--operation",
      "accept-A",
      "--report",
      "r1",
      "--stop-evidence",
      "stopped",
      "--review-evidence",
      "other",
      "--json",
    ]);
    expect(body(other.stdout).error).toBe("operation id reused with different request");
    expect(body((await run(root, ["next", "--scope", "st", "--slots", "2", "--json"])).stdout).launch).toEqual([
      "A.1",
      "A.2",
    ]);
  });

  test("reject needs a reason", async () => {
    const root = golden();
    const r = await run(root, [
      "structure",
      "reject",
      "--scope",
      "st",
      "--operation",
      "rej",
      "--report",
      "nope",
      "--json",
    ]);
    expect(r.code).toBe(2);
    expect(body(r.stdout).error).toBe("resolve one existing pending report in a later turn");
  });
});

describe("the S_STRUCTURE gate", () => {
  test("its CHECK names kbz through PATH, survives moving the repository, and passes only when the scope is finished", () => {
    const first = golden();
    kbz(["structure", "apply", "--scope", "st", "--request", REQ], { cwd: first });
    const moved = path.join(tempDir("kbz-moved-"), "elsewhere");
    fs.cpSync(first, moved, { recursive: true });
    fs.rmSync(first, { recursive: true });
    const bin = tempDir("kbz-bin-");
    fs.symlinkSync(BIN, path.join(bin, "kbz"));
    const env = agentEnv({ PATH: `${bin}:/usr/bin:/bin` });
    const stop = () => kbz(["hook", "stop", "--scope", "st"], { cwd: moved, env, input: "{}" }).stdout;
    expect(stop()).toContain('"decision":"block"');
    const check = kbz(["check", "--scope", "st", "--approve", "--reverify"], { cwd: moved, env });
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).toContain("S_STRUCTURE");
    for (const f of ["gates/leaf-A.md", "gates/leaf-A.1.md", "gates/leaf-A.2.md"]) {
      const p = path.join(moved, ".unlazy/st", f);
      fs.writeFileSync(
        p,
        fs
          .readFileSync(p, "utf8")
          .replace(/- \[ \]/g, "- [x]")
          .replace(/EVIDENCE: pending/g, "EVIDENCE: reviewed by hand"),
      );
    }
    const plan = path.join(moved, ".unlazy/st/PLAN.md");
    fs.writeFileSync(plan, fs.readFileSync(plan, "utf8").replace(/\| (WAITING|READY) \|/g, "| VERIFIED |"));
    const gates = path.join(moved, ".unlazy/st/GATES.md");
    fs.writeFileSync(
      gates,
      fs
        .readFileSync(gates, "utf8")
        .replace(
          "- [ ] ROOT: integrated scope reviewed\n  EVIDENCE: pending",
          "- [x] ROOT: integrated scope reviewed\n  EVIDENCE: reviewed by hand",
        ),
    );
    const done = kbz(["check", "--scope", "st", "--approve", "--reverify"], { cwd: moved, env });
    expect(done.code).toBe(0);
    expect(fs.readFileSync(gates, "utf8")).toContain("- [x] S_STRUCTURE");
    expect(stop()).not.toContain('"decision":"block"');
  });
});
