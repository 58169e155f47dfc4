// SHA-256 and random tokens without loading node:crypto on Bun: that import drags in the
// whole streams stack (~30-100 ms of startup), too much for `kbz status` and the Stop hook.
// The Node 16 hook fallback is bundled from this same file and takes the node:crypto path.
import { createRequire } from "node:module";

type Hasher = (parts: (string | Uint8Array)[]) => string;

interface Incremental {
  update(d: string | Uint8Array): unknown;
  digest(enc: "hex"): string;
}
const bun = (globalThis as any).Bun as
  | { CryptoHasher: { hash(alg: string, d: string | Uint8Array, enc: "hex"): string; new (alg: string): Incremental } }
  | undefined;

function nodeHasher(): Hasher {
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
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
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  const h = createHash("sha256");
  return { update: (d) => void h.update(d), digest: () => h.digest("hex") };
}
