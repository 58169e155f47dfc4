// io/gitBlobs.ts: kbz's own blob ids agree with git's, in sha1 and sha256 repositories, and the
// changed-file list agrees with what `git diff HEAD` plus the untracked names would say.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { blobId, changedFromHead, worktreeBlobId } from "../../src/io/gitBlobs.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";

const git = (cwd: string, ...args: string[]) =>
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

describe("git blob ids computed by kbz", () => {
  for (const format of ["sha1", "sha256"] as const) {
    test(`${format}: a file's id is git hash-object's; a link's is its target's text`, () => {
      const dir = tempDir();
      expect(git(dir, "init", "-q", `--object-format=${format}`).status).toBe(0);
      const bytes = Buffer.concat([Buffer.from("héllo\n"), Buffer.alloc(3 * 1024 * 1024, 7)]);
      fs.writeFileSync(path.join(dir, "f.bin"), bytes);
      const want = git(dir, "hash-object", "f.bin").stdout.trim();
      expect(blobId(bytes, format)).toBe(want);
      expect(worktreeBlobId(path.join(dir, "f.bin"), format)).toBe(want);
      fs.symlinkSync("f.bin", path.join(dir, "l"));
      const linkId = spawnSync("git", ["hash-object", "--stdin"], {
        cwd: dir,
        input: "f.bin",
        encoding: "utf8",
      }).stdout.trim();
      expect(worktreeBlobId(path.join(dir, "l"), format)).toBe(linkId);
    });
  }

  test("changedFromHead: changed, staged-new and untracked files, not ignored or unchanged ones; from a subfolder, relative to it", () => {
    const dir = tempDir();
    writeTree(dir, { "a.txt": "a\n", "sub/b.txt": "b\n", "sub/c.txt": "c\n", ".gitignore": "*.log\n" });
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "x");
    writeTree(dir, { "sub/b.txt": "b2\n", "sub/new.txt": "n\n", "sub/staged.txt": "s\n", "sub/x.log": "ignored\n" });
    git(dir, "add", "sub/staged.txt");
    expect(changedFromHead(dir)).toEqual(["sub/b.txt", "sub/new.txt", "sub/staged.txt"]);
    expect(changedFromHead(path.join(dir, "sub"))).toEqual(["b.txt", "new.txt", "staged.txt"]);
    expect(changedFromHead(tempDir())).toBeNull();
  });
});
