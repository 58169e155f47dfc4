// The fast path of `ssh-keygen -Y verify` (docs/formats.md#signed-records), for `kbz ci` and the
// signed policy, which verify one signature per gate: spawning ssh-keygen 200 times cost ~4 s of a
// 200-gate `kbz ci` where `kbz check --reverify` takes ~1.3 s (bench: see docs/formats.md#ci).
// Only the plainest case is decided here, exactly as OpenSSH's sshsig.c does it: an allowed-signers
// line with no options but `namespaces=` naming kbz, a principal matched literally, an Ed25519,
// RSA (rsa-sha2-256/512) or ECDSA (nistp256/384/521) key, and a signature that holds. Everything
// else (certificates, validity windows, wildcards, security keys) returns null: ssh-keygen
// decides. A signature that does not hold also returns null, so every refusal and its reason are
// ssh-keygen's own. test/io/sign/sshsig.test.ts holds this against ssh-keygen on real keys.
import { createRequire } from "node:module";
import { SIGNATURE_NAMESPACE } from "../../core/signed/record.ts";

// node:crypto is loaded on first use only (start-up cost; test/core/util/hash.test.ts).
let cryptoModule: typeof import("node:crypto") | null = null;
function nodeCrypto(): typeof import("node:crypto") {
  cryptoModule ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return cryptoModule;
}

/** An SSH wire-format reader: uint32 lengths, strings. */
class Wire {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  u32(): number {
    if (this.at + 4 > this.buf.length) throw new Error("short");
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }
  bytes(): Buffer {
    const n = this.u32();
    if (this.at + n > this.buf.length) throw new Error("short");
    const v = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  raw(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new Error("short");
    const v = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  done(): boolean {
    return this.at === this.buf.length;
  }
}

function str(b: Buffer | string): Buffer {
  const data = typeof b === "string" ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

const b64url = (b: Buffer) => b.toString("base64url");
/** An mpint as unsigned big-endian bytes (leading zero dropped). */
const unsigned = (b: Buffer) => (b.length > 1 && b[0] === 0 ? b.subarray(1) : b);

const CURVES: Record<string, { crv: string; size: number; hash: string }> = {
  nistp256: { crv: "P-256", size: 32, hash: "sha256" },
  nistp384: { crv: "P-384", size: 48, hash: "sha384" },
  nistp521: { crv: "P-521", size: 66, hash: "sha512" },
};

/** Verify one SSH signature blob over `data` with the public key blob `pub`; null for a key type this path leaves to ssh-keygen. */
function verifyKey(pub: Buffer, sigBlob: Buffer, data: Buffer): boolean | null {
  const crypto = nodeCrypto();
  const k = new Wire(pub);
  const type = k.bytes().toString();
  const s = new Wire(sigBlob);
  const sigType = s.bytes().toString();
  const sig = s.bytes();
  if (!s.done()) return false;
  if (type === "ssh-ed25519") {
    const pk = k.bytes();
    if (!k.done() || sigType !== "ssh-ed25519" || pk.length !== 32 || sig.length !== 64) return false;
    const key = crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: b64url(pk) }, format: "jwk" });
    return crypto.verify(null, data, key, sig);
  }
  if (type === "ssh-rsa") {
    const e = k.bytes();
    const n = k.bytes();
    if (!k.done()) return false;
    const hash = sigType === "rsa-sha2-512" ? "sha512" : sigType === "rsa-sha2-256" ? "sha256" : null;
    if (!hash) return false; // SSHSIG never takes ssh-rsa (SHA-1) signatures
    const key = crypto.createPublicKey({
      key: { kty: "RSA", n: b64url(unsigned(n)), e: b64url(unsigned(e)) },
      format: "jwk",
    });
    return crypto.verify(hash, data, key, sig);
  }
  const ec = /^ecdsa-sha2-(nistp256|nistp384|nistp521)$/.exec(type);
  if (ec) {
    const curve = CURVES[ec[1]!]!;
    const name = k.bytes().toString();
    const q = k.bytes();
    if (!k.done() || name !== ec[1] || sigType !== type || q[0] !== 4 || q.length !== 1 + 2 * curve.size) return false;
    const rs = new Wire(sig);
    const r = unsigned(rs.bytes());
    const sv = unsigned(rs.bytes());
    if (!rs.done() || r.length > curve.size || sv.length > curve.size) return false;
    const pad = (b: Buffer) => Buffer.concat([Buffer.alloc(curve.size - b.length), b]);
    const key = crypto.createPublicKey({
      key: {
        kty: "EC",
        crv: curve.crv,
        x: b64url(q.subarray(1, 1 + curve.size)),
        y: b64url(q.subarray(1 + curve.size)),
      },
      format: "jwk",
    });
    return crypto.verify(curve.hash, data, { key, dsaEncoding: "ieee-p1363" }, Buffer.concat([pad(r), pad(sv)]));
  }
  return null;
}

/** The public key blobs `principal` may sign with in kbz's namespace, or null when a line needs ssh-keygen's judgement. */
function keysOf(allowedText: string, principal: string): Buffer[] | null {
  const keys: Buffer[] = [];
  for (const raw of allowedText.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const words = line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
    const names = words[0]!.replace(/"/g, "").split(",");
    const wild = names.some((n) => /[*?!]/.test(n));
    if (wild) return null;
    if (!names.includes(principal)) continue;
    let at = 1;
    for (; at < words.length && !/^(ssh-|ecdsa-|sk-)/.test(words[at]!); at++) {
      const ns = /^namespaces="([^"]*)"$/i.exec(words[at]!);
      if (!ns) return null; // cert-authority, valid-after, valid-before: ssh-keygen's
      if (!ns[1]!.split(",").includes(SIGNATURE_NAMESPACE)) {
        at = -1;
        break;
      }
    }
    if (at < 0) continue;
    const type = words[at];
    const b64 = words[at + 1];
    if (!type || !b64 || /cert-v01|^sk-/.test(type)) return null;
    keys.push(Buffer.from(b64, "base64"));
  }
  return keys;
}

/**
 * true when the armored `signature` is `principal`'s valid SSHSIG over `message` in kbz's
 * namespace with a key the allowed signers give that principal; null when ssh-keygen must decide
 * (including every case that is not a plain yes).
 */
export function fastVerify(message: string, signature: string, principal: string, allowedText: string): true | null {
  try {
    const body = signature.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, "").replace(/\s+/g, "");
    const blob = Buffer.from(body, "base64");
    const w = new Wire(blob);
    if (w.raw(6).toString() !== "SSHSIG" || w.u32() !== 1) return null;
    const pub = w.bytes();
    const namespace = w.bytes().toString();
    const reserved = w.bytes();
    const hashAlg = w.bytes().toString();
    const sig = w.bytes();
    if (!w.done() || namespace !== SIGNATURE_NAMESPACE || (hashAlg !== "sha512" && hashAlg !== "sha256")) return null;
    const keys = keysOf(allowedText, principal);
    if (!keys || !keys.some((k) => k.equals(pub))) return null;
    const digest = nodeCrypto().createHash(hashAlg).update(message).digest();
    const data = Buffer.concat([Buffer.from("SSHSIG"), str(namespace), str(reserved), str(hashAlg), str(digest)]);
    return verifyKey(pub, sig, data) === true ? true : null;
  } catch {
    return null;
  }
}
