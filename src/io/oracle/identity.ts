// The speed trick of the oracle re-check, in one place. `kbz status`, the Stop hook and the
// dashboard re-bind the oracle of every met gate that has a pass record (io/trace.ts DigestWalk):
// hashing each checker, test or config file again on every read made `status` with 200 met gates
// 1.63-1.73x the CPU of a kbz without oracle records (bench/cost.ts oracle200). Instead a pass
// record keeps, beside each file's digest, the file's identity when kbz hashed it:
// `dev:ino:size:mtime_ns:ctime_ns`. A reader that finds the same identity now takes the recorded
// digest without opening the file. With it (and filesFrom below) that case went to 1.28x (fcf50d1
// against 33d2fc2, 21 interleaved pairs), and a record whose identities all hold is valid without
// binding its oracle again (filesUnchanged: 0.95 of the build before). What is left is reading the
// records, a stat per file and the attestation's digest of each record: 1.24x at JavaScriptCore's
// normal JIT policy, 0.87x with the executable's (build.ts JIT_POLICY; load 5, 21 pairs).
//
// A pass record of a gate whose oracle is only the files its CHECK names (`node check.mjs`,
// `sh checks/a.sh`: no package.json script, no ORACLE:, no `~`) also keeps `filesFrom`, the real
// directory those names were resolved in. That set of files is then fixed by the CHECK's text
// (bound by the record's definition digest) and that directory, so while the directory and every
// file's identity hold, the reader takes the recorded files as they are without reading the CHECK
// again (`filesUnchanged`). Anything else (a script, a glob, a changed identity) binds the oracle
// afresh, hashing only files whose identity changed.
//
// Why an agent cannot use this to keep a rewritten checker met:
// - ctime is set to the clock by every write, rename, chmod or utimes of the file, and no system
//   call lets a user set it (only changing the system clock, which needs root). An agent can
//   restore size, mtime (`touch -d`) and even the inode; the ctime still differs.
// - An identity is recorded only when kbz read the file whole between two fstat calls that agree,
//   and when the file's last change is older than RACY_MS: a write in the same clock step as the
//   change kbz saw could otherwise share its ctime (git's "racily clean" index entries). The
//   coarsest timestamp step of the filesystems below is 1 s.
// - Only on filesystems whose ctime the kernel keeps (ext2/3/4, xfs, btrfs, tmpfs, overlayfs, zfs,
//   f2fs, bcachefs): FAT and most network filesystems keep no ctime of their own, so no identity.
// - A record's identity vouches for that record's digest only. It is never shared with another
//   gate's check (io/trace.ts keeps only digests it computed in its per-read cache): a forged
//   identity in one record cannot make another gate read an old digest. The pass record itself is
//   bound by the attestation (core/trace.ts recordDigest covers it), so under the person policy an
//   edited identity makes its gate UNATTESTED; under the agent policy an agent can edit the
//   recorded digests themselves, so the identity adds nothing there.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Gate } from "../../core/ledger/model.ts";
import { oracleRefs } from "../../core/run/oracle-files.ts";

/** A change younger than this (against the clock when kbz hashed the file) records no identity. */
export const RACY_MS = 2_000;

/** statfs magic numbers of filesystems whose ctime the kernel sets and no user can. */
const KEEPS_CTIME = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e,
]);

/** The identity of a stat result, as a pass record stores it. */
export function identityOf(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

const fsTrusted = new Map<bigint, boolean>();

/** Does the filesystem of `path` (device `dev`) keep a ctime users cannot set? Asked once per device. */
function keepsCtime(path: string, dev: bigint): boolean {
  let ok = fsTrusted.get(dev);
  if (ok === undefined) {
    try {
      ok = process.platform === "linux" && KEEPS_CTIME.has(Number(fs.statfsSync(path).type));
    } catch {
      ok = false;
    }
    fsTrusted.set(dev, ok);
  }
  return ok;
}

/**
 * The identity to record for a file kbz just hashed through `fd`: `before` is its fstat before
 * reading; null when a second fstat differs, the change is too recent, or the filesystem does not
 * keep ctime.
 */
export function hashedIdentity(path: string, fd: number, before: fs.BigIntStats): string | null {
  const after = fs.fstatSync(fd, { bigint: true });
  const id = identityOf(after);
  if (id !== identityOf(before)) return null;
  if (BigInt(Date.now()) * 1_000_000n - after.ctimeNs < BigInt(RACY_MS) * 1_000_000n) return null;
  return keepsCtime(path, after.dev) ? id : null;
}

/**
 * What this process learned by hashing: absolute path → the digest and identity of its last read.
 * A pass record takes the identity of a file whose digest it records (identitiesFor).
 */
const seen = new Map<string, { digest: string; identity: string }>();

export function rememberHashed(abs: string, digest: string, identity: string | null): void {
  if (identity) seen.set(abs, { digest, identity });
  else seen.delete(abs);
}

/**
 * The identities to store with a pass record's file digests (`files`: key → digest; `absOf`: a
 * key's file). Only files this process hashed to the same digest are included.
 */
export function identitiesFor(
  files: Readonly<Record<string, string>>,
  absOf: (key: string) => string | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, digest] of Object.entries(files)) {
    const abs = absOf(key);
    const s = abs === null ? undefined : seen.get(abs);
    if (s && s.digest === digest) out[key] = s.identity;
  }
  return out;
}

/** The identity of `abs` now (links followed, as the CHECK runs it), or null. */
export function currentIdentity(abs: string): string | null {
  try {
    const st = fs.statSync(abs, { bigint: true });
    return st.isFile() ? identityOf(st) : null;
  } catch {
    return null;
  }
}

/**
 * True when the gate's oracle is exactly the files its CHECK names, resolved from its directory:
 * no package-manager script or config (their files depend on package.json), no ORACLE: globs
 * (they depend on directory listings), no `~` (it depends on HOME).
 */
export function namesOnlyFiles(gate: Gate): boolean {
  if (gate.oracle || !gate.check) return false;
  const found = oracleRefs(gate.check, ".");
  // A runner, a package manager or bun reads configs found by name (io/oracle/closure.ts configsFor): a new one is a change.
  if (found.runners.length > 0 || found.programs.some((p) => /^(npm|pnpm|yarn|npx|pnpx|bun|bunx)$/.test(p)))
    return false;
  return found.refs.every((r) => r.kind === "file" && !r.path.startsWith("~"));
}

/**
 * True when a gate's oracle files are still exactly those its pass record keeps: the record
 * (whose definition and evidence the caller matched with the gate) says its files are the ones
 * the CHECK names from `cwd`, the gate declares no ORACLE:, and every file's identity now
 * (`identityNow`, absolute path) is the recorded one. False when anything differs.
 */
export function filesUnchanged(
  detail: unknown,
  depends: Readonly<Record<string, string>>,
  gate: Gate,
  cwd: string,
  root: string,
  identityNow: (abs: string) => string | null,
): boolean {
  const d = detail as { filesFrom?: unknown; stat?: Record<string, unknown> } | undefined;
  if (!d || d.filesFrom !== cwd || gate.oracle || !d.stat || typeof d.stat !== "object") return false;
  for (const name in depends) {
    if (!name.startsWith("oracle:")) continue;
    const key = name.slice("oracle:".length);
    const identity = Object.hasOwn(d.stat, key) ? d.stat[key] : undefined;
    if (typeof identity !== "string" || identityNow(path.isAbsolute(key) ? key : path.join(root, key)) !== identity)
      return false;
  }
  return true;
}
