// The vacuity probe (issue 18; unlazy issue 13): a passed gate's CHECK re-run in the sandbox
// with its deliverable hidden. Skipped only where bwrap cannot run, never in CI (KBZ_CI=1).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { runCli } from "../helpers/cli.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { reasonOf, stopHook } from "../helpers/hook.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(120_000);

const usable = { ok: needs("bwrap") };

const gate = (title: string, check: string, expectText: string, inputs?: string) =>
  `- [ ] G1: ${title}\n  CHECK: ${check}\n  EXPECT: ${expectText}\n${inputs ? `  INPUTS: ${inputs}\n` : ""}  EVIDENCE: pending\n`;

function repo(files: Record<string, string>) {
  const dir = tempDir();
  writeTree(dir, files);
  const env = agentEnv();
  const run = (args: string[]) => runCli(args, { cwd: dir, env }); // in-process, so coverage sees src/cli
  return { dir, env, run };
}

describe.skipIf(!usable.ok)("kbz check --probe", () => {
  test("the unlazy issue-13 ledger (echo ok for a UI claim) is VACUOUS: it passes with the built UI hidden", async () => {
    const { dir, run } = repo({
      "GATES.md": `# Gates: ui\n\n${gate("all 8 planets are clickable in the built UI", "echo ok", "ok")}`,
    });
    const git = (...a: string[]) => spawnSync("git", ["-C", dir, ...a], { encoding: "utf8" });
    git("init", "-q");
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "GATES.md");
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "ledger");
    writeTree(dir, { "dist/index.html": "<canvas id=planets></canvas>\n" }); // the work: differs from HEAD
    expect((await run(["check", "--approve"])).code).toBe(0);
    const before = fs.readFileSync(path.join(dir, "GATES.md"), "utf8");
    const r = await run(["check", "--probe", "--approve"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  VACUOUS GATES:G1: passed with its deliverable hidden (git: dist/index.html)");
    expect(fs.readFileSync(path.join(dir, "GATES.md"), "utf8")).toBe(before); // never writes evidence
    const s = await run(["status"]);
    expect(s.code).toBe(1); // a VACUOUS gate is unmet (issue 27)
    expect(s.stdout).toContain(
      "VACUOUS     GATES:G1 (its CHECK passed with its deliverable hidden: dist/index.html; a person makes the CHECK observe it and approves it, then kbz check)",
    );
    expect((await run(["lint", "--probe", "GATES.md"])).stdout).toContain("VACUOUS GATES:G1");
  });

  test("an oracle script that ignores its target is VACUOUS; a real oracle over the same target is not", async () => {
    const { run } = repo({
      "GATES.md": `# Gates: oracle\n\n${gate("target holds the value", "sh ignores.sh", "ok", "target.txt")}\n${gate("target holds the value", "sh reads.sh", "ok", "target.txt").replace("G1", "G2")}`,
      "ignores.sh": "echo ok\n",
      "reads.sh": "grep -qx good target.txt && echo ok\n",
      "target.txt": "good\n",
    });
    expect((await run(["check", "--approve"])).code).toBe(0);
    const r = await run(["check", "--probe", "--approve"]);
    expect(r.stdout).toContain("  VACUOUS GATES:G1: passed with its deliverable hidden (INPUTS: target.txt)");
    expect(r.stdout).toContain("  OBSERVES GATES:G2: failed with its deliverable hidden (INPUTS: target.txt)");
    expect(r.stdout.trimEnd().split("\n").pop()).toBe("VACUOUS: 1 (1 observe, 0 not probed)");
  });

  test("a check that legitimately passes on an empty target is reported with what was hidden, so a person can judge", async () => {
    const { run } = repo({
      "GATES.md": `# Gates: log\n\n${gate("no errors were logged", "test ! -s errors.log && echo ok", "ok", "errors.log")}`,
      "errors.log": "",
    });
    expect((await run(["check", "--approve"])).code).toBe(0);
    const r = await run(["check", "--probe", "--approve", "--json"]);
    const e = JSON.parse(r.stdout);
    expect(e.probes).toEqual([
      {
        qid: "GATES:G1",
        verdict: "vacuous",
        hiddenFrom: "INPUTS",
        hidden: ["errors.log"],
        approvalRecorded: expect.any(String),
      },
    ]);
  });

  test("the probe never runs without its own approval, and the Stop hook names a VACUOUS gate", async () => {
    const { dir, env, run } = repo({
      "GATES.md": `# Gates: p\n\n${gate("marker", "touch ran-$$; echo ok", "ok", "target.txt")}`,
      "target.txt": "x\n",
    });
    expect((await run(["check", "--approve"])).code).toBe(0);
    const before = fs.readdirSync(dir).filter((n) => n.startsWith("ran-")).length;
    const r = await run(["check", "--probe"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("APPROVAL REQUIRED GATES:G1 (probe");
    expect(fs.readdirSync(dir).filter((n) => n.startsWith("ran-")).length).toBe(before);
    expect((await run(["check", "--probe", "--approve"])).stdout).toContain("VACUOUS GATES:G1");
    // A VACUOUS gate is unmet, so the hook blocks, naming it and what was hidden.
    const h = stopHook({ cwd: dir, session_id: "p1", hook_event_name: "Stop" }, { env });
    expect(reasonOf(h)).toContain(
      "1 gate/ledger/dispatch item(s) need work: GATES:G1 VACUOUS (its CHECK passed with its deliverable hidden: target.txt;",
    );
    // With another gate unmet, the block's reason names both.
    fs.appendFileSync(path.join(dir, "GATES.md"), "\n- [ ] G2: more work\n  EVIDENCE: pending\n");
    expect(reasonOf(stopHook({ cwd: dir, session_id: "p2", hook_event_name: "Stop" }, { env }))).toContain(
      "2 gate/ledger/dispatch item(s) need work: GATES:G1 VACUOUS",
    );
  });

  test("a probe that times out is NOT RUN, never OBSERVES: only a CHECK that ran to its end and failed observes", async () => {
    const { run } = repo({
      "GATES.md": `# Gates: slow\n\n${gate("target holds the value", "sleep 2; echo ok", "ok", "target.txt")}`,
      "target.txt": "good\n",
    });
    expect((await run(["check", "--approve"])).code).toBe(0);
    const r = await run(["check", "--probe", "--approve", "--timeout", "1"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  NOT RUN GATES:G1: timed out after 1s");
    expect(r.stdout).not.toContain("OBSERVES");
    expect(r.stdout.trimEnd().split("\n").pop()).toBe("PROBE INCOMPLETE (0 observe, 1 not probed)");
  });
});
