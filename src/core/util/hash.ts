// SHA-256, HMAC-SHA256 and random bytes without loading node:crypto on Bun. This is kbz's one
// speed trick for hashing, and every module that hashes goes through it: a top-level
// `import … from "node:crypto"` anywhere in the bundle is evaluated when its chunk loads, and it
// drags in the whole streams stack (about 15 ms of CPU on every start, measured on the compiled
// binary: 0.050 s against 0.035 s for a program that only imports node:fs), which is more than
// the whole budget of `kbz status` and the Stop hook over the old binaries. Bun's native
// CryptoHasher computes the same digests; node:crypto is required lazily, only where Bun is
// absent (the Node 16 Stop hook fallback is bundled from this same file and takes that path).
// test/core/util/hash.test.ts checks both paths agree and that no other src module imports
// node:crypto.
import { createRequire } from "node:module";

type Hasher = (parts: (string | Uint8Array)[]) => string;

interface Incremental {
  update(d: string | Uint8Array): unknown;
  digest(enc: "hex"): string;
}
const bun = (globalThis as any).Bun as
  | {
      CryptoHasher: {
        hash(alg: string, d: string | Uint8Array, enc: "hex"): string;
        new (alg: string, key?: Uint8Array): Incremental;
      };
    }
  | undefined;

/** node:crypto, loaded on first use (never on Bun's paths). */
function nodeCrypto(): typeof import("node:crypto") {
  return createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
}

function nodeHasher(): Hasher {
  const { createHash } = nodeCrypto();
  return (parts) => {
    const h = createHash("sha256");
    for (const p of parts) h.update(p);
    return h.digest("hex");
  };
}

function bunHasher(b: NonNullable<typeof bun>): Hasher {
  return (parts) => {
    if (parts.length === 1) return b.CryptoHasher.hash("sha256", parts[0]!, "hex");
    const h = new b.CryptoHasher("sha256");
    for (const p of parts) h.update(p);
    return h.digest("hex");
  };
}

let hasher: Hasher | null = bun ? bunHasher(bun) : null;

export function sha256Hex(data: string | Uint8Array): string {
  hasher ??= nodeHasher();
  return hasher([data]);
}

/** sha256 of the parts' concatenation, without building it (UTF-8 for strings). */
export function sha256HexOfParts(parts: (string | Uint8Array)[]): string {
  hasher ??= nodeHasher();
  return hasher(parts);
}

/** Hex string of `bytes` random bytes (unique names and lock tokens, not secrets). */
export function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  const webCrypto = (globalThis as any).crypto;
  if (webCrypto?.getRandomValues) webCrypto.getRandomValues(buf);
  else for (let i = 0; i < bytes; i++) buf[i] = Math.floor(Math.random() * 256);
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}

/** An incremental SHA-256 (streamed inputs): Bun's hasher, or node:crypto's under Node. */
export function sha256Stream(): { update(d: Uint8Array): void; digest(): string } {
  if (bun) {
    const h = new bun.CryptoHasher("sha256");
    return { update: (d) => void h.update(d), digest: () => h.digest("hex") };
  }
  const h = nodeCrypto().createHash("sha256");
  return { update: (d) => void h.update(d), digest: () => h.digest("hex") };
}

/** An incremental SHA-1 or SHA-256 (git's object ids use either, by the repository's format). */
export function digestStream(algo: "sha1" | "sha256"): { update(d: string | Uint8Array): void; digest(): string } {
  if (bun) {
    const h = new bun.CryptoHasher(algo);
    return { update: (d) => void h.update(d), digest: () => h.digest("hex") };
  }
  const h = nodeCrypto().createHash(algo);
  return { update: (d) => void h.update(d), digest: () => h.digest("hex") };
}

/** HMAC-SHA256 of the parts' concatenation under `key` (UTF-8 for strings), as hex. */
export function hmacSha256Hex(key: Uint8Array, parts: (string | Uint8Array)[]): string {
  const h: Incremental = bun ? new bun.CryptoHasher("sha256", key) : nodeCrypto().createHmac("sha256", key);
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

/** Hex string of `bytes` bytes from the system's CSPRNG (secrets): Web Crypto, else node:crypto. */
export function secretHex(bytes: number): string {
  const webCrypto = (globalThis as any).crypto;
  const buf = new Uint8Array(bytes);
  if (webCrypto?.getRandomValues) webCrypto.getRandomValues(buf);
  else buf.set(nodeCrypto().randomBytes(bytes));
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Whether two strings are equal, in time that depends on their length only (MACs). */
export function equalConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
