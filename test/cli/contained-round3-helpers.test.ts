// Issue 42 item 1: the probe ran a program from the CHECK's PATH outside the sandbox. Its view
// was mounted by `unshare … /bin/sh -c 'mount …'` with the CHECK's environment, so `mount` was
// looked up on the approved PATH: with a PATH folder inside the repository (an activated
// `.venv/bin`), a `mount` the agent dropped there ran as real root (as a user: root of a user
// namespace) on the agent's own `kbz check --probe`; bwrap and git were found on PATH too. Every
// helper kbz runs around a CHECK is now the system's, by absolute path, with a minimal environment;
// the CHECK's variables reach the CHECK inside the sandbox and no program outside it. As root and
// as a user made for the test. Fails on 571b8e3 (KBZ_TEST_BIN=/work/tools/kbz-571b8e3).
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, writeTree } from "../helpers/kbz.ts";
import { setApprovalPolicy } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";
import { asRoot, otherUser, type Runner } from "../helpers/asUser.ts";

setDefaultTimeout(180_000);

const ready = needs("bwrap") && needs("strace");
// strace as found on PATH (the other user runs it by this absolute name).
const STRACE = Bun.which("strace") ?? "strace";
const user = otherUser();
afterAll(() => {
  if (typeof user !== "string") user.drop();
});

const TOOLS = ["mount", "unshare", "bwrap", "git", "umount"];

/** A repository whose `.venv/bin` (first on the CHECK's PATH) holds a planted copy of each helper. */
function plantedRepo(r: Runner) {
  const dir = r.dir("kbz-c42-repo-");
  const outside = r.dir("kbz-c42-out-");
  const trap = path.join(outside, "planted-ran");
  const plant = (name: string) => `#!/bin/sh\necho "${name} $*" >> ${trap}\nexec /usr/bin/${name} "$@"\n`;
  const gate = `- [ ] G1: the region is set\n  CHECK: test \${#KBZ42_MARK} = 12 && echo ok\n  EXPECT: ok\n  ENV: KBZ42_MARK\n  EVIDENCE: pending\n`;
  writeTree(dir, {
    "GATES.md": `# Gates: helpers\n\n${gate}`,
    "data.txt": "the deliverable\n",
    ...Object.fromEntries(TOOLS.map((t) => [`.venv/bin/${t}`, plant(t)])),
  });
  for (const t of TOOLS) fs.chmodSync(path.join(dir, ".venv/bin", t), 0o755);
  const store = path.join(outside, "store");
  fs.mkdirSync(store, { mode: 0o700 });
  setApprovalPolicy(store, "agent");
  const home = path.join(outside, "home");
  const tmp = path.join(outside, "tmp");
  fs.mkdirSync(home);
  fs.mkdirSync(tmp);
  const env: Record<string, string> = {
    PATH: `${dir}/.venv/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    UNLAZY_APPROVAL_DIR: store,
    KBZ42_MARK: "secret-value",
    CLAUDECODE: "1",
  };
  // Everything belongs to the runner, as a user's own checkout and store would.
  const own = (p: string) => {
    fs.lchownSync(p, r.uid, r.gid);
    if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p)) own(path.join(p, n));
  };
  // git history (with the system's git, as the runner): data.txt is the change the probe hides.
  const git = (args: string[]) =>
    r.run(["/usr/bin/git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: home },
    });
  own(dir);
  own(outside);
  expect(git(["init", "-q"]).code).toBe(0);
  expect(git(["add", "GATES.md"]).code).toBe(0);
  expect(git(["commit", "-qm", "gates"]).code).toBe(0);
  return { dir, env, trap, tmp, outside };
}

interface Exec {
  file: string;
  argv: string;
  env: string;
}

/** execve calls from an strace -f -v log. */
function execs(log: string): Exec[] {
  const out: Exec[] = [];
  for (const line of log.split("\n")) {
    const m = /execve\("([^"]+)", \[(.*?)\], \[(.*)\]/.exec(line);
    if (m && / = 0$/.test(line)) out.push({ file: m[1]!, argv: m[2]!, env: m[3]! });
  }
  return out;
}

function probeWithPlantedHelpers(r: Runner) {
  const { dir, env, trap, tmp, outside } = plantedRepo(r);
  expect(r.run([BIN, "check", "--approve"], { cwd: dir, env }).code).toBe(0);
  const log = path.join(outside, "trace");
  const probe = r.run(
    [STRACE, "-f", "-qq", "-v", "-s", "1024", "-e", "trace=execve", "-o", log, BIN, "check", "--probe", "--approve"],
    { cwd: dir, env },
  );
  const calls = execs(fs.readFileSync(log, "utf8"));
  // The CHECK ran in the view (its deliverable hidden, it still passed) and saw its variable.
  expect(probe.stdout).toContain("VACUOUS GATES:G1");
  // No planted helper ran, from the probe or the check before it.
  expect(fs.existsSync(trap) ? fs.readFileSync(trap, "utf8") : "").toBe("");
  // Each helper kbz ran is the system's, with none of the CHECK's environment.
  const helpers = calls.filter(
    (c) =>
      TOOLS.includes(path.basename(c.file)) ||
      (path.basename(c.file) === "sh" && c.argv.includes("overlay")) ||
      (/\/(dash|sh)$/.test(c.file) && c.argv.includes("cgroup.procs")),
  );
  expect(helpers.map((c) => path.basename(c.file))).toEqual(expect.arrayContaining(["bwrap", "git"]));
  for (const c of helpers) {
    expect(c.file.startsWith(dir)).toBe(false);
    expect(c.env).not.toContain("KBZ42_MARK");
    expect(c.env).not.toContain(`${dir}/.venv`);
    expect(c.argv).not.toContain("secret-value"); // the value travels in bwrap's --args descriptor, never in an argv
  }
  // Nothing of the view is left in kbz's temp folder.
  expect(fs.readdirSync(tmp).filter((n) => n.startsWith("kbz-"))).toEqual([]);
}

describe.skipIf(!ready)("issue 42 item 1: the probe's helpers are the system's, run with a minimal environment", () => {
  const root = asRoot();
  test.skipIf(typeof root === "string")(
    `item 1 as root: a mount, unshare, bwrap or git on the CHECK's PATH never runs; the CHECK's variables reach only the CHECK${typeof root === "string" ? ` (skipped: ${root})` : ""}`,
    () => {
      probeWithPlantedHelpers(root as Runner);
    },
  );
  test.skipIf(typeof user === "string")(
    `item 1 as a user: a mount, unshare, bwrap or git on the CHECK's PATH never runs; the CHECK's variables reach only the CHECK${typeof user === "string" ? ` (skipped: ${user})` : ""}`,
    () => {
      probeWithPlantedHelpers((user as { runner: Runner }).runner);
    },
  );
});
