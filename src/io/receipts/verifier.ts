// Who verified: kbz's version and a digest of its own source (a deliberate fix of docs/formats.md#fixes,
// which hashed the skill's whole scripts folder, so any unrelated helper edit voided every
// receipt and a binary file there broke verification). The compiled binary carries the digest
// build.ts computed over src/; `bun test` runs compute the same digest from the source tree.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { VERSION } from "../../version.ts";

declare const KBZ_BUILD_DIGEST: string | undefined;

export interface Verifier {
  name: "kbz";
  version: string;
  build: string; // sha256 over the bundled source files
}

/** sha256 of `[[relative path, sha256 of bytes], …]` for every file under `dir`, code-unit order. */
export function sourceDigest(dir: string): string {
  const entries: [string, string][] = [];
  const walk = (at: string, rel: string) => {
    for (const name of fs.readdirSync(at).sort()) {
      const abs = path.join(at, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(abs);
      if (st.isDirectory()) walk(abs, r);
      else if (st.isFile()) entries.push([r, sha256Hex(fs.readFileSync(abs))]);
    }
  };
  walk(dir, "");
  return sha256Hex(JSON.stringify(entries));
}

let current: Verifier | null = null;

export function currentVerifier(): Verifier {
  if (!current) {
    const build =
      typeof KBZ_BUILD_DIGEST === "string" ? KBZ_BUILD_DIGEST : sourceDigest(path.resolve(import.meta.dir, "..", ".."));
    current = { name: "kbz", version: VERSION, build };
  }
  return current;
}
