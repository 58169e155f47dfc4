// Issue 30, problem "Compatibility": where kbz read Kill_bezzangyi's and unlazy's files or ran their
// checks differently from the originals. On the binary (KBZ_TEST_BIN: an old build fails them).
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

const gate = (id: string, check: string, expect_: string) =>
  `- [ ] ${id}: outcome ${id}\n  CHECK: ${check}\n  EXPECT: ${expect_}\n  EVIDENCE: pending\n`;

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function repo(files: Record<string, string>): { dir: string; env: Record<string, string> } {
  const dir = tempDir("kbz-compat-");
  cleanup.push(dir);
  writeTree(dir, files);
  const env = agentEnv();
  cleanup.push(path.dirname(env.UNLAZY_APPROVAL_DIR!));
  return { dir, env };
}

describe("compatibility", () => {
  test("kbz verify run on a ledger outside .unlazy/ in a subfolder runs its CHECKs from the root, as verify-once does", () => {
    const { dir, env } = repo({
      "at-root.txt": "x\n",
      "tools/check.sh": "echo TOOL_OK\n",
      "sub/GATES.md": `# Gates\n\n${gate("R1", "test -f at-root.txt && pwd", "/")}${gate("R2", "sh tools/check.sh", "TOOL_OK")}`,
    });
    const r = kbz(
      ["verify", "run", "--approve", "--closed", "--inputs", "at-root.txt,tools", "--json", "sub/GATES.md"],
      { cwd: dir, env },
    );
    const j = JSON.parse(r.stdout);
    expect([r.code, j.results[0].status]).toEqual([0, "ACCEPTED"]);
    // The evidence names the directory it ran in: the root, not sub/.
    expect(fs.readFileSync(path.join(dir, "sub/GATES.md"), "utf8")).toContain(`cwd=${fs.realpathSync(dir)};`);
    // A receipt the original accepts is current for kbz too.
    expect(kbz(["verify", "audit", "sub/GATES.md"], { cwd: dir, env }).code).toBe(0);
    // The checker script the pass ran (tools/check.sh, from the root) binds the approval, and
    // status judges it where it ran: met, until the script changes.
    expect(kbz(["status", "sub/GATES.md"], { cwd: dir, env }).code).toBe(0);
    fs.writeFileSync(path.join(dir, "tools/check.sh"), "echo TOOL_OK; true\n");
    expect(kbz(["status", "sub/GATES.md"], { cwd: dir, env }).stdout).toContain("oracle changed: tools/check.sh");
  });

  test("kbz verify run --cwd DIR runs the CHECKs from DIR (relative to the root)", () => {
    const { dir, env } = repo({
      "sub/here.txt": "x\n",
      "sub/GATES.md": `# Gates\n\n${gate("H1", "test -f here.txt && echo HERE_OK", "HERE_OK")}`,
    });
    const fromRoot = kbz(["verify", "run", "--approve", "--inputs", "sub/here.txt", "sub/GATES.md"], { cwd: dir, env });
    expect([fromRoot.code, fromRoot.stdout]).toEqual([1, expect.stringContaining("REVIEW_OR_REPAIR sub/GATES.md")]);
    const inSub = kbz(["verify", "run", "--approve", "--cwd", "sub", "--inputs", "sub/here.txt", "sub/GATES.md"], {
      cwd: dir,
      env,
    });
    expect([inSub.code, inSub.stdout]).toEqual([0, expect.stringContaining("ACCEPTED sub/GATES.md")]);
    const missing = kbz(["verify", "run", "--cwd", "nowhere", "--inputs", "sub/here.txt", "sub/GATES.md"], {
      cwd: dir,
      env,
    });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("--cwd is not an existing directory")]);
  });

  test("a running receipt without a policy is a review item, not a store-wide exit 2", () => {
    const { dir, env } = repo({
      "a.txt": "a\n",
      "A.md": `# Gates\n\n${gate("A1", "cat a.txt", "a")}`,
      "B.md": `# Gates\n\n${gate("B1", "cat a.txt", "a")}`,
    });
    expect(kbz(["verify", "run", "--approve", "--closed", "--inputs", "a.txt", "A.md"], { cwd: dir, env }).code).toBe(
      0,
    );
    // What the original leaves behind a run that was killed: `running`, no policy.
    const store = path.join(dir, ".unlazy/verification-receipts.json");
    const s = JSON.parse(fs.readFileSync(store, "utf8"));
    s.receipts["B.md"] = { status: "running" };
    fs.writeFileSync(store, JSON.stringify(s, null, 2) + "\n");
    const b = kbz(["verify", "audit", "--json", "B.md"], { cwd: dir, env });
    expect([b.code, JSON.parse(b.stdout).results]).toEqual([
      1,
      [{ current: false, reason: "unfinished-verification", key: "B.md" }],
    ]);
    expect(kbz(["verify", "explain", "B.md"], { cwd: dir, env }).stdout).toContain("the last run did not finish");
    // The rest of the store is still read: A's receipt stays current.
    expect(kbz(["verify", "audit", "A.md"], { cwd: dir, env }).code).toBe(0);
    // A new run replaces the record.
    const again = kbz(["verify", "run", "--approve", "--closed", "--inputs", "a.txt", "B.md"], { cwd: dir, env });
    expect([again.code, JSON.parse(fs.readFileSync(store, "utf8")).receipts["B.md"].status]).toEqual([0, "accepted"]);
    // An accepted receipt without a policy is still invalid (nothing could say what it was bound to).
    const t = JSON.parse(fs.readFileSync(store, "utf8"));
    delete t.receipts["B.md"].policy;
    fs.writeFileSync(store, JSON.stringify(t));
    expect(kbz(["verify", "audit", "B.md"], { cwd: dir, env }).code).toBe(2);
  });

  test("fixes unlazy bug: with one scope, the Stop hook ignored the session's binding", () => {
    const { dir, env } = repo({});
    const run = (args: string[], input?: string) => kbz(args, { cwd: dir, env, input });
    expect(run(["init", "--scope", "web"]).code).toBe(0);
    expect(run(["plan", "add", "--scope", "web", "1.1", "--owns", "src/a/**"]).code).toBe(0);
    const stop = (session: string, extra: Record<string, unknown> = {}) => {
      const r = run(
        ["hook", "stop"],
        JSON.stringify({
          hook_event_name: "Stop",
          session_id: session,
          cwd: dir,
          stop_hook_active: false,
          last_assistant_message: "done",
          ...extra,
        }),
      );
      expect(r.code).toBe(0);
      return r.stdout;
    };
    // Unbound, the only scope holds every session.
    expect(stop("gamma")).toContain('"decision":"block"');
    expect(run(["scope", "bind", "--scope", "web", "alpha"]).code).toBe(0);
    // Bound to alpha: alpha is held (also per prompt), beta is not this scope's to judge.
    expect(stop("alpha")).toContain("leaf-1.1");
    expect(stop("alpha", { prompt_id: "p-7" })).toContain("leaf-1.1");
    expect(stop("beta")).not.toContain('"decision":"block"');
    // kbz's addition (issue 27): a binding never releases a session the scope already held; gamma,
    // blocked on web before the binding, stays held (else a binding to a made-up session would release it).
    expect(stop("gamma")).toContain("leaf-1.1");
    // The solo ledger is still judged for beta (a scope never hides it).
    writeTree(dir, { "GATES.md": `# Gates\n\n- [ ] S1: solo outcome\n` });
    const beta = stop("beta");
    expect([beta.includes('"decision":"block"'), beta.includes("S1"), beta.includes("leaf-1.1")]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
