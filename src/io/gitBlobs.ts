// Which worktree files differ from git's HEAD, without letting git read the worktree (issue 42
// item 2). `git diff` compares by running the worktree's files through the clean filters and
// textconv drivers that `.gitattributes` names (a CHECK writes that file; a repository's config,
// or one a CHECK planted where there was none, defines the programs), with kbz's rights, before
// any approval. Here git only lists the ids it keeps (`ls-tree` of HEAD, `ls-files --stage` of
// the index: object-store and index reads) and the names of untracked files (`ls-files --others`:
// directory names and ignore files, no file's content, no filter); kbz hashes each tracked file
// itself, as git would hash it unfiltered (`blob <size>\0<bytes>`, sha1 or sha256 by the
// repository's object format), and a file whose id is not HEAD's is changed. A filtered file
// (LFS, eol conversion) reads as changed: the probe hides more, never less.
import * as fs from "node:fs";
import * as path from "node:path";
import { digestStream } from "../core/util/hash.ts";
import { gitInert } from "./git.ts";

const CHUNK = 1024 * 1024;
const OPEN = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/** git's object id of `bytes` as a blob ("sha1" or "sha256"). */
export function blobId(bytes: Uint8Array, algo: "sha1" | "sha256" = "sha1"): string {
  const h = digestStream(algo);
  h.update(`blob ${bytes.length}\0`);
  h.update(bytes);
  return h.digest();
}

/** The blob id of the worktree entry at `file` (a link: its target text), or null when it is not a file or a link. */
export function worktreeBlobId(file: string, algo: "sha1" | "sha256"): string | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) {
    try {
      return blobId(Buffer.from(fs.readlinkSync(file, "buffer")), algo);
    } catch {
      return null;
    }
  }
  if (!st.isFile()) return null;
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN);
  } catch {
    return null;
  }
  try {
    const fst = fs.fstatSync(fd);
    if (!fst.isFile()) return null;
    const h = digestStream(algo);
    h.update(`blob ${fst.size}\0`);
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, fst.size)));
    let total = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      total += n;
      h.update(buf.subarray(0, n));
    }
    // A file that grew or shrank while read has no single id: changed.
    return total === fst.size ? h.digest() : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** `<id>\t<path>` records of ls-tree / ls-files --stage output (NUL-separated), by path. */
function ids(out: string, idField: number): Map<string, string> {
  const m = new Map<string, string>();
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const fields = rec.slice(0, tab).split(" ");
    const mode = fields[0] ?? "";
    // Submodules (160000) are commits, not files of this worktree.
    if (mode === "160000") continue;
    m.set(rec.slice(tab + 1), fields[idField] ?? "");
  }
  return m;
}

/**
 * Root-relative paths that differ from HEAD (changed, added to the index, or untracked and not
 * ignored), as `git diff HEAD` plus `ls-files --others` named them; null when `root` is not the
 * top of a git worktree with a HEAD. Paths in HEAD missing from the worktree are left out.
 */
export function changedFromHead(root: string): string[] | null {
  // Run from `root`: both listings keep to it and name paths relative to it (a subproject of a monorepo).
  const head = gitInert(root, ["ls-tree", "-r", "-z", "HEAD"]);
  if (head === null) return null;
  const index = gitInert(root, ["ls-files", "-z", "--stage"]) ?? "";
  const untracked = gitInert(root, ["ls-files", "-z", "--others", "--exclude-standard"]) ?? "";
  const inHead = ids(head, 2);
  const inIndex = ids(index, 1);
  const anyId = inHead.values().next().value ?? inIndex.values().next().value ?? "";
  const algo = anyId.length === 64 ? "sha256" : "sha1";
  const out = new Set<string>();
  for (const rel of new Set([...inHead.keys(), ...inIndex.keys()])) {
    const now = worktreeBlobId(path.join(root, rel), algo);
    if (now === null) continue; // gone from the worktree (or not a file): nothing to hide
    if (now !== inHead.get(rel)) out.add(rel);
  }
  for (const rel of untracked.split("\0")) if (rel) out.add(rel);
  return [...out].sort();
}
