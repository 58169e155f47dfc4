// Issue 41: a person's act, proven. Signed approvals and sign-offs in the repository with real
// ssh-keygen keys made here, the `kbz ci` verdict in a fresh clone, the `signed` policy. The
// person runs kbz in a pseudo-terminal (`script -qec`), with no agent host's marker, inside a new
// PID namespace (`unshare --pid --fork --mount-proc`) so that no agent host among the test
// runner's own ancestors is seen (helpers/approvals.ts personRun). Every test fails on 571b8e3
// (KBZ_TEST_BIN=/work/tools/kbz-571b8e3), which has no `kbz ci` and signs nothing.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { checkEnv, personRun } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

const HAVE_KEYGEN = spawnSync("ssh-keygen", ["-?"], { encoding: "utf8" }).error === undefined;
if (!HAVE_KEYGEN) console.log("skip: signed records need ssh-keygen: apt-get install openssh-client");

const GATES = [
  "# Gates",
  "",
  "- [ ] G1: the adder adds",
  "  CHECK: sh test/check.sh",
  "  EXPECT: ADD_OK",
  "  ORACLE: test/check.sh",
  "  EVIDENCE: pending",
  "- [ ] M1: the docs read well",
  "  INPUTS: docs/guide.md",
  "",
].join("\n");
const CHECKER = 'if [ "$(cat src/add.txt)" = "4" ]; then echo ADD_OK; else echo ADD_WRONG; fi\n';

let keys: string;
const key = (name: string) => path.join(keys, name);

beforeAll(() => {
  if (!HAVE_KEYGEN) return;
  keys = tempDir("kbz-keys-");
  for (const who of ["ana", "mallory"]) {
    const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", who, "-f", key(who)], {
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
  }
});

function git(cwd: string, ...args: string[]) {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A repository with one runnable and one manual gate, ana an allowed signer; ana's HOME says user.signingKey. */
function project() {
  const dir = tempDir();
  const pub = fs
    .readFileSync(`${key("ana")}.pub`, "utf8")
    .trim()
    .split(" ")
    .slice(0, 2)
    .join(" ");
  writeTree(dir, {
    "GATES.md": GATES,
    "test/check.sh": CHECKER,
    "src/add.txt": "4\n",
    "docs/guide.md": "# Guide\n",
    ".kbz/allowed_signers": `ana@example.com ${pub}\n`,
  });
  git(dir, "init", "-q", ".");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "init");
  const env = checkEnv();
  const home = env.HOME!;
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, ".gitconfig"),
    `[user]\n\temail = ana@example.com\n\tsigningKey = ${key("ana")}\n[gpg]\n\tformat = ssh\n`,
  );
  const person = (...args: string[]) => personRun(BIN, args, { cwd: dir, env, input: "y\n" });
  const agentEnv = { ...env, CLAUDECODE: "1" };
  const agent = (...args: string[]) => kbz(args, { cwd: dir, env: agentEnv });
  return { dir, env, home, person, agent, agentEnv };
}

/** A fresh clone of `dir` at HEAD and `kbz ci` in it with a bare environment (CI's machine: no store, no git config). */
function ciIn(dir: string, extra: string[] = []) {
  const clone = tempDir("kbz-clone-");
  fs.rmSync(clone, { recursive: true, force: true });
  const r = spawnSync("git", ["clone", "-q", dir, clone], { encoding: "utf8" });
  expect(r.status).toBe(0);
  const home = tempDir("kbz-ci-home-");
  const summary = path.join(home, "summary.md");
  const junit = path.join(home, "junit.xml");
  const env = {
    HOME: home,
    PATH: "/usr/bin:/bin",
    UNLAZY_APPROVAL_DIR: path.join(home, "store"),
    GITHUB_STEP_SUMMARY: summary,
    CLAUDECODE: undefined,
  };
  const res = kbz(["ci", "--junit", junit, ...extra], { cwd: clone, env });
  return {
    ...res,
    clone,
    summary: fs.existsSync(summary) ? fs.readFileSync(summary, "utf8") : "",
    junit: fs.existsSync(junit) ? fs.readFileSync(junit, "utf8") : "",
  };
}

function commitAll(dir: string, msg: string) {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", msg);
}

/** The person approves G1 and signs M1, and commits what that wrote. */
function honest(p: ReturnType<typeof project>) {
  // GATES.md names the ledger: its oracles only (with no argument kbz approve also asks for M1's sign-off).
  const a = p.person("approve", "GATES.md");
  expect(a.output).toContain("APPROVED GATES:G1");
  expect(a.code).toBe(0);
  const s = p.person("sign", "GATES.md", "M1", "--evidence", "read the guide, it is clear");
  expect(s.output).toContain("SIGNED GATES:M1");
  expect(s.code).toBe(0);
  expect(fs.existsSync(path.join(p.dir, ".kbz/signed/GATES.md/G1.approval"))).toBe(true);
  expect(fs.existsSync(path.join(p.dir, ".kbz/signed/GATES.md/M1.sign-off"))).toBe(true);
  commitAll(p.dir, "signed");
}

/** A strict check that `text` is well-formed XML and a JUnit report: every tag closed in order, entities known. */
function parseJunit(text: string): {
  tests: number;
  failures: number;
  cases: { name: string; failure: string | null }[];
} {
  expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const body = text.slice(text.indexOf("?>") + 2);
  const stack: string[] = [];
  const cases: { name: string; failure: string | null }[] = [];
  const token = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  let root: Record<string, string> | null = null;
  while ((m = token.exec(body))) {
    expect(m.index).toBe(consumed);
    consumed = token.lastIndex;
    const [, close, name, attrText, selfClose, textNode] = m;
    const textOrAttrs = textNode ?? attrText ?? "";
    for (const ent of textOrAttrs.match(/&[^;\s]*;?/g) ?? [])
      expect(["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]).toContain(ent);
    if (textNode !== undefined) {
      if (stack.length === 0) expect(textNode.trim()).toBe("");
      continue;
    }
    const attrs = Object.fromEntries([...(attrText ?? "").matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
    if (close) {
      expect(stack.pop()).toBe(name!);
      continue;
    }
    if (stack.length === 0) {
      expect(root).toBeNull();
      expect(name).toBe("testsuites");
      root = attrs;
    }
    if (name === "testcase") cases.push({ name: attrs.name!, failure: null });
    if (name === "failure") cases[cases.length - 1]!.failure = attrs.message!;
    if (!selfClose) stack.push(name!);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toEqual([]);
  return { tests: Number(root!.tests), failures: Number(root!.failures), cases };
}

describe.skipIf(!HAVE_KEYGEN)("signed records and kbz ci (issue 41)", () => {
  test("the honest path: the person approves and signs with a key; a fresh clone passes kbz ci with a summary and a JUnit report", () => {
    const p = project();
    honest(p);
    const record = fs.readFileSync(path.join(p.dir, ".kbz/signed/GATES.md/G1.approval"), "utf8");
    // Readable without kbz: the oracle whole, then git's SSH signature.
    expect(record).toContain('check: "sh test/check.sh"');
    expect(record).toContain('file: ["test/check.sh",');
    expect(record).toContain("-----BEGIN SSH SIGNATURE-----");
    // And verifiable without kbz: the bytes before the signature, ssh-keygen -Y verify, namespace kbz.
    const at = record.indexOf("-----BEGIN SSH SIGNATURE-----");
    const sig = path.join(p.home, "g1.sig");
    fs.writeFileSync(sig, record.slice(at));
    const v = spawnSync(
      "ssh-keygen",
      ["-Y", "verify", "-f", path.join(p.dir, ".kbz/allowed_signers"), "-I", "ana@example.com", "-n", "kbz", "-s", sig],
      { input: record.slice(0, at), encoding: "utf8" },
    );
    expect(v.status).toBe(0);
    const c = ciIn(p.dir);
    expect(c.stdout).toMatch(/^PASS +GATES:G1: approved by ana@example.com; ran/m);
    expect(c.stdout).toMatch(/^PASS +GATES:M1: signed off by ana@example.com/m);
    expect(c.stdout).toContain("ALL MET against signed oracles (2 gates)");
    expect(c.code).toBe(0);
    expect(c.summary).toContain("kbz ci: all 2 gates met against signed oracles");
    const j = parseJunit(c.junit);
    expect(j).toEqual({
      tests: 2,
      failures: 0,
      cases: [
        { name: "GATES:G1", failure: null },
        { name: "GATES:M1", failure: null },
      ],
    });
  });

  test("after signing, the agent edits a bound oracle file, the CHECK, EXPECT, or ticks a manual gate: kbz ci fails naming the gate and the change", () => {
    const p = project();
    // Only G1 is approved; M1 is left for the person.
    expect(p.person("approve", "GATES.md").code).toBe(0);
    commitAll(p.dir, "approved G1");
    const cases: [string, () => void, RegExp][] = [
      [
        "oracle file",
        () => fs.writeFileSync(path.join(p.dir, "test/check.sh"), "echo ADD_OK\n"),
        /^CHANGED +GATES:G1: changed since signed: oracle file test\/check\.sh changed/m,
      ],
      [
        "CHECK",
        () =>
          fs.writeFileSync(
            path.join(p.dir, "GATES.md"),
            GATES.replace("CHECK: sh test/check.sh", "CHECK: echo ADD_OK; sh test/check.sh"),
          ),
        /^CHANGED +GATES:G1: changed since signed: CHECK changed/m,
      ],
      [
        "EXPECT",
        () => fs.writeFileSync(path.join(p.dir, "GATES.md"), GATES.replace("EXPECT: ADD_OK", "EXPECT: /ADD/")),
        /^CHANGED +GATES:G1: changed since signed: EXPECT changed/m,
      ],
      [
        "tick",
        () =>
          fs.writeFileSync(
            path.join(p.dir, "GATES.md"),
            GATES.replace("- [ ] M1: the docs read well", "- [x] M1: the docs read well\n  EVIDENCE: reviewed"),
          ),
        /^UNSIGNED +GATES:M1: no signed sign-off \(\.kbz\/signed\/GATES\.md\/M1\.sign-off\) \(the ledger's \[x\] is not trusted\)/m,
      ],
    ];
    for (const [what, edit, expected] of cases) {
      const before = fs.readFileSync(path.join(p.dir, "GATES.md"), "utf8");
      const checker = fs.readFileSync(path.join(p.dir, "test/check.sh"), "utf8");
      edit();
      commitAll(p.dir, `agent: ${what}`);
      const c = ciIn(p.dir);
      expect({ what, line: c.stdout.match(expected)?.[0] ?? c.stdout }).toEqual({
        what,
        line: expect.stringMatching(expected),
      });
      expect({ what, code: c.code }).toEqual({ what, code: 1 });
      expect(parseJunit(c.junit).failures).toBeGreaterThan(0);
      fs.writeFileSync(path.join(p.dir, "GATES.md"), before);
      fs.writeFileSync(path.join(p.dir, "test/check.sh"), checker);
      commitAll(p.dir, `undo ${what}`);
    }
  });

  test("an unsigned record, a signer not allowed, a signature over other bytes, a record copied to another gate: each refused by name", () => {
    const p = project();
    honest(p);
    const rec = path.join(p.dir, ".kbz/signed/GATES.md/G1.approval");
    const good = fs.readFileSync(rec, "utf8");
    const at = good.indexOf("-----BEGIN SSH SIGNATURE-----");
    const attempt = (what: string, write: () => void, expected: RegExp) => {
      write();
      commitAll(p.dir, what);
      const c = ciIn(p.dir);
      expect({ what, out: c.stdout.match(expected)?.[0] ?? c.stdout }).toEqual({
        what,
        out: expect.stringMatching(expected),
      });
      expect({ what, code: c.code }).toEqual({ what, code: 1 });
      fs.writeFileSync(rec, good);
      commitAll(p.dir, `restore after ${what}`);
    };
    attempt(
      "unsigned",
      () => fs.writeFileSync(rec, good.slice(0, at)),
      /^UNSIGNED +GATES:G1: \.kbz\/signed\/GATES\.md\/G1\.approval is unsigned/m,
    );
    // Mallory signs the same bytes with a key that is not an allowed signer.
    attempt(
      "not allowed",
      () => {
        const msg = path.join(p.home, "msg");
        fs.writeFileSync(msg, good.slice(0, at));
        expect(
          spawnSync("ssh-keygen", ["-Y", "sign", "-n", "kbz", "-f", key("mallory"), msg], { encoding: "utf8" }).status,
        ).toBe(0);
        fs.writeFileSync(rec, good.slice(0, at) + fs.readFileSync(`${msg}.sig`, "utf8"));
        fs.rmSync(`${msg}.sig`);
      },
      /^UNSIGNED +GATES:G1: \.kbz\/signed\/GATES\.md\/G1\.approval: the signer's key is not an allowed signer/m,
    );
    // The signed bytes edited to match an edited CHECK: the signature is over other bytes.
    attempt(
      "other bytes",
      () => {
        fs.writeFileSync(rec, good.replace('check: "sh test/check.sh"', 'check: "echo ADD_OK"'));
        fs.writeFileSync(path.join(p.dir, "GATES.md"), GATES.replace("CHECK: sh test/check.sh", "CHECK: echo ADD_OK"));
      },
      /^UNSIGNED +GATES:G1: \.kbz\/signed\/GATES\.md\/G1\.approval: the signature does not match the record's bytes/m,
    );
    fs.writeFileSync(path.join(p.dir, "GATES.md"), GATES);
    commitAll(p.dir, "restore GATES");
    // G1's approval copied to a second gate with the same CHECK.
    attempt(
      "copied",
      () => {
        fs.writeFileSync(
          path.join(p.dir, "GATES.md"),
          GATES +
            "- [ ] G2: the adder adds again\n  CHECK: sh test/check.sh\n  EXPECT: ADD_OK\n  ORACLE: test/check.sh\n",
        );
        fs.writeFileSync(path.join(p.dir, ".kbz/signed/GATES.md/G2.approval"), good);
      },
      /^CHANGED +GATES:G2: \.kbz\/signed\/GATES\.md\/G2\.approval is a record of GATES\.md:G1 \(approval\), not of this gate: copied from another gate/m,
    );
  });

  test("a malformed record or allowed-signers line: <file>:<line>: <message>, exit 2", () => {
    const p = project();
    honest(p);
    const rec = path.join(p.dir, ".kbz/signed/GATES.md/G1.approval");
    const good = fs.readFileSync(rec, "utf8");
    fs.writeFileSync(rec, good.replace('expect: "ADD_OK"', "expect: ADD_OK"));
    commitAll(p.dir, "broken record");
    const c = ciIn(p.dir);
    const line = good.split("\n").findIndex((l) => l.startsWith("expect:")) + 1;
    expect(c.stderr).toContain(`.kbz/signed/GATES.md/G1.approval:${line}: expect: the value is not JSON`);
    expect(c.code).toBe(2);
    fs.writeFileSync(rec, good);
    fs.appendFileSync(path.join(p.dir, ".kbz/allowed_signers"), "bob@example.com not-a-key\n");
    commitAll(p.dir, "broken signers");
    const d = ciIn(p.dir);
    expect(d.stderr).toContain(".kbz/allowed_signers:2: not an allowed-signers line");
    expect(d.code).toBe(2);
  });

  test('under the signed policy the agent\'s `env -u CLAUDECODE script -qec "kbz check --approve"` yields nothing status, the Stop hook or kbz ci accept', () => {
    const p = project();
    // The person sets the policy (in a terminal, in a process tree with no agent host).
    const set = p.person("approvals", "policy", "signed");
    expect(set.output).toContain("policy: signed");
    // The agent's puppet terminal: its own HOME has no signing key (the person's key is not the agent's to use).
    const agentHome = tempDir("kbz-agent-home-");
    const puppet = spawnSync("env", ["-u", "CLAUDECODE", "script", "-qec", `${BIN} check --approve`, "/dev/null"], {
      cwd: p.dir,
      env: { ...p.env, HOME: agentHome },
      encoding: "utf8",
    });
    expect(puppet.stdout).not.toContain("APPROVED");
    expect(puppet.stdout).toContain("the signed policy counts only signed approvals");
    expect(fs.existsSync(path.join(p.dir, ".kbz/signed"))).toBe(false);
    const status = p.agent("status");
    expect(status.code).toBe(1);
    expect(status.stdout).not.toContain("ALL MET");
    const hook = kbz(["hook", "stop"], {
      cwd: p.dir,
      env: p.agentEnv,
      input: JSON.stringify({ session_id: "s1", cwd: p.dir, hook_event_name: "Stop" }),
    });
    expect(JSON.parse(hook.stdout).decision).toBe("block");
    commitAll(p.dir, "agent's work");
    expect(ciIn(p.dir).code).toBe(1);
    // A ledger ticked by hand with the pass's evidence copied in: still not met under signed.
    const ticked = GATES.replace("- [ ] G1", "- [x] G1");
    fs.writeFileSync(path.join(p.dir, "GATES.md"), ticked);
    expect(p.agent("status").code).toBe(1);
    // The person with their key: approved and signed; status and CI accept it.
    fs.writeFileSync(path.join(p.dir, "GATES.md"), GATES);
    const a = p.person("check", "--approve");
    expect(a.output).toContain("APPROVED GATES:G1");
    expect(fs.existsSync(path.join(p.dir, ".kbz/signed/GATES.md/G1.approval"))).toBe(true);
    const st = p.agent("status", "--all");
    expect(st.stdout).toMatch(/^ +MET +GATES:G1/m);
    expect(st.stdout).not.toContain("UNSIGNED");
  });
});
