// Issue 42 item 2: a git the sandbox planted ran. When the root has no `.git` of its own (no git
// at all, or a monorepo's subproject), a sandboxed CHECK made one with `filter.x.clean` and a
// `.gitattributes`; kbz's own `git diff` (the probe's deliverable discovery, before any approval
// check) then ran the filter with kbz's rights; the inert git settings do not turn filters off.
// Now the sandbox covers a missing `<root>/.git` (none can be made there), and kbz never lets git
// read a worktree's files: it hashes them itself against the ids `git ls-tree` keeps, so not even
// a filter the person's own repository defines runs on what a CHECK wrote. As root and as a user
// made for the test. Fails on 571b8e3 (KBZ_TEST_BIN=/work/tools/kbz-571b8e3).
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, writeTree } from "../helpers/kbz.ts";
import { setApprovalPolicy } from "../helpers/approvals.ts";
import { needs } from "../helpers/needs.ts";
import { asRoot, otherUser, type Runner } from "../helpers/asUser.ts";

setDefaultTimeout(180_000);

const ready = needs("bwrap");
const user = otherUser();
afterAll(() => {
  if (typeof user !== "string") user.drop();
});

type Layout =
  | "no git at all"
  | "a monorepo's subproject"
  | "the person's repository, its worktree changed by the CHECK";

function setup(r: Runner, layout: Layout) {
  const outside = r.dir("kbz-c42-out-");
  const marker = path.join(outside, "filter-ran");
  const top = r.dir("kbz-c42-repo-");
  const root = layout === "a monorepo's subproject" ? path.join(top, "sub") : top;
  const plant = [
    "git init -q . 2>/dev/null",
    `git config filter.x.clean "touch ${marker}; cat" 2>/dev/null`,
    'echo "* filter=x" > .gitattributes',
    "git add -A 2>/dev/null",
    "git -c user.name=a -c user.email=a@a commit -qm planted 2>/dev/null",
    "echo ok",
  ].join("; ");
  const check =
    layout === "the person's repository, its worktree changed by the CHECK"
      ? 'echo "* filter=x" > .gitattributes; echo ok'
      : plant;
  const gate = `- [ ] G1: planted\n  CHECK: ${check}\n  EXPECT: ok\n  EVIDENCE: pending\n`;
  writeTree(root, { "GATES.md": `# Gates: git\n\n${gate}`, "data.txt": "v1\n" });
  if (layout === "a monorepo's subproject") writeTree(top, { "README.md": "the monorepo\n" });
  const store = path.join(outside, "store");
  fs.mkdirSync(store, { mode: 0o700 });
  setApprovalPolicy(store, "agent");
  const home = path.join(outside, "home");
  fs.mkdirSync(home);
  const own = (p: string) => {
    fs.lchownSync(p, r.uid, r.gid);
    if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p)) own(path.join(p, n));
  };
  own(top);
  own(outside);
  const env: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    HOME: home,
    UNLAZY_APPROVAL_DIR: store,
    CLAUDECODE: "1",
  };
  const git = (args: string[], cwd = top) =>
    expect(r.run(["/usr/bin/git", "-c", "user.name=p", "-c", "user.email=p@p", ...args], { cwd, env }).code).toBe(0);
  if (layout !== "no git at all") {
    git(["init", "-q"]);
    git(["add", "-A"]);
    git(["commit", "-qm", "the person's work"]);
  }
  if (layout === "the person's repository, its worktree changed by the CHECK") {
    // The person's own filter (as an LFS install defines one): it must never run on what a CHECK wrote.
    git(["config", "filter.x.clean", `touch ${marker}; cat`]);
    fs.writeFileSync(path.join(root, "data.txt"), "v2, the agent's change\n");
  }
  return { root, env, marker };
}

function plantedGitNeverRuns(r: Runner, layout: Layout) {
  const { root, env, marker } = setup(r, layout);
  const run = (args: string[]) => r.run([BIN, ...args], { cwd: root, env });
  const checked = run(["check", "--sandbox", "--approve"]);
  expect(checked.code).toBe(0);
  if (layout !== "the person's repository, its worktree changed by the CHECK") {
    // No repository was made in the root, and the sandbox's cover is gone from the host.
    expect(fs.existsSync(path.join(root, ".git"))).toBe(false);
  }
  const probe = run(["check", "--probe", "--approve"]);
  expect(fs.existsSync(marker)).toBe(false);
  if (layout === "the person's repository, its worktree changed by the CHECK") {
    // kbz's own hashing finds what git diff found: the changed file and the untracked one.
    expect(probe.stdout).toContain("(git: .gitattributes, data.txt)");
  }
}

describe.skipIf(!ready)(
  "issue 42 item 2: kbz never lets git read a worktree a CHECK could have made or changed",
  () => {
    const root = asRoot();
    for (const layout of [
      "no git at all",
      "a monorepo's subproject",
      "the person's repository, its worktree changed by the CHECK",
    ] as const) {
      const why = (x: unknown) => (typeof x === "string" ? ` (skipped: ${x})` : "");
      test.skipIf(typeof root === "string")(
        `item 2 as root, ${layout}: no filter runs, no .git is planted${why(root)}`,
        () => {
          plantedGitNeverRuns(root as Runner, layout);
        },
      );
      test.skipIf(typeof user === "string")(
        `item 2 as a user, ${layout}: no filter runs, no .git is planted${why(user)}`,
        () => {
          plantedGitNeverRuns((user as { runner: Runner }).runner, layout);
        },
      );
    }
  },
);
