// What changed in an oracle file since its approval, shown as a short diff when git still has the
// approved content (issue 27: `kbz approvals explain` names the changed files), through kbz's inert
// git call (io/git.ts: no fsmonitor, no hooks, no GIT_* variables).
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { gitInert } from "../git.ts";

const MAX_DIFF_LINES = 12;

const git = (root: string, args: string[]) => gitInert(root, args, { timeoutMs: 5000, maxBuffer: 16 * 1024 * 1024 });

/** Lines removed and added, in order, between two texts (a short LCS diff; small files only). */
export function shortDiff(before: string, after: string, max = MAX_DIFF_LINES): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > 4_000_000) return ["(too large to diff here; git diff shows it)"];
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.length > max ? [...out.slice(0, max), `… ${out.length - max} more changed line(s)`] : out;
}

/**
 * The approved and current text of an oracle item when git's HEAD holds the approved one (its
 * digest matches), as diff lines; null when the old content is not in git.
 */
export function diffSinceApproval(root: string, key: string, approvedDigest: string): string[] | null {
  const hash = key.indexOf("#scripts.");
  const file = hash >= 0 ? key.slice(0, hash) : key;
  if (path.isAbsolute(file) || file.startsWith("..")) return null;
  const old = git(root, ["cat-file", "blob", `HEAD:${file}`]); // never textconv or a filter (issue 42 item 2)
  if (old === null) return null;
  let now = "";
  try {
    now = fs.readFileSync(path.join(root, file), "utf8");
  } catch {}
  if (hash < 0) return sha256Hex(old) === approvedDigest ? shortDiff(old, now) : null;
  const name = key.slice(hash + "#scripts.".length);
  const script = (text: string): string | null => {
    try {
      const v = JSON.parse(text)?.scripts?.[name];
      return typeof v === "string" ? v : null;
    } catch {
      return null;
    }
  };
  const before = script(old);
  if (before === null || sha256Hex(before) !== approvedDigest) return null;
  return shortDiff(before, script(now) ?? "(no such script)");
}
