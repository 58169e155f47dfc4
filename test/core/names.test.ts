// Names say what they hold (issue 26): "store" means one thing, the approval store (records, the
// consent policy, attestations, the acts log under ~/.unlazy/approved or UNLAZY_APPROVAL_DIR).
// Leases and waves go through the coordination port, kbz's .kbz/ files are record files, the
// verification receipts are the receipts file. This fails on a file or folder of src/ named
// "store", or a declared name holding "store" that is not about the approval store.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { sources, SRC } from "../helpers/sources.ts";

/** Declared names that hold "store" and mean the approval store (or are "stored": a record as kept). */
const APPROVAL_STORE =
  /^(ApprovalStore|ApprovalStoreError|approvalStore|assertStoreOutside|storeDir|StoreIdentity|useDemoStore|store)$|Stored|STORED|^stored$|^restored?$/;

/** `file:line: name` of each declaration in `text` whose name holds "store" and is not the approval store's. */
export function otherStores(file: string, text: string): string[] {
  const out: string[] = [];
  const decl = /\b(?:function|class|interface|type|const|let|var|enum)\s+([A-Za-z_$][\w$]*)/g;
  for (const m of text.matchAll(decl)) {
    const name = m[1]!;
    if (/store/i.test(name) && !APPROVAL_STORE.test(name))
      out.push(`${file}:${text.slice(0, m.index).split("\n").length}: ${name}`);
  }
  return out;
}

describe('"store" names the approval store only', () => {
  test("the scan finds a coordination or record-file store and passes the approval store", () => {
    expect(otherStores("a.ts", "export function storeFor(root: string) {}\nconst readInputStore = 1;")).toEqual([
      "a.ts:1: storeFor",
      "a.ts:2: readInputStore",
    ]);
    expect(
      otherStores(
        "a.ts",
        "export class ApprovalStore {}\nconst store = new ApprovalStore(dir, root);\ninterface InputsStored {}",
      ),
    ).toEqual([]);
  });

  test("no file or folder of src/ is named store, and no declaration outside the approval store's holds the word", () => {
    const files = sources();
    expect(files.map((f) => path.relative(SRC, f)).filter((f) => /store/i.test(f))).toEqual([]);
    expect(files.flatMap((f) => otherStores(path.relative(SRC, f), fs.readFileSync(f, "utf8")))).toEqual([]);
  });
});
