// A build of an older commit of this repository, for the tests that prove a compatibility path
// against what that build wrote (never a binary at a path of one developer's machine). Built once
// per machine from the repository's own history (`git archive`, this node_modules, `bun build.ts`)
// into node_modules/.cache/kbz-old-<commit>/, published by a rename so parallel workers share it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "./kbz.ts";

/** The binary of `commit`, or why there is none (a clone without that history, a failed build). */
export function oldBuild(commit: string): { bin: string } | { why: string } {
  const dir = path.join(REPO, "node_modules", ".cache", `kbz-old-${commit}`);
  const bin = path.join(dir, "dist", "kbz");
  if (fs.existsSync(bin)) return { bin };
  const has = spawnSync("git", ["-C", REPO, "cat-file", "-e", `${commit}^{commit}`]);
  if (has.status !== 0) return { why: `commit ${commit} is not in this clone's history (a shallow clone?)` };
  const work = `${dir}.${process.pid}.tmp`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  try {
    const tar = spawnSync("sh", ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", REPO, commit, work]);
    if (tar.status !== 0) return { why: `git archive ${commit} failed: ${tar.stderr}` };
    fs.symlinkSync(path.join(REPO, "node_modules"), path.join(work, "node_modules"));
    const built = spawnSync(process.execPath, ["build.ts"], { cwd: work, encoding: "utf8" });
    if (built.status !== 0) return { why: `building ${commit} failed: ${built.stderr.slice(-400)}` };
    try {
      fs.renameSync(work, dir);
    } catch {
      // Another worker published it first.
    }
    return fs.existsSync(bin) ? { bin } : { why: `building ${commit} left no dist/kbz` };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
