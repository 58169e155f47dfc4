// kbz check and the processes its CHECKs start (issue 15): recursion, nested timeouts, daemons.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { pidsWith, token } from "../helpers/procs.ts";

setDefaultTimeout(120_000);

const gate = (id: string, check: string, expectText: string) =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ${expectText}\n  EVIDENCE: pending\n`;
const ledger = (...gates: string[]) => `# Gates: contain\n\n${gates.join("\n")}`;

function repo(files: Record<string, string>) {
  const dir = tempDir();
  writeTree(dir, files);
  // The binary's directory first, so a CHECK can call `kbz` by name.
  const env = agentEnv({ PATH: `${path.dirname(BIN)}:/usr/bin:/bin` });
  const run = (args: string[], timeoutMs = 60_000) => kbz(["check", ...args], { cwd: dir, env, timeoutMs });
  return { dir, env, run };
}

describe("the recursion guard", () => {
  test("the self-recursive gate FAILs fast with a cycle message and leaves no process behind", () => {
    const { run } = repo({ "GATES.md": ledger(gate("G1", "kbz check --reverify", "ALL MET")) });
    const t0 = Date.now();
    const r = run(["--approve"]);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  FAIL GATES:G1");
    expect(r.stdout).toContain("recursion refused: cycle GATES.md:G1 -> GATES.md:G1");
    expect(pidsWith("kbz check --reverify")).toEqual([]);
  });

  test("a gate met before is not counted met by a nested run that refuses it", () => {
    const { run, env, dir } = repo({ "GATES.md": ledger(gate("G1", "printf ok", "ok")) });
    expect(run(["--approve"]).code).toBe(0);
    const chain = JSON.stringify([`${fs.realpathSync(path.join(dir, "GATES.md"))}:G1`]);
    const r = kbz(["check", "--reverify"], { cwd: dir, env: { ...env, KBZ_CHECK_CHAIN: chain } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("GATES:G1 (recursion refused)");
  });

  test("nesting deeper than 8 is refused", () => {
    const { dir, env } = repo({ "GATES.md": ledger(gate("G1", "printf ok", "ok")) });
    const chain = JSON.stringify(Array.from({ length: 8 }, (_, i) => `/elsewhere/l${i}.md:G1`));
    const r = kbz(["check", "--approve"], { cwd: dir, env: { ...env, KBZ_CHECK_CHAIN: chain } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("recursion refused: kbz check nested deeper than 8");
    const seven = JSON.stringify(Array.from({ length: 7 }, (_, i) => `/elsewhere/l${i}.md:G1`));
    expect(kbz(["check", "--approve"], { cwd: dir, env: { ...env, KBZ_CHECK_CHAIN: seven } }).code).toBe(0);
  });
});

describe("a whole tree is a whole tree", () => {
  test("the nested-timeout tree leaves 0 processes", () => {
    const t = token();
    const { run, dir } = repo({
      "child.md": ledger(gate("C1", `test -f go && sh -c 'sleep ${t}; echo late'; echo done`, "done")),
      "parent.md": ledger(gate("P1", "kbz check --reverify --cwd . child.md", "ALL MET")),
    });
    expect(run(["--approve", "--cwd", ".", "child.md"]).code).toBe(0); // approve the child's exact oracle
    fs.writeFileSync(path.join(dir, "go"), "");
    const t0 = Date.now();
    const r = run(["--approve", "--timeout", "3", "parent.md"]);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.stdout).toContain("timed out after 3s");
    expect(pidsWith(`sleep ${t}`)).toEqual([]);
    expect(pidsWith("kbz check --reverify --cwd . child.md")).toEqual([]);
  });

  test("a setsid daemon and a nohup child are gone after the check ends and after a timeout (checked by pid)", () => {
    const [a, b, c, d] = [token(), token(), token(), token()];
    const { run } = repo({
      "GATES.md": ledger(
        gate("G1", `setsid sleep ${a} >/dev/null 2>&1 & nohup sleep ${b} >/dev/null 2>&1 & echo ok`, "ok"),
        gate("G2", `setsid sleep ${c} >/dev/null 2>&1 & nohup sleep ${d} >/dev/null 2>&1 & sleep 60`, "never"),
      ),
    });
    const r = run(["--approve", "--timeout", "2"]);
    expect(r.stdout).toContain("UNMET: 1 (met: 1)"); // G1 passed; G2 timed out
    expect(r.stdout).toContain("timed out after 2s");
    for (const t of [a, b, c, d]) expect(pidsWith(`sleep ${t}`)).toEqual([]);
  });

  test("a child holding the pipes does not hang kbz", () => {
    const t = token();
    const { run } = repo({ "GATES.md": ledger(gate("G1", `setsid sleep ${t} & echo ok`, "ok")) });
    const t0 = Date.now();
    const r = run(["--approve"]);
    expect(Date.now() - t0).toBeLessThan(20_000); // the daemon holds the pipes for minutes
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ALL MET (1 met)");
    expect(pidsWith(`sleep ${t}`)).toEqual([]);
  });

  test("--help names the containment in force", () => {
    const r = kbz(["check", "--help"]);
    expect(r.stdout).toMatch(/containment: (cgroup v2 per check|PID namespace per check|process group per check only)/);
  });
});

describe("CWD is bound by its real path", () => {
  test("after approving CWD: cw with cw -> d1, retargeting cw to d2 needs a new approval and does not run d2/t.sh", () => {
    const { dir, env } = repo({
      "d1/t.sh": "echo ran-d1 > ../ran-d1; echo ok\n",
      "d2/t.sh": "echo ran-d2 > ../ran-d2; echo ok\n",
      "GATES.md":
        "# Gates: cwd\n\n- [ ] G1: runs t.sh\n  CHECK: sh t.sh\n  EXPECT: ok\n  CWD: cw\n  EVIDENCE: pending\n",
    });
    fs.symlinkSync("d1", path.join(dir, "cw"));
    const first = kbz(["check", "--approve"], { cwd: dir, env });
    expect(first.code).toBe(0);
    expect(fs.existsSync(path.join(dir, "ran-d1"))).toBe(true);
    fs.unlinkSync(path.join(dir, "cw"));
    fs.symlinkSync("d2", path.join(dir, "cw"));
    const r = kbz(["check", "--reverify"], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    // The difference names the real folder the approval was for, not the link's name.
    expect(r.stdout).toContain(`CWD: approved for ${dir}/d1`);
    expect(fs.existsSync(path.join(dir, "ran-d2"))).toBe(false);
  });
});

describe("writes stay inside the root", () => {
  test("kbz check --approve --root repoX /elsewhere/x.md exits 2 and never rewrites that file; status reads it", () => {
    const repoX = tempDir();
    const elsewhere = tempDir();
    const text = ledger(gate("G1", "printf ok", "ok"));
    writeTree(repoX, { "GATES.md": text });
    writeTree(elsewhere, { "x.md": text });
    const env = agentEnv();
    const x = path.join(elsewhere, "x.md");
    const r = kbz(["check", "--approve", "--root", repoX, x], { cwd: repoX, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${x}: ledger is outside the root ${repoX}; kbz check writes only inside the root`);
    expect(r.stdout).not.toContain("RUN");
    expect(fs.readFileSync(x, "utf8")).toBe(text);
    const s = kbz(["status", "--root", repoX, x], { cwd: repoX, env });
    expect(s.code).toBe(1);
    expect(s.stdout).toContain("x:G1");
  });
});
