// The recovery journal's two forms (docs/formats.md#structure-journal): kbz writes before-images
// and observed inputs as sha256 digests, a deliberate difference from the original, and still
// recovers the original's journals, whose images are the files' texts.
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { applyStructure, recoverStructure } from "../../../src/io/structure/apply.ts";
import { buildJournal } from "../../../src/core/structure/journal.ts";
import { sha, StructureError } from "../../../src/core/structure/model.ts";
import { hashTree, tempDir } from "../../helpers/kbz.ts";
import {
  child,
  dir,
  makeScope,
  meet,
  readScope,
  recoverError,
  refinement,
  request,
  SCOPE,
  writeScope,
} from "./scope.ts";

const JOURNAL = "STRUCTURE.pending.json";
const splitA = () => request("split-A", 1, { A: refinement([child("A", "1"), child("A", "2")]) });
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function scope(): string {
  const root = makeScope([{ id: "A" }, { id: "B", needs: ["A"] }, { id: "C" }], {
    extra: { "gates/node-1.md": "- [x] N1: branch\n  EVIDENCE: reviewed by hand\n" },
  });
  roots.push(root);
  return root;
}

function copyOf(root: string): string {
  const to = tempDir("kbz-journal-");
  fs.cpSync(root, to, { recursive: true });
  roots.push(to);
  return to;
}

/** Every scope file's text (null when absent) before the apply: the original's images. */
function texts(root: string, names: string[]): Record<string, string | null> {
  return Object.fromEntries(names.map((n) => [n, fs.existsSync(path.join(dir(root), n)) ? readScope(root, n) : null]));
}

async function crashAfter(root: string, k: number): Promise<Record<string, any>> {
  try {
    await applyStructure(root, SCOPE, splitA(), {
      afterWrite: (step) => {
        if (step === k) throw new StructureError("crash");
      },
    });
  } catch {}
  return JSON.parse(readScope(root, JOURNAL));
}

/** The journal as the original writes it: the same fields, every image the file's text. */
function originalForm(j: Record<string, any>, text: Record<string, string | null>): string {
  const { digest: _, ...rest } = j;
  const image = (name: string) => {
    const t = text[name]!;
    expect(t === null ? null : { sha256: sha(t) }).toEqual(
      Object.hasOwn(j.observed, name) ? j.observed[name] : j.before[name],
    );
    return t;
  };
  rest.before = Object.fromEntries(Object.keys(j.before).map((n) => [n, image(n)]));
  rest.observed = Object.fromEntries(Object.keys(j.observed).map((n) => [n, image(n)]));
  return JSON.stringify(buildJournal(rest as never), null, 2) + "\n";
}

describe("recovery journal forms", () => {
  test("deliberate difference: kbz journals before-images and observed inputs as sha256 digests, and recovery rolls them forward to the uninterrupted bytes", async () => {
    const base = scope();
    const reference = copyOf(base);
    await applyStructure(reference, SCOPE, splitA());
    for (const k of [2, 3, 4]) {
      const root = copyOf(base);
      const j = await crashAfter(root, k);
      for (const image of [...Object.values(j.before), ...Object.values(j.observed)] as (object | null)[]) {
        if (image !== null) expect(Object.keys(image)).toEqual(["sha256"]);
      }
      expect(j.before["gates/leaf-A.1.md"]).toBeNull();
      expect(j.observed["dispatch.json"]).toBeNull();
      expect(typeof j.after["PLAN.md"]).toBe("string");
      expect(await recoverStructure(root, SCOPE)).toEqual({ status: "applied", operation: "split-A" });
      expect(hashTree(root)).toBe(hashTree(reference));
    }
  });

  test("the original's journal, with text images, still recovers to the uninterrupted bytes", async () => {
    const base = scope();
    const reference = copyOf(base);
    await applyStructure(reference, SCOPE, splitA());
    for (const k of [2, 3]) {
      const root = copyOf(base);
      const j = await crashAfter(root, k);
      writeScope(root, JOURNAL, originalForm(j, texts(base, [...Object.keys(j.observed), ...Object.keys(j.before)])));
      expect(typeof JSON.parse(readScope(root, JOURNAL)).observed["gates/leaf-B.md"]).toBe("string");
      expect(await recoverStructure(root, SCOPE)).toEqual({ status: "applied", operation: "split-A" });
      expect(hashTree(root)).toBe(hashTree(reference));
    }
  });

  test("a changed untouched input or an edited target blocks recovery in either form and is preserved", async () => {
    const base = scope();
    for (const form of ["digest", "text"]) {
      const root = copyOf(base);
      const j = await crashAfter(root, 2);
      if (form === "text")
        writeScope(root, JOURNAL, originalForm(j, texts(base, [...Object.keys(j.observed), ...Object.keys(j.before)])));
      meet(root, "gates/leaf-B.md");
      const mine = readScope(root, "gates/leaf-B.md");
      expect(await recoverError(root)).toBe("untouched input changed during transaction: gates/leaf-B.md");
      expect(readScope(root, "gates/leaf-B.md")).toBe(mine);

      const other = copyOf(base);
      const k = await crashAfter(other, 2);
      if (form === "text")
        writeScope(
          other,
          JOURNAL,
          originalForm(k, texts(base, [...Object.keys(k.observed), ...Object.keys(k.before)])),
        );
      writeScope(other, "ACCESS.json", readScope(other, "ACCESS.json") + " ");
      expect(await recoverError(other)).toBe("recovery conflict; refusing to overwrite ACCESS.json");
    }
  });

  const malformed: [string, unknown][] = [
    ["an empty object", {}],
    ["a short digest", { sha256: "abc" }],
    ["upper-case hex", { sha256: "A".repeat(64) }],
    ["an extra key", { sha256: "a".repeat(64), text: "x" }],
    ["a number", 7],
  ];
  for (const [what, image] of malformed) {
    test(`a malformed image (${what}) is refused: observed "invalid observed path/payload", before "invalid recovery path/payload"; nothing written`, async () => {
      for (const [field, message] of [
        ["observed", "invalid observed path/payload"],
        ["before", "invalid recovery path/payload"],
      ] as const) {
        const root = copyOf(scope());
        const { digest: _, ...rest } = await crashAfter(root, 2);
        rest[field][field === "observed" ? "gates/leaf-B.md" : "PLAN.md"] = image;
        writeScope(root, JOURNAL, JSON.stringify(buildJournal(rest as never)));
        const before = hashTree(root);
        expect(await recoverError(root)).toBe(message);
        expect(hashTree(root)).toBe(before);
      }
    });
  }
});
