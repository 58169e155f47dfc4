import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { definitionDigest } from "../../src/core/ledger/digest.ts";
import { fixtureCopy, hashTree, tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";
import { planText, type TaskSpec } from "../core/schedule/build.ts";

const SCOPE = ".unlazy/api";

/** A scope on disk in the schedule-tests conventions: leaf n owns src/n/**, reads contracts/**, one manual gate. */
function scopeFiles(tasks: TaskSpec[], revision = 1): Record<string, string> {
  const files: Record<string, string> = {
    [`${SCOPE}/PLAN.md`]: planText(tasks).replace("Contract revision: 1.", `Contract revision: ${revision}.`),
    [`${SCOPE}/ACCESS.json`]: JSON.stringify({
      schema: 1,
      contractRevision: revision,
      leaves: Object.fromEntries(
        tasks.map((t) => [
          t.id,
          {
            complete: true,
            reads: t.reads ?? ["contracts/**"],
            resourceReads: t.resourceReads ?? [],
            resourceWrites: t.resourceWrites ?? [],
          },
        ]),
      ),
    }),
  };
  for (const t of tasks) {
    const done = t.state === "VERIFIED";
    files[`${SCOPE}/gates/leaf-${t.id}.md`] =
      `OWNS: ${(t.owns ?? [`src/${t.id}/**`]).join(", ")}\n\n- [${done ? "x" : " "}] G1: leaf ${t.id} deliverable\n  EVIDENCE: ${done ? "reviewed by a person" : "pending"}\n`;
  }
  return files;
}

function scopeDir(tasks: TaskSpec[], extra: Record<string, string> = {}): string {
  const dir = tempDir();
  writeTree(dir, { ...scopeFiles(tasks), ...extra });
  return dir;
}

async function next(dir: string, args: string[] = []) {
  const r = await runCli(["next", "--scope", "api", "--slots", "4", "--json", ...args], { cwd: dir });
  return { ...r, json: JSON.parse(r.stdout || "null") };
}

/** Invalid input: exit 2, one envelope line that keeps schedule.mjs's `action` and `error`, no file changes. */
async function expectInvalid(
  dir: string,
  error: RegExp,
  args: string[] = ["next", "--scope", "api", "--slots", "4", "--json"],
) {
  const before = hashTree(dir);
  const r = await runCli(args, { cwd: dir });
  expect(r.code).toBe(2);
  const out = JSON.parse(r.stdout);
  expect(Object.keys(out)).toEqual(["schema", "exit", "verdict", "action", "error", "errors"]);
  expect([out.schema, out.exit, out.verdict, out.action]).toEqual([1, 2, "invalid", "invalid"]);
  expect(out.error).toMatch(error);
  expect(out.errors).toHaveLength(1);
  expect(Object.keys(out.errors[0])).toEqual(["file", "line", "message", "hint"]);
  expect(r.stdout.trimEnd().split("\n")).toHaveLength(1);
  expect(hashTree(dir)).toBe(before);
}

const leaseName = (scope: string, leaf: string) =>
  createHash("sha256").update(`${scope}::${leaf}`).digest("hex").slice(0, 24) + ".lease";
const leaseFile = (scope: string, leaf: string, globs: string[]) => ({
  [`.unlazy/locks/${leaseName(scope, leaf)}`]: JSON.stringify({ scope, leaf, globs, pid: 1 }, null, 2),
});

/** The envelope's own keys, added to schedule.mjs's object; everything else is the original's. */
const ENVELOPE_KEYS = ["exit", "verdict", "errors"];

/** The original scheduler's object inside an envelope line, re-serialized in its key order. */
function original(stdout: string): string {
  const o = JSON.parse(stdout);
  expect([o.schema, o.exit, o.verdict, o.errors]).toEqual([1, o.exit, o.action, []]);
  for (const k of ENVELOPE_KEYS) delete o[k];
  return JSON.stringify(o) + "\n";
}

describe("kbz next reproduces schedule.mjs (golden transcripts §7 D)", () => {
  const GOLDEN = "7f6ffad954c11953ce0e583cfe94c8dfe5e98b13e47fbdc8ea064f4d50f198b4";

  test("compact advice keeps the original's object byte for byte and only adds the envelope's keys", async () => {
    const dir = fixtureCopy("next-golden");
    const r = await runCli(["next", "--scope", "api", "--slots", "4", "--json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).exit).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(original(r.stdout)).toBe(
      `{"schema":1,"snapshot":"${GOLDEN}","mode":"orchestrated","counts":{"tasks":3,"sequentialGroups":2,"active":0,"selected":2},"action":"dispatch","launch":["1","3"],"promote":[],"continuations":[],"alreadyClaimed":[],"awaitVerification":[],"active":[],"blocked":{"dependencies-or-unreleased-leases":1},"attention":[]}\n`,
    );
  });

  test("--slots 1 launches only 1 and counts the slot block", async () => {
    const r = await runCli(["next", "--scope", "api", "--slots", "1", "--json"], { cwd: fixtureCopy("next-golden") });
    expect(original(r.stdout)).toBe(
      `{"schema":1,"snapshot":"${GOLDEN}","mode":"orchestrated","counts":{"tasks":3,"sequentialGroups":2,"active":0,"selected":1},"action":"dispatch","launch":["1"],"promote":[],"continuations":[],"alreadyClaimed":[],"awaitVerification":[],"active":[],"blocked":{"dependencies-or-unreleased-leases":1,"slots":1},"attention":[]}\n`,
    );
  });

  test("--details adds the original structure object, then kbz's explanations", async () => {
    const r = await next(fixtureCopy("next-golden"), ["--details"]);
    expect(
      original(r.stdout).startsWith(
        `{"schema":1,"snapshot":"${GOLDEN}","mode":"orchestrated","counts":{"tasks":3,"sequentialGroups":2,"active":0,"selected":2},"action":"dispatch","launch":["1","3"],"promote":[],"continuations":[],"alreadyClaimed":[],"awaitVerification":[],"active":[],"blocked":{"dependencies-or-unreleased-leases":1},"attention":[],"structure":{"deferred":[{"leaf":"2","reason":"dependencies-or-unreleased-leases","needs":["1"]}],"sequentialGroups":[["1","2"],["3"]],"forks":[],"joins":[]},"explain":`,
      ),
    ).toBe(true);
    expect(r.json.explain.blocked).toEqual([
      { leaf: "2", reason: "dependencies-or-unreleased-leases", blockedBy: ["1"], why: "needs 1 (READY)" },
    ]);
  });

  test("the golden scope through verification, a sealed wave, a return and an abandoned gate", async () => {
    const dir = fixtureCopy("next-golden");
    const plan = path.join(dir, SCOPE, "PLAN.md");
    const access = path.join(dir, SCOPE, "ACCESS.json");
    const original = fs.readFileSync(access, "utf8");
    fs.writeFileSync(
      access,
      original.replace(
        `"3":{"complete":true,"reads":["contracts/**"],"resourceReads":[]`,
        `"3":{"complete":true,"reads":["contracts/**"],"resourceReads":["db:test"]`,
      ),
    );
    let r = await next(dir);
    expect([r.json.launch, r.json.blocked]).toEqual([
      ["1"],
      { "dependencies-or-unreleased-leases": 1, "selected-conflict": 1 },
    ]);
    fs.writeFileSync(access, original);

    fs.writeFileSync(
      plan,
      fs
        .readFileSync(plan, "utf8")
        .replace("| 1 | mechanical | 1 | READY |", "| 1 | mechanical | 1 | VERIFIED |")
        .replace("| src/1/** | - | mechanical | 1 | READY |", "| src/1/** | - | mechanical | 1 | VERIFIED |"),
    );
    writeTree(dir, {
      [`${SCOPE}/gates/leaf-1.md`]: "OWNS: src/1/**\n\n- [x] G1: leaf 1 deliverable\n  EVIDENCE: reviewed\n",
    });
    r = await next(dir);
    expect([r.code, r.json.launch, r.json.promote, r.json.continuations, r.json.blocked]).toEqual([
      0,
      ["2", "3"],
      ["2"],
      [{ leaf: "2", after: "1", handle: null }],
      {},
    ]);

    const w = (returned: boolean) => ({
      schema: 1,
      waves: {
        w1: {
          leaves: ["leaf-3"],
          state: returned ? "complete" : "sealed",
          openedAt: "2026-09-23T10:00:00.000Z",
          started: { "leaf-3": { handle: "agent-3", at: "2026-09-23T10:00:01.000Z" } },
          returned: returned ? { "leaf-3": { at: "2026-09-23T10:07:00.000Z" } } : {},
          sealedAt: "2026-09-23T10:00:02.000Z",
          ...(returned ? { completedAt: "2026-09-23T10:07:00.000Z" } : {}),
        },
      },
    });
    writeTree(dir, { [`${SCOPE}/dispatch.json`]: JSON.stringify(w(false)) });
    r = await next(dir);
    expect([r.json.counts, r.json.launch, r.json.active]).toEqual([
      { tasks: 3, sequentialGroups: 2, active: 1, selected: 1 },
      ["2"],
      ["3"],
    ]);

    writeTree(dir, { [`${SCOPE}/dispatch.json`]: JSON.stringify(w(true)) });
    const two = await runCli(["next", "--scope", "api", "--slots", "2", "--json"], { cwd: dir });
    expect(JSON.parse(two.stdout)).toMatchObject({ launch: ["2"], awaitVerification: ["3"], active: ["3"] });

    writeTree(dir, {
      [`${SCOPE}/gates/leaf-3.md`]:
        "OWNS: src/3/**\n\n- [ ] G1: leaf 3 deliverable\n  EVIDENCE: pending\nABANDON: G1 out of scope\n",
    });
    const before = hashTree(dir);
    r = await next(dir);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      action: "review",
      launch: [],
      blocked: { "attention-required": 1 },
      attention: [{ leaf: "3", reason: "handoff" }],
    });
    expect(hashTree(dir)).toBe(before);
  });
});

describe("kbz next fails closed on bad input (kill Appendix A.1)", () => {
  const base: TaskSpec[] = [{ id: "1" }, { id: "2", needs: ["1"] }];

  test("usage: --slots 0, --scope ../x, a repeated --slots, a missing value, an unknown option, no scope among two", async () => {
    const dir = scopeDir(base);
    await expectInvalid(dir, /^invalid slots$/, ["next", "--scope", "api", "--slots", "0", "--json"]);
    await expectInvalid(dir, /^invalid scope$/, ["next", "--scope", "../x", "--slots", "1", "--json"]);
    await expectInvalid(dir, /^unknown or duplicate option/, [
      "next",
      "--scope",
      "api",
      "--slots",
      "1",
      "--slots",
      "2",
      "--json",
    ]);
    await expectInvalid(dir, /^missing option value/, ["next", "--scope", "api", "--slots", "--json"]);
    await expectInvalid(dir, /^unknown or duplicate option/, [
      "next",
      "--scope",
      "api",
      "--slots",
      "1",
      "--bogus",
      "--json",
    ]);
    await expectInvalid(scopeDir(base, { ".unlazy/web/GATES.md": "- [ ] G1: t\n" }), /^invalid scope$/, [
      "next",
      "--json",
    ]);
    await expectInvalid(dir, /^no such scope "web"/, ["next", "--scope", "web", "--slots", "1", "--json"]);
  });

  test("without --json a usage error is a kbz: line, its hint and the --help pointer on stderr, exit 2", async () => {
    const r = await runCli(["next", "--scope", "api", "--slots", "0"], { cwd: scopeDir(base) });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "kbz: invalid slots\n  hint: --slots is the total number of leaves running at once, a positive integer (default 4)\nrun kbz --help for usage\n",
    ]);
  });

  test("without --json a file error is <file>:<line>: <message> with no --help pointer", async () => {
    const r = await runCli(["next", "--scope", "api"], { cwd: scopeDir(base, { [`${SCOPE}/dispatch.json`]: "{" }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^\.unlazy\/api\/dispatch\.json:1: invalid dispatch state: not valid JSON/);
    expect(r.stderr).not.toContain("--help");
  });

  test("an extra leaf ledger not in PLAN is refused (leaves must match ledgers)", async () => {
    const dir = scopeDir(base, { [`${SCOPE}/gates/leaf-forgotten.md`]: "OWNS: x/**\n- [ ] G1: t\n" });
    await expectInvalid(
      dir,
      /^\.unlazy\/api\/gates: PLAN leaves must match scope leaf ledgers exactly \(not in PLAN: leaf-forgotten\.md\)$/,
    );
  });

  test("ACCESS revision, missing reads and ledger OWNS that disagree with PLAN are each refused", async () => {
    const files = scopeFiles(base);
    const dir = scopeDir(base, {
      [`${SCOPE}/ACCESS.json`]: files[`${SCOPE}/ACCESS.json`]!.replace('"contractRevision":1', '"contractRevision":2'),
    });
    await expectInvalid(dir, /^\.unlazy\/api\/ACCESS\.json: ACCESS schema\/revision must match PLAN/);
    const noReads = scopeDir(base, {
      [`${SCOPE}/ACCESS.json`]: files[`${SCOPE}/ACCESS.json`]!.replace('"reads":["contracts/**"],', ""),
    });
    await expectInvalid(noReads, /1 reads must be an array of nonblank strings$/);
    const owns = scopeDir(base, { [`${SCOPE}/gates/leaf-2.md`]: "OWNS: src/other/**\n\n- [ ] G1: t\n" });
    await expectInvalid(
      owns,
      /^\.unlazy\/api\/gates\/leaf-2\.md:1: PLAN Owns must equal ledger OWNS for 2 \(PLAN: src\/2\/\*\*; OWNS: src\/other\/\*\*\)$/,
    );
    const none = scopeDir(base, { [`${SCOPE}/gates/leaf-2.md`]: "- [ ] G1: t\n" });
    await expectInvalid(none, /PLAN Owns must equal ledger OWNS for 2 .*OWNS: none/);
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/ACCESS.json`]: '{"schema":1,' }),
      /^\.unlazy\/api\/ACCESS\.json: invalid JSON/,
    );
  });

  test("a cycle, an unknown dependency, a duplicate id and a ../ owns path name the row", async () => {
    const plan = (rows: string) => ({
      [`${SCOPE}/PLAN.md`]: `Contract revision: 1.\n| Leaf | Owns | Needs | Tier | Planned wave | State |\n|---|---|---|---|---|---|\n${rows}`,
    });
    await expectInvalid(
      scopeDir(
        base,
        plan("| 1 | src/1/** | 2 | judgment | 1 | WAITING |\n| 2 | src/2/** | 1 | judgment | 2 | WAITING |\n"),
      ),
      /PLAN\.md:4: dependency cycle in PLAN: 1 needs 2 needs 1$/,
    );
    await expectInvalid(
      scopeDir(
        base,
        plan("| 1 | src/1/** | 9 | judgment | 2 | WAITING |\n| 2 | src/2/** | 1 | judgment | 3 | WAITING |\n"),
      ),
      /PLAN\.md:4: unknown dependency 9 \(needed by 1\)$/,
    );
    await expectInvalid(
      scopeDir(
        base,
        plan("| 1 | src/1/** | - | judgment | 1 | READY |\n| 1 | src/2/** | - | judgment | 1 | READY |\n"),
      ),
      /PLAN\.md:5: duplicate PLAN leaf id 1/,
    );
    await expectInvalid(
      scopeDir(
        base,
        plan("| 1 | ../src/** | - | judgment | 1 | READY |\n| 2 | src/2/** | 1 | judgment | 2 | WAITING |\n"),
      ),
      /PLAN\.md:4: 1 Owns contains an invalid or placeholder path: \.\.\/src\/\*\*$/,
    );
  });

  test("an invalid leaf ledger names the leaf and the line", async () => {
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/gates/leaf-2.md`]: "OWNS: src/2/**\n- [ ] G1: t\n  CHECK: x\n" }),
      /leaf-2\.md:2: invalid leaf ledger 2: line 2: gate G1: runnable gates require both/,
    );
  });

  test("structure state: a pending journal, a registry that fails verification, an S_STRUCTURE gate without registry", async () => {
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/STRUCTURE.pending.json`]: "{}" }),
      /pending structure transaction: recover first$/,
    );
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/STRUCTURE.json`]: "{}" }),
      /structure verification failed: root GATES\.md required$/,
    );
    await expectInvalid(
      scopeDir(base, {
        [`${SCOPE}/GATES.md`]: "- [ ] S_STRUCTURE: structure ok\n  CHECK: x\n  EXPECT: STRUCTURE_OK\n",
      }),
      /structure registry missing: reconcile before scheduling$/,
    );
  });

  test("dispatch.json: invalid JSON, an unknown leaf, a duplicate handle", async () => {
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/dispatch.json`]: "{" }),
      /^\.unlazy\/api\/dispatch\.json:1: invalid dispatch state: not valid JSON/,
    );
    const unknown = {
      schema: 1,
      waves: {
        w1: { leaves: ["leaf-9"], state: "open", openedAt: "2026-01-01T00:00:00.000Z", started: {}, returned: {} },
      },
    };
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/dispatch.json`]: JSON.stringify(unknown) }),
      /dispatch references unknown leaf leaf-9 \(wave w1\)$/,
    );
    const started = {
      "leaf-1": { handle: "h", at: "2026-01-01T00:00:01.000Z" },
      "leaf-2": { handle: "h", at: "2026-01-01T00:00:02.000Z" },
    };
    const dup = {
      schema: 1,
      waves: {
        w1: {
          leaves: ["leaf-1", "leaf-2"],
          state: "open",
          openedAt: "2026-01-01T00:00:00.000Z",
          started,
          returned: {},
        },
      },
    };
    await expectInvalid(
      scopeDir(base, { [`${SCOPE}/dispatch.json`]: JSON.stringify(dup) }),
      /^\.unlazy\/api\/dispatch\.json:1: invalid dispatch state: .*handle/,
    );
  });

  test("a symlinked PLAN.md is refused by the stable reader", async () => {
    const dir = scopeDir(base);
    const plan = path.join(dir, SCOPE, "PLAN.md");
    fs.renameSync(plan, path.join(dir, "real-plan.md"));
    fs.symlinkSync(path.join(dir, "real-plan.md"), plan);
    await expectInvalid(dir, /PLAN\.md must be one unchanged regular single-link file/);
  });

  test("a FIFO ledger and a hard-linked ledger are refused without blocking", async () => {
    const fifo = scopeDir(base);
    const ledger = path.join(fifo, SCOPE, "gates", "leaf-2.md");
    fs.rmSync(ledger);
    execFileSync("mkfifo", [ledger]);
    await expectInvalid(fifo, /gates\/leaf-2\.md:1: leaf-2\.md must be one unchanged regular single-link file/);
    const linked = scopeDir(base);
    fs.linkSync(path.join(linked, SCOPE, "gates", "leaf-1.md"), path.join(linked, "copy.md"));
    await expectInvalid(linked, /gates\/leaf-1\.md:1: leaf-1\.md must be one unchanged regular single-link file/);
  });
});

describe("kbz next on real scopes", () => {
  test("a VERIFIED predecessor whose automatic evidence is for a different CHECK forces review", async () => {
    const digest = definitionDigest("node old.mjs", "OK", null);
    const evidence = `automatic-evidence=v1; definition-sha256=${digest}; exit=0; EXPECT=matched; output-sha256=${"0".repeat(64)}; output-bytes=3; shell=/bin/sh; cwd=.; path=000000000000/1 entries`;
    const dir = scopeDir(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"] },
      ],
      {
        [`${SCOPE}/gates/leaf-1.md`]: `OWNS: src/1/**\n\n- [x] G1: built\n  CHECK: node new.mjs\n  EXPECT: OK\n  EVIDENCE: ${evidence}\n`,
      },
    );
    const r = await next(dir);
    expect([r.code, r.json.action, r.json.launch, r.json.attention]).toEqual([
      1,
      "review",
      [],
      [{ leaf: "1", reason: "verified-ledger-not-met" }],
    ]);
  });

  test("a lease held by another scope forces review; a corrupt lease too", async () => {
    const tasks: TaskSpec[] = [{ id: "1" }, { id: "2" }];
    const r = await next(scopeDir(tasks, leaseFile("web", "leaf-1", ["docs/**"])));
    expect([r.code, r.json.action, r.json.launch, r.json.attention]).toEqual([
      1,
      "review",
      [],
      [{ reason: "external-or-invalid-lease-needs-review" }],
    ]);
    const corrupt = await next(scopeDir(tasks, { ".unlazy/locks/0123.lease": "{not json" }));
    expect(corrupt.json.blocked).toEqual({ "live-lease-conflict": 2 });
  });

  test("own leases: a released dependency unblocks; a held one blocks; a claimed candidate is alreadyClaimed", async () => {
    const tasks: TaskSpec[] = [{ id: "1", state: "VERIFIED" }, { id: "2", needs: ["1"] }, { id: "3" }];
    const r = await next(
      scopeDir(tasks, { ...leaseFile("api", "leaf-1", ["src/1/**"]), ...leaseFile("api", "leaf-3", ["src/3/**"]) }),
    );
    expect([r.json.launch, r.json.alreadyClaimed, r.json.blocked]).toEqual([
      ["3"],
      ["3"],
      { "dependencies-or-unreleased-leases": 1 },
    ]);
  });

  test("two calls are deep-equal, write nothing, omit structure without --details and stay under 1000 characters", async () => {
    const dir = scopeDir([{ id: "1" }, { id: "2", needs: ["1"] }, { id: "3" }]);
    const before = hashTree(dir);
    const a = await next(dir);
    const b = await next(dir);
    expect(b.json).toEqual(a.json);
    expect(a.stdout.length).toBeLessThan(1000);
    expect("structure" in a.json).toBe(false);
    expect(hashTree(dir)).toBe(before);
  });

  test("natural order by default, code-unit order with --original-order", async () => {
    const tasks: TaskSpec[] = [
      { id: "10", owns: ["src/x/**"] },
      { id: "2", owns: ["src/x/**"] },
    ];
    expect((await next(scopeDir(tasks))).json.launch).toEqual(["2"]);
    const dir = scopeDir(tasks);
    const natural = (await next(dir)).json;
    const original = (await next(dir, ["--original-order"])).json;
    expect(original.launch).toEqual(["10"]);
    // The fingerprint covers the inputs, read in the original order, not the display order.
    expect(original.snapshot).toBe(natural.snapshot);
  });

  test("the human summary names what launches, what waits, and the one launch call", async () => {
    const r = await runCli(["next", "--scope", "api", "--slots", "1"], { cwd: fixtureCopy("next-golden") });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "scope api: 3 task(s), 1 slot(s), 0 active, mode orchestrated",
        "LAUNCH 1: 1",
        "WAITING 2: 2, 3 (--details says why)",
        "DISPATCH: kbz next --scope api --launch starts them (leases, wave, handles); as each returns run kbz advance --scope api --leaf LEAF",
        "",
      ].join("\n"),
    );
  });

  test("--details lists the separate launch steps, what waits and why, and the action", async () => {
    const r = await runCli(["next", "--scope", "api", "--slots", "1", "--details"], {
      cwd: fixtureCopy("next-golden"),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(
      [
        "scope api: 3 task(s), 1 slot(s), 0 active, mode orchestrated",
        "LAUNCH 1: 1",
        "  kbz scope claim --scope api --leaf leaf-1",
        "  kbz wave open --scope api --wave w1 --leaf leaf-1",
        "  kbz wave start --scope api --wave w1 --leaf leaf-1 --handle <agent handle>",
        "  kbz wave seal --scope api --wave w1",
        "WAITING 2:",
        "  2 (dependencies-or-unreleased-leases): needs 1 (READY)",
        "  3 (slots): no free slot: 1 slot(s), 0 active, 1 selected",
        "",
      ].join("\n"),
    );
  });

  test("the human summary for wait-or-verify and verify-root, both exit 0", async () => {
    const waiting = await runCli(["next", "--scope", "api", "--slots", "1"], {
      cwd: scopeDir([
        { id: "1", state: "IN-FLIGHT" },
        { id: "2", needs: ["1"] },
      ]),
    });
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toContain("ACTIVE 1: 1\nWAITING 1: 2 (--details says why)\n");
    expect(waiting.stdout.trimEnd().split("\n").pop()).toBe(
      "WAIT-OR-VERIFY: nothing new can start: when a leaf returns run kbz advance --scope api --leaf LEAF",
    );
    const done = await runCli(["next", "--scope", "api", "--slots", "1"], {
      cwd: scopeDir([
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"], state: "VERIFIED" },
      ]),
    });
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(
      "scope api: 2 task(s), 1 slot(s), 0 active, mode solo\nVERIFY-ROOT: every task is VERIFIED: run kbz check --scope api --reverify, then kbz scope release --scope api\n",
    );
  });

  test("--details adds the sequential groups, forks and joins to the summary", async () => {
    const dir = scopeDir([
      { id: "1" },
      { id: "2", needs: ["1"] },
      { id: "3", needs: ["1"] },
      { id: "4", needs: ["2", "3"] },
    ]);
    const r = await runCli(["next", "--scope", "api", "--slots", "2", "--details"], { cwd: dir });
    expect(r.stdout).toContain(
      "GROUPS 4 (one per leaf until a structure event); CHAINS 4: 1 | 2 | 3 | 4\n  fork: 1 -> 2, 3\n  join: 4 <- 2, 3\n",
    );
  });

  test("with --root the printed commands carry the root as one shell word", async () => {
    const parent = tempDir();
    const root = path.join(parent, "my repo");
    fs.cpSync(path.join(import.meta.dir, "..", "fixtures", "next-golden"), root, { recursive: true });
    const r = await runCli(["next", "--scope", "api", "--slots", "1", "--details", "--root", root], { cwd: parent });
    expect(r.stdout).toContain(`  kbz scope claim --scope api --root '${root}' --leaf leaf-1\n`);
  });

  test("the human summary names review items with the tasks they concern, exit 1", async () => {
    const dir = scopeDir([{ id: "1" }, { id: "2", needs: ["1"] }], leaseFile("web", "leaf-1", ["src/1/**"]));
    const r = await runCli(["next", "--scope", "api", "--slots", "2", "--details"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("REVIEW 1:\n  external-or-invalid-lease-needs-review: lease web/leaf-1; concerns 1\n");
    expect(r.stdout).toContain("  1 (live-lease-conflict): src/1/** overlaps src/1/** leased by web/leaf-1\n");
    expect(r.stdout.trimEnd().split("\n").pop()).toBe(
      "REVIEW: review the items above before anything is launched (skill: references/orchestration.md, review items)",
    );
  });

  test("a continuation names the agent to reuse; promotions and existing waves shape the commands", async () => {
    const waves = {
      schema: 1,
      waves: {
        w4: {
          leaves: ["leaf-1"],
          state: "complete",
          openedAt: "2026-01-01T00:00:00.000Z",
          started: { "leaf-1": { handle: "agent-7", at: "2026-01-01T00:00:01.000Z" } },
          returned: { "leaf-1": { at: "2026-01-01T00:01:00.000Z" } },
          sealedAt: "2026-01-01T00:00:02.000Z",
          completedAt: "2026-01-01T00:01:00.000Z",
        },
      },
    };
    const dir = scopeDir(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", needs: ["1"] },
      ],
      { [`${SCOPE}/dispatch.json`]: JSON.stringify(waves) },
    );
    const r = await runCli(["next", "--scope", "api", "--slots", "2", "--details"], { cwd: dir });
    expect(r.stdout).not.toContain("PLAN.md"); // wave start promotes and marks IN-FLIGHT itself
    expect(r.stdout).toContain("  kbz wave open --scope api --wave w5 --leaf leaf-2\n");
    expect(r.stdout).toContain(
      "--leaf leaf-2 --handle <agent handle>   # continues 1: reuse agent agent-7 if the host still has it\n",
    );
  });
});
