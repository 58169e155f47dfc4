// One file's digest for the oracle binding (docs/formats.md#oracle): opened without blocking on a
// FIFO, hashed in 1 MiB chunks (memory stays bounded whatever the size), or a word saying why there
// is no content to hash. A digest is what an approval binds: any change of the word or the hash
// makes the gate need approval again.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { hashedIdentity, rememberHashed } from "./identity.ts";

export const MAX_ORACLE_FILE_BYTES = 8 * 1024 * 1024;
const CHUNK = 1024 * 1024;

export type FileDigest =
  | { sha256: string; size: number }
  | { state: "missing" | "directory" | "special" | "unreadable" };

interface Incremental {
  update(d: Uint8Array): unknown;
  digest(enc: "hex"): string;
}

function hasher(): Incremental {
  const bun = (globalThis as any).Bun;
  if (bun?.CryptoHasher) return new bun.CryptoHasher("sha256");
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256");
}

/** The digest of the file `abs` names now (links followed: a CHECK runs what they point to). */
export function fileDigest(abs: string): FileDigest {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return { state: "missing" };
    if (code === "EISDIR") return { state: "directory" };
    return { state: "unreadable" };
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    if (st.isDirectory()) return { state: "directory" };
    if (!st.isFile()) return { state: "special" };
    const h = hasher();
    const buf = new Uint8Array(Math.min(CHUNK, Math.max(1, Number(st.size))));
    let size = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(n === buf.length ? buf : buf.subarray(0, n));
      size += n;
    }
    const sha256 = h.digest("hex");
    // What the pass record stores beside the digest (io/oracle/identity.ts: status's fast path).
    rememberHashed(abs, sha256, hashedIdentity(abs, fd, st));
    return { sha256, size };
  } catch {
    return { state: "unreadable" };
  } finally {
    fs.closeSync(fd);
  }
}

/** The form an approval records: the hex digest, or the state word. */
export function digestText(d: FileDigest): string {
  return "sha256" in d ? d.sha256 : d.state;
}
