// The probes that wait for a person (issue 39): `kbz check --probe` run without `--approve` finds
// a probe oracle nobody approved and asks for it here, in the approval store
// (`<store>/kbz/probe-requests/<sha256 of the root>`: the qualified gate ids, one a line). `kbz
// approve` lists each one still unapproved with what it hides; an approval leaves the request
// satisfied (it is no longer pending), a new request replaces the list.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../../core/util/hash.ts";
import { writeAtomic } from "../fs.ts";
import { readPrivate } from "./private.ts";

const MAX_BYTES = 256 * 1024;

function requestsFile(store: string, root: string): string {
  return path.join(store, "kbz", "probe-requests", sha256Hex(path.resolve(root)));
}

/** Remember the probes of `root` that asked for a person's approval (best effort: a request only lists work for the person). */
export function requestProbes(store: string, root: string, qids: string[]): void {
  try {
    const file = requestsFile(store, root);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const all = [...new Set([...probeRequests(store, root), ...qids])].sort();
    writeAtomic(file, `${all.join("\n")}\n`, { mode: 0o600 });
  } catch {}
}

/** The qualified gate ids whose probe asked for a person's approval in `root`. */
export function probeRequests(store: string, root: string): string[] {
  const text = readPrivate(requestsFile(store, root), MAX_BYTES)?.toString("utf8") ?? "";
  return text.split("\n").filter((l) => l !== "");
}
