// Literal input and ledger paths (docs/formats.md#receipts): relative, inside the root, never through a link.
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../../core/workspace/inside.ts";
import { VerificationError } from "../../core/receipts/errors.ts";

const CONTROL_OR_GLOB = /[\u0000-\u001f\u007f*?[\]]/;

export interface LocalPath {
  abs: string;
  rel: string; // root-relative with `/`; "" for the root itself
}

export function localPath(root: string, name: string): LocalPath {
  if (typeof name !== "string" || name === "" || CONTROL_OR_GLOB.test(name)) {
    throw new VerificationError("literal relative input paths required", { path: JSON.stringify(String(name)) });
  }
  if (path.isAbsolute(name) || /^[A-Za-z]:/.test(name) || name.split(/[\\/]/).includes("..")) {
    throw new VerificationError("input path escapes root", { path: name });
  }
  const abs = path.resolve(root, name);
  if (!isInside(root, abs)) throw new VerificationError("input path escapes root", { path: name });
  const rel = path.relative(root, abs).split(path.sep).join("/");
  // Every existing component from the root down must be a real entry, not a link.
  let at = root;
  for (const part of rel === "" ? [] : rel.split("/")) {
    at = path.join(at, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch {
      break; // missing from here on: allowed, recorded as absent
    }
    if (st.isSymbolicLink()) throw new VerificationError("linked input is unsupported", { path: rel });
  }
  return { abs, rel };
}

export function ledgerKey(root: string, file: string): string {
  return localPath(root, file).rel;
}
