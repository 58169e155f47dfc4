// kbz check behaviours from unlazy's run-tests and hardening-tests inventories (docs/formats.md#fixes).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { BIN, hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentApprovalDir, agentEnv, approvalRecords, personRun } from "../helpers/approvals.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const gate = (id: string, check: string, expectText: string, extra = "") =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ${expectText}\n${extra}  EVIDENCE: pending\n`;

function repo(files: Record<string, string>) {
  const dir = tempDir();
  writeTree(dir, files);
  const env = agentEnv();
  const run = (args: string[], more: Record<string, string> = {}) =>
    kbz(["check", "--verbose", ...args], { cwd: dir, env: { ...env, ...more } });
  const read = (f = "GATES.md") => fs.readFileSync(path.join(dir, f), "utf8");
  return { dir, env, run, read };
}

describe("what runs and where", () => {
  test("two explicit ledgers are both run; ALL MET (2 met)", () => {
    const { run } = repo({ "leaf-a.md": gate("G1", "printf A", "A"), "leaf-b.md": gate("G1", "printf B", "B") });
    const r = run(["--approve", "leaf-a.md", "leaf-b.md"]);
    expect(r.stdout).toContain("  PASS leaf-a:G1");
    expect(r.stdout).toContain("  PASS leaf-b:G1");
    expect(r.stdout.trimEnd().split("\n").pop()).toBe("ALL MET (2 met)");
    expect(r.code).toBe(0);
  });

  test("one explicit ledger never widens to its siblings", () => {
    const { run, read } = repo({ "leaf-a.md": gate("G1", "printf A", "A"), "leaf-b.md": gate("G1", "printf B", "B") });
    const r = run(["--approve", "leaf-a.md"]);
    expect(r.stdout).not.toContain("leaf-b");
    expect(read("leaf-b.md")).toBe(gate("G1", "printf B", "B"));
  });

  test("--scope runs only that pipeline and says so; the other is untouched", () => {
    const { dir, run } = repo({
      ".unlazy/api/gates/leaf-1.md": gate("G1", "printf A", "A"),
      ".unlazy/web/gates/leaf-1.md": gate("G1", "printf W", "W"),
    });
    const web = path.join(dir, ".unlazy/web");
    const before = hashTree(web);
    const r = run(["--approve", "--scope", "api"]);
    expect(r.stdout.trimEnd().split("\n").pop()).toBe("ALL MET (1 met) [scope api]");
    expect(hashTree(web)).toBe(before);
  });

  test("two pipelines and no scope: exit 2 naming both, nothing modified", () => {
    const { dir, run } = repo({
      ".unlazy/api/GATES.md": gate("G1", "printf A", "A"),
      ".unlazy/web/GATES.md": gate("G1", "printf W", "W"),
    });
    const before = hashTree(dir);
    const r = run(["--approve"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("2 scopes present (api, web)");
    expect(hashTree(dir)).toBe(before);
  });

  test("UNLAZY_SCOPE selects the pipeline", () => {
    const { run } = repo({
      ".unlazy/api/GATES.md": gate("G1", "printf A", "A"),
      ".unlazy/web/GATES.md": gate("G1", "printf W", "W"),
    });
    const r = run(["--approve"], { UNLAZY_SCOPE: "web" });
    expect(r.stdout).toContain("ALL MET (1 met) [scope web]");
  });

  test("the legacy root GATES.md works", () => {
    const { run } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    const r = run(["--approve"]);
    expect(r.stdout).toContain("  PASS GATES:G1");
    expect(r.stdout).toContain("ALL MET (1 met)");
  });

  test("CWD: sub runs the check in that directory", () => {
    const { dir, run, read } = repo({ "GATES.md": gate("G1", "pwd", "/sub", "  CWD: sub\n"), "sub/.keep": "" });
    const r = run(["--approve"]);
    expect(r.code).toBe(0);
    expect(read()).toContain(`cwd=${path.join(dir, "sub")}; path=`);
  });

  test("a missing CWD is a usage error before anything runs", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x", "  CWD: nowhere\n") });
    const r = run(["--approve"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`gate GATES:G1 CWD does not exist: ${path.join(dir, "nowhere")}`);
    expect(fs.existsSync(path.join(dir, "ran"))).toBe(false);
  });

  test("explicit ledgers in two directories each run beside their own ledger", () => {
    const { dir, run, read } = repo({ "a/leaf.md": gate("G1", "pwd", "/a"), "b/leaf.md": gate("G1", "pwd", "/b") });
    const r = run(["--approve", "--timeout", "5", "a/leaf.md", "b/leaf.md"]);
    expect(r.code).toBe(0);
    expect(read("a/leaf.md")).toContain(`cwd=${path.join(dir, "a")}; path=`);
    expect(read("b/leaf.md")).toContain(`cwd=${path.join(dir, "b")}; path=`);
  });
});

describe("approval", () => {
  test("--status is read-only: no execution, no writes, no store, even with a missing shell and empty PATH", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x") });
    const store = path.join(tempDir(), "store");
    const before = hashTree(dir);
    const r = run(["--status"], { UNLAZY_APPROVAL_DIR: store, UNLAZY_SHELL: "definitely-missing-shell", PATH: "" });
    expect(r.code).toBe(1);
    expect(hashTree(dir)).toBe(before);
    expect(fs.existsSync(store)).toBe(false);
  });

  test("--status works with the approval store inside the repository", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    expect(run(["--status"], { UNLAZY_APPROVAL_DIR: path.join(dir, "store") }).code).toBe(1);
  });

  test("an unapproved oracle is shown and not executed; approval then lets it run", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran; printf ok", "ok") });
    const r = run([]);
    expect(r.stdout).toContain("APPROVAL REQUIRED GATES:G1");
    expect(r.stdout).toContain("NOT RUN");
    expect(r.code).toBe(1);
    expect(fs.existsSync(path.join(dir, "ran"))).toBe(false);
    expect(run(["--approve"]).code).toBe(0);
    expect(fs.existsSync(path.join(dir, "ran"))).toBe(true);
  });

  test("--reverify with a different --timeout is a new oracle: reverify not run, bytes unchanged", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    run(["--approve"]);
    const before = hashTree(dir);
    const r = run(["--reverify", "--timeout", "121"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("UNMET: 1 (met: 0, reran: 0, previously met reverified: 0)");
    expect(r.stdout).toContain("  GATES:G1 (reverify not run)");
    expect(hashTree(dir)).toBe(before);
  });

  test("the record binds the oracle; moving CWD from a to b needs a new approval showing the new path", () => {
    const { dir, env, run } = repo({ "GATES.md": gate("G1", "printf ok", "ok", "  CWD: a\n"), "a/.k": "", "b/.k": "" });
    run(["--approve"]);
    const [name] = approvalRecords(env.UNLAZY_APPROVAL_DIR!);
    const rec = JSON.parse(fs.readFileSync(path.join(env.UNLAZY_APPROVAL_DIR!, name!), "utf8"));
    expect(Object.keys(rec.oracle)).toEqual([
      "schema",
      "check",
      "expect",
      "cwd",
      "shell",
      "timeoutMs",
      "maxOutputBytes",
      "regexTimeoutMs",
      "regexStartupTimeoutMs",
      "maxRegexWorkers",
      "platform",
      "path",
    ]);
    expect(rec.oracle.cwd).toBe(path.join(dir, "a"));
    fs.writeFileSync(path.join(dir, "GATES.md"), gate("G1", "printf ok", "ok", "  CWD: b\n"));
    const r = run([]);
    expect(r.stdout).toContain(`    CWD: ${path.join(dir, "b")}`);
    expect(r.stdout).toContain("NOT RUN");
  });

  test("adding CWD: . changes the digest but re-runs under the existing approval", () => {
    const { dir, env, run, read } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    run(["--approve"]);
    const listing = approvalRecords(env.UNLAZY_APPROVAL_DIR!).sort();
    fs.writeFileSync(path.join(dir, "GATES.md"), read().replace("  EXPECT: ok\n", "  EXPECT: ok\n  CWD: .\n"));
    expect(run(["--status"]).stdout).toContain("(checked but automatic evidence is stale or unbound)");
    const r = run([]);
    expect(r.stdout).not.toContain("APPROVAL REQUIRED");
    expect(r.code).toBe(0);
    expect(approvalRecords(env.UNLAZY_APPROVAL_DIR!).sort()).toEqual(listing);
  });

  test("a store path whose parent is a regular file: infrastructure failure, exit 2", () => {
    // Such a store holds no policy, so only a person (a terminal, no agent marker) gets as far as recording.
    const { dir, env } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    const parent = path.join(tempDir(), "file");
    fs.writeFileSync(parent, "x");
    const r = personRun(BIN, ["check", "--verbose", "--approve"], {
      cwd: dir,
      env: { ...env, UNLAZY_APPROVAL_DIR: path.join(parent, "approved") },
    });
    expect(r.code).toBe(2);
    expect(r.output).toContain("kbz: could not record approval for GATES:G1");
    expect(r.output).toContain("infrastructure failure prevented 1 approval(s)");
    expect(r.output).not.toContain("RUN  GATES:G1");
  });

  test("UNLAZY_APPROVAL_DIR inside the repository is a usage error", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x") });
    const r = run(["--approve"], { UNLAZY_APPROVAL_DIR: path.join(dir, ".approvals") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("UNLAZY_APPROVAL_DIR must be outside the repository root");
    expect(fs.existsSync(path.join(dir, ".approvals"))).toBe(false);
  });

  test("a store reached through a symlink into the repository: could not validate, not executed, exit 2", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x") });
    fs.mkdirSync(path.join(dir, "inner"), { mode: 0o700 });
    const link = path.join(tempDir(), "store");
    fs.symlinkSync(path.join(dir, "inner"), link);
    const r = run(["--approve"], { UNLAZY_APPROVAL_DIR: link });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("could not validate approval for GATES:G1");
    expect(fs.existsSync(path.join(dir, "ran"))).toBe(false);
  });

  test("a world-readable store (0755) is refused: exit 2, not executed", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x") });
    const store = agentApprovalDir();
    fs.chmodSync(store, 0o755);
    const r = run(["--approve"], { UNLAZY_APPROVAL_DIR: store });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("must not grant group or other permissions");
    expect(fs.existsSync(path.join(dir, "ran"))).toBe(false);
  });

  test("a record replaced by a FIFO or hard-linked: could not validate, exit 2 quickly, not executed", () => {
    for (const kind of ["fifo", "hardlink"]) {
      const { dir, env, run } = repo({ "GATES.md": gate("G1", "touch ran; printf ok", "ok") });
      run(["--approve"]);
      fs.rmSync(path.join(dir, "ran"));
      fs.writeFileSync(path.join(dir, "GATES.md"), gate("G1", "touch ran; printf ok", "ok"));
      const store = env.UNLAZY_APPROVAL_DIR!;
      const [name] = approvalRecords(store);
      const rec = path.join(store, name!);
      if (kind === "fifo") {
        fs.rmSync(rec);
        spawnSync("mkfifo", ["-m", "600", rec]);
      } else fs.linkSync(rec, path.join(store, "sibling"));
      const t0 = Date.now();
      const r = run([]);
      expect(Date.now() - t0).toBeLessThan(10_000); // a blocking open would hang until the harness gives up
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("could not validate approval for GATES:G1");
      expect(fs.existsSync(path.join(dir, "ran"))).toBe(false);
    }
  });

  test("an unresolvable --shell is a usage error", () => {
    const { run } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    const r = run(["--shell", "definitely-missing-shell"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot resolve command shell "definitely-missing-shell"');
  });
});

describe("results, evidence and writeback", () => {
  test("exit 7 with matching output fails and leaves the box unchecked", () => {
    const { run, read } = repo({ "GATES.md": gate("G1", "printf ok; exit 7", "ok") });
    const r = run(["--approve"]);
    expect(r.stdout).toContain("       exit=7; EXPECT=matched; output=ok");
    expect(read()).toContain("- [ ] G1");
    expect(r.code).toBe(1);
  });

  test("successful output is never echoed nor persisted; the transcript has shell=, PATH= and the fingerprint", () => {
    const { run, read } = repo({ "GATES.md": gate("G1", "printf SENTI; printf 'NEL-77 ok'", "ok") });
    const r = run(["--approve"]);
    expect(r.stdout).not.toContain("SENTINEL-77");
    expect(read()).not.toContain("SENTINEL-77");
    expect(r.stdout).toContain("shell=/bin/sh");
    expect(r.stdout).toContain("PATH=/usr/bin:/bin");
    expect(r.stdout).toContain("output=sha256=");
    expect(read()).toMatch(
      /EVIDENCE: automatic-evidence=v1; definition-sha256=[0-9a-f]{64}; exit=0; EXPECT=matched; output-sha256=[0-9a-f]{64}; output-bytes=14; shell=\/bin\/sh; cwd=.*; path=ec1f3f84fccb\/2 entries\n/,
    );
  });

  test("an approved failing run of a met gate whose CHECK changed demotes it to [ ] and pending", () => {
    const { dir, run, read } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    run(["--approve"]);
    fs.writeFileSync(path.join(dir, "GATES.md"), read().replace("CHECK: printf ok", "CHECK: printf no"));
    const r = run(["--approve"]);
    expect(r.code).toBe(1);
    expect(read()).toBe(gate("G1", "printf no", "ok"));
  });

  test("legacy and forged evidence forms go stale and migrate to the canonical prefix on a run", () => {
    for (const ev of ["exit=0; shell=/bin/sh; cwd=/x", "automatic-evidence=v2; whatever", "it works, trust me"]) {
      const { dir, run, read } = repo({
        "GATES.md": gate("G1", "printf ok", "ok")
          .replace("- [ ]", "- [x]")
          .replace("EVIDENCE: pending", `EVIDENCE: ${ev}`),
      });
      expect(run(["--status"]).stdout).toContain("(checked but automatic evidence is stale or unbound)");
      const r = run(["--approve"]);
      expect(r.code).toBe(0);
      expect(read().match(/EVIDENCE:/g)!.length).toBe(1);
      expect(read()).toContain("EVIDENCE: automatic-evidence=v1; definition-sha256=");
      expect(dir).toBeTruthy();
    }
  });

  test("a legacy transcript on a now-failing check is demoted with exactly one EVIDENCE line", () => {
    const { run, read } = repo({
      "GATES.md": gate("G1", "exit 1", "ok")
        .replace("- [ ]", "- [x]")
        .replace("EVIDENCE: pending", "EVIDENCE: exit=0; shell=/bin/sh"),
    });
    run(["--approve"]);
    expect(read()).toBe(gate("G1", "exit 1", "ok"));
  });

  test("a very long cwd and PATH keep the evidence line within 900 characters, fingerprint before shell=", () => {
    const long = "d".repeat(200);
    const { dir, run, read } = repo({ [`${long}/${long}/GATES.md`]: gate("G1", "printf ok", "ok") });
    const r = run(["--approve", `${long}/${long}/GATES.md`], { PATH: `/usr/bin:/bin:${"/nowhere".repeat(100)}` });
    expect(r.code).toBe(0);
    const line = read(`${long}/${long}/GATES.md`)
      .split("\n")
      .find((l) => l.startsWith("  EVIDENCE: "))!;
    expect(line.length).toBeLessThanOrEqual("  EVIDENCE: ".length + 900);
    expect(line.indexOf("output-sha256=")).toBeLessThan(line.indexOf("; shell="));
    expect(r.stdout).toContain("...");
    expect(dir).toBeTruthy();
  });

  test("terminal safety: escapes in titles and failure output never reach the terminal", () => {
    const { run } = repo({
      "GATES.md":
        "- [ ] G1: evil \u001b[31mred\u0007 \u202e title\n  CHECK: printf 'failure \\033[31m red \\033[0m'; exit 1\n  EXPECT: ok\n",
    });
    const r = run(["--approve"]);
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(r.stdout).toContain("failure  [31m red  [0m");
  });

  test("fixes unlazy bug: a changed oracle script un-meets the gate and is never run as approved: the approved script judges until a person approves the change (issues 27, 39; unlazy missed transitive inputs)", () => {
    const { dir, run, read } = repo({ "GATES.md": gate("G1", "sh check.sh", "good"), "check.sh": "printf good\n" });
    expect(run(["--approve", "--reverify"]).stdout).toContain("previously met reverified: 0");
    expect(run(["--reverify"]).stdout).toContain("previously met reverified: 1");
    fs.writeFileSync(path.join(dir, "check.sh"), "printf bad\n");
    const normal = run([]);
    // The changed script (printf bad) is not what runs: the approved one is, and the change waits for a person.
    expect(normal.stdout).toContain("ORACLE EDITED check.sh: judged against the approved version");
    expect(normal.stdout).not.toContain("FAIL");
    expect(normal.code).toBe(0);
    const re = run(["--approve", "--reverify"]);
    expect(re.stdout).toContain("  FAIL GATES:G1");
    expect(read()).toContain("- [ ] G1");
    fs.writeFileSync(path.join(dir, "check.sh"), "printf good\n");
    expect(run(["--reverify"]).stdout).toContain("  PASS GATES:G1"); // the first approval's oracle again
  });

  test("a CRLF ledger with a fenced example: the fence is ignored and CRLF is kept on write and repair", () => {
    const text =
      "# G\r\n\r\n```md\r\n- [ ] BAD: example\r\n```\r\n\r\n" + gate("G1", "printf ok", "ok").replace(/\n/g, "\r\n");
    const { dir, run, read } = repo({ "GATES.md": text });
    const r = run(["--approve"]);
    expect(r.stdout).toContain("GATES.md: 1 gate");
    expect(read()).toContain("- [x] G1: G1 outcome\r\n");
    expect(read().replace(/\r\n/g, "")).not.toContain("\n");
    const before = hashTree(dir);
    expect(run(["--status"]).code).toBe(0);
    expect(hashTree(dir)).toBe(before);
    fs.writeFileSync(path.join(dir, "GATES.md"), read().replace("EXPECT: ok", "EXPECT: o"));
    expect(run(["--approve"]).code).toBe(0);
    expect(read().replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("a catastrophic regex EXPECT fails in time with the budget message", () => {
    const { run } = repo({ "GATES.md": gate("G1", "head -c 30000 /dev/zero | tr '\\0' a; echo '!'", "/(a+)+$/") });
    const t0 = Date.now();
    const r = run(["--approve"]);
    expect(Date.now() - t0).toBeLessThan(15_000); // unbounded, this pattern runs for hours
    expect(r.stdout).toContain("EXPECT regex exceeded 250ms");
    expect(r.code).toBe(1);
  });

  test("thirty-two regex gates under --jobs 32 all pass", () => {
    const ledger = Array.from({ length: 32 }, (_, i) => gate(`G${i}`, `printf 'n=${i}'`, `/^n=${i}$/`)).join("\n");
    const { run } = repo({ "GATES.md": ledger });
    const r = run(["--approve", "--jobs", "32", "--timeout", "10"]);
    expect(r.stdout).toContain("ALL MET (32 met)");
    expect(r.stdout).not.toContain("EXPECT worker");
    expect(r.stdout).not.toContain("exceeded");
  });

  test("1.1 MB of output fails with the overflow message and a small transcript", () => {
    const { run, read } = repo({ "GATES.md": gate("G1", "head -c 1100000 /dev/zero | tr '\\0' a", "a") });
    const r = run(["--approve"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("output exceeded 1048576 bytes");
    expect(r.stdout.length).toBeLessThan(5000);
    expect(read()).toContain("EVIDENCE: pending");
  });

  test("a split overflow after UTF-8 combination demotes a checked gate and --status exits 1", () => {
    const split = "head -c 524288 /dev/zero | tr '\\0' a; head -c 524288 /dev/zero | tr '\\0' b >&2";
    const { run, read } = repo({
      "GATES.md": gate("G1", split, "a")
        .replace("- [ ]", "- [x]")
        .replace("EVIDENCE: pending", "EVIDENCE: exit=0; shell=/bin/sh"),
    });
    const r = run(["--approve"]);
    expect(r.stdout).toContain("output exceeded 1048576 bytes after stdout/stderr UTF-8 combination");
    expect(read()).toContain("- [ ] G1");
    expect(read()).not.toContain("automatic-evidence");
    expect(run(["--status"]).code).toBe(1);
  });

  test("--jobs 2 overlaps two checks while PASS lines stay in ledger order", () => {
    // Each of G1 and G2 waits until the other has started: they can only pass together.
    const meet = (me: string, other: string) =>
      `touch ${me}; i=0; while [ ! -e ${other} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e ${other} ] && printf ok`;
    const ledger = [
      gate("G1", meet("one", "two"), "ok"),
      gate("G2", meet("two", "one"), "ok"),
      gate("G3", "printf ok", "ok"),
    ].join("\n");
    const { run } = repo({ "GATES.md": ledger });
    const r = run(["--approve", "--jobs", "2", "--timeout", "30"]);
    expect(r.code).toBe(0);
    const order = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("  PASS"))
      .map((l) => l.slice(7, 15));
    expect(order).toEqual(["GATES:G1", "GATES:G2", "GATES:G3"]);
  });
});

describe("concurrent edits", () => {
  const slow = (dir: string, env: Record<string, string>, args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = spawn(BIN, ["check", ...args], { cwd: dir, env: { ...process.env, ...env } });
      let stdout = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.on("close", (code) => resolve({ code: code ?? -1, stdout }));
    });
  const waitFor = async (file: string) => {
    while (!fs.existsSync(file)) await new Promise((r) => setTimeout(r, 20));
  };

  test("a hand edit to another gate during a slow check survives the writeback", async () => {
    const ledger =
      gate("G1", "touch started; sleep 1; printf ok", "ok") + "\n- [ ] G2: reviewed by hand\n  EVIDENCE: pending\n";
    const { dir, env, run, read } = repo({ "GATES.md": ledger });
    run(["--status"]);
    const p = slow(dir, env, ["--approve"]);
    await waitFor(path.join(dir, "started"));
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      read().replace(
        "- [ ] G2: reviewed by hand\n  EVIDENCE: pending",
        "- [x] G2: reviewed by hand\n  EVIDENCE: checked by Ann",
      ),
    );
    const r = await p;
    expect(r.code).toBe(0);
    expect(read()).toContain("- [x] G1");
    expect(read()).toContain("EVIDENCE: checked by Ann");
  });

  test("an EXPECT edited while the check runs gives STALE; the new EXPECT is kept and the box stays unchecked", async () => {
    const { dir, env, read } = repo({ "GATES.md": gate("G1", "touch started; sleep 1; printf ok", "ok") });
    const p = slow(dir, env, ["--approve"]);
    await waitFor(path.join(dir, "started"));
    const edited = read().replace("EXPECT: ok", "EXPECT: okay");
    fs.writeFileSync(path.join(dir, "GATES.md"), edited);
    const r = await p;
    expect(r.stdout).toContain("  STALE GATES:G1: definition or runtime approval oracle changed; result not written");
    expect(read()).toBe(edited);
    expect(r.code).toBe(1);
  });

  test("--reverify where EXPECT changes mid-run: STALE, exit 1, no ALL MET and no reverified count", async () => {
    const { dir, env, run, read } = repo({
      "GATES.md": gate("G1", "if [ -e go ]; then touch started; sleep 1; fi; printf ok", "ok"),
    });
    run(["--approve"]);
    fs.writeFileSync(path.join(dir, "go"), "");
    const p = slow(dir, env, ["--reverify"]);
    await waitFor(path.join(dir, "started"));
    const edited = read().replace("EXPECT: ok", "EXPECT: o");
    fs.writeFileSync(path.join(dir, "GATES.md"), edited);
    const r = await p;
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("STALE GATES:G1");
    expect(r.stdout).not.toContain("ALL MET");
    expect(r.stdout).toContain("previously met reverified: 0");
    expect(read()).toBe(edited);
  });

  test("same-definition races are last writer wins: a late failure demotes, a late pass promotes", async () => {
    // A run that finds `slow` takes it (so only one run is slow), reports started, and holds
    // until `hold` goes away; `fail` is read at the start of each run.
    const check =
      "r=0; [ -e fail ] && r=1; if mv slow slow.$$ 2>/dev/null; then touch started; while [ -e hold ]; do sleep 0.05; done; fi; printf ok; exit $r";
    const { dir, env, run, read } = repo({ "GATES.md": gate("G1", check, "ok") });
    const touch = (f: string) => fs.writeFileSync(path.join(dir, f), "");
    const rm = (f: string) => fs.rmSync(path.join(dir, f), { force: true });
    run(["--approve"]);
    touch("slow"), touch("hold"), touch("fail");
    const lateFailure = slow(dir, env, ["--reverify"]);
    await waitFor(path.join(dir, "started"));
    rm("started"), rm("fail");
    expect(run(["--reverify"]).stdout).toContain("  PASS GATES:G1"); // early pass
    rm("hold");
    await lateFailure;
    expect(read()).toBe(gate("G1", check, "ok"));
    touch("slow"), touch("hold");
    const latePass = slow(dir, env, ["--reverify"]);
    await waitFor(path.join(dir, "started"));
    touch("fail");
    expect(run(["--reverify"]).stdout).toContain("  FAIL GATES:G1"); // early failure
    rm("fail"), rm("hold");
    await latePass;
    expect(run(["--status"]).code).toBe(0);
  });
});

describe("handoff, hierarchy and bad input", () => {
  test("an abandoned gate gives HANDOFF REQUIRED and exit 1 in status, default and reverify modes", () => {
    const { run } = repo({
      "GATES.md": gate("G1", "printf ok", "ok") + "\n- [ ] G2: gone\n\nABANDON: G2 upstream retired\n",
    });
    run(["--approve"]);
    for (const mode of [["--status"], [], ["--reverify"]]) {
      const r = run(mode);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("HANDOFF REQUIRED: 1 abandoned");
      expect(r.stdout).not.toContain("ALL MET");
    }
  });

  test("a parent gate running kbz check --reverify on an abandoned child fails and stays unchecked", () => {
    const child = "- [ ] C1: gone\n\nABANDON: C1 retired\n";
    const { run, read } = repo({
      "child.md": child,
      "parent.md": gate("N1", `${BIN} check --reverify child.md`, "ALL MET"),
    });
    const r = run(["--approve", "parent.md"]);
    expect(r.stdout).toContain("  FAIL parent:N1");
    expect(r.stdout).toContain("HANDOFF REQUIRED");
    expect(read("parent.md")).toContain("- [ ] N1");
  });

  test("usage errors exit 2 and change nothing", () => {
    const { dir, run } = repo({ "GATES.md": gate("G1", "touch ran", "x"), "directory.md/.k": "" });
    const before = hashTree(dir);
    const bad = [
      ["--jobs", "0"],
      ["--jobs", "1.5"],
      ["--jobs", "Infinity"],
      ["--jobs", "65"],
      ["--timeout", "0"],
      ["--timeout", "1.5"],
      ["--timeout", "86401"],
      ["--timeout", "Infinity"],
      ["--timeout"],
      ["--status", "--reverify"],
      ["--status", "--approve"],
      ["--status", "--jobs", "2"],
      ["--nope"],
      ["--approve", "directory.md"],
      ["--approve", "--cwd", "missing-dir"],
    ];
    for (const args of bad) {
      const r = run(args);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
    }
    expect(hashTree(dir)).toBe(before);
  });

  test("a symlinked ledger or FIFO is refused quickly without reading through it", () => {
    const outside = tempDir();
    writeTree(outside, { "canary.md": "- [ ] G1: OUTSIDE-CANARY\n  EVIDENCE: pending\n" });
    const { dir, run } = repo({});
    fs.symlinkSync(path.join(outside, "canary.md"), path.join(dir, "GATES.md"));
    const r = run(["--approve"]);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toContain("OUTSIDE-CANARY");
    const fifo = repo({});
    spawnSync("mkfifo", [path.join(fifo.dir, "GATES.md")]);
    const t0 = Date.now();
    expect(fifo.run(["--approve"]).code).toBe(2);
    expect(Date.now() - t0).toBeLessThan(10_000); // a blocking open would hang until the harness gives up
  });
});

describe("--json", () => {
  test("one object: schema, verdict, exit, counts, per-gate state, per-run outcome and approvals", () => {
    const { run } = repo({
      "GATES.md": [
        gate("G1", "printf ok", "ok"),
        gate("G2", "printf no; exit 3", "ok"),
        gate("G3", "printf x", "x"),
      ].join("\n"),
    });
    fs.mkdirSync(path.join(tempDir()), { recursive: true });
    const first = JSON.parse(run(["--json"]).stdout);
    expect(first.approvals.required.map((a: any) => [a.qid, a.status])).toEqual([
      ["GATES:G1", "required"],
      ["GATES:G2", "required"],
      ["GATES:G3", "required"],
    ]);
    expect(first.runs).toEqual([]);
    const r = run(["--approve", "--json"]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.schema).toBe(1);
    expect(j.verdict).toBe("unmet");
    expect(j.exit).toBe(1);
    expect(j.counts).toMatchObject({
      gates: 3,
      met: 2,
      unmet: 1,
      abandoned: 0,
      ran: 3,
      passed: 2,
      failed: 1,
      stale: 0,
    });
    // Failed is a state (issue 31): the failed run's gate reads `failed`, its reason how it ended.
    expect(j.gates.map((g: any) => g.state)).toEqual(["met", "failed", "met"]);
    expect(j.gates[1].reason).toBe("exit 3");
    expect(j.runs[1]).toMatchObject({
      qid: "GATES:G2",
      ok: false,
      exit: 3,
      matched: false,
      error: null,
      bytes: 2,
      writeback: "unchanged",
    });
    expect(j.runs[0].outputSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(j.approvals.recorded.length).toBe(3);
    expect(j.unmet).toEqual(["GATES:G2"]);
  });

  test("--status --json is the status report", () => {
    const { run } = repo({ "GATES.md": gate("G1", "printf ok", "ok") });
    const j = JSON.parse(run(["--status", "--json"]).stdout);
    expect([j.schema, j.verdict, j.exit, j.counts.unmet]).toEqual([1, "unmet", 1, 1]);
  });
});

describe("scoped runs fold dispatch waves into the verdict", () => {
  test("an open wave blocks ALL MET; an abandoned wave is a handoff; an invalid state exits 2", () => {
    const { dir, env, run } = repo({ ".unlazy/api/GATES.md": gate("G1", "printf ok", "ok") });
    const wave = (...args: string[]) => kbz(["wave", ...args, "--scope", "api"], { cwd: dir, env });
    expect(wave("open", "--wave", "w1", "--leaf", "leaf-1").code).toBe(0);
    const r = run(["--approve"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("UNMET: 1 (met: 1) [scope api]\n  dispatch:w1 open (0/1 started)\n");
    const st = run(["--status"]);
    expect(st.stdout).toContain("  UNMET dispatch:w1 open (0/1 started)\n");
    expect(wave("abandon", "--wave", "w1", "--reason", "gave up").code).toBe(0);
    const h = run([]);
    expect(h.stdout).toContain("HANDOFF REQUIRED: 1 abandoned (met: 1) [scope api]\n  dispatch:w1\n");
    fs.writeFileSync(path.join(dir, ".unlazy/api/dispatch.json"), "{broken");
    const bad = run([]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid dispatch state for scope api");
    expect(bad.stdout).not.toContain("RUN");
  });
});
