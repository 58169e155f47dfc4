// core/util/hash.ts is kbz's one hashing module: Bun's native hasher where it runs, node:crypto
// (required lazily) under Node. Both give the same digests, and no other module of src/ imports
// node:crypto at its top level, which would cost every start of the binary its load time.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash, createHmac } from "node:crypto";
import {
  equalConstantTime,
  hmacSha256Hex,
  secretHex,
  sha256Hex,
  sha256HexOfParts,
} from "../../../src/core/util/hash.ts";

const SRC = path.resolve(import.meta.dir, "..", "..", "..", "src");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("hash", () => {
  test("sha256 and HMAC-SHA256 agree with node:crypto, for strings, bytes and parts", () => {
    const key = new TextEncoder().encode("a secret of the user");
    for (const body of ["", "kbz", "ünïcode ✓", "x".repeat(100_000)]) {
      expect(sha256Hex(body)).toBe(createHash("sha256").update(body).digest("hex"));
      expect(hmacSha256Hex(key, ["kbz.attestation\0", body])).toBe(
        createHmac("sha256", key).update("kbz.attestation\0").update(body).digest("hex"),
      );
    }
    expect(sha256HexOfParts(["ab", new Uint8Array([99])])).toBe(sha256Hex("abc"));
  });

  test("secrets are random hex of the asked length; comparison is exact", () => {
    const a = secretHex(32);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(secretHex(32)).not.toBe(a);
    expect(equalConstantTime(a, a.slice())).toBe(true);
    expect(equalConstantTime(a, a.slice(0, 63) + (a[63] === "0" ? "1" : "0"))).toBe(false);
    expect(equalConstantTime(a, a.slice(0, 62))).toBe(false);
  });

  test("no module of src/ but core/util/hash.ts imports node:crypto at its top level (a lazy require is fine)", () => {
    const eager = sources(SRC).filter(
      (f) =>
        !f.endsWith(path.join("core", "util", "hash.ts")) &&
        /^\s*import\s[^;]*from\s+["'](node:)?crypto["']/m.test(fs.readFileSync(f, "utf8")),
    );
    expect(eager.map((f) => path.relative(SRC, f))).toEqual([]);
  });
});
