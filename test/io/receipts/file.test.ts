// The receipt store: strict reading, atomic locked writes, concurrent writers, killed writers.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { VerificationError } from "../../../src/core/receipts/errors.ts";
import {
  parseReceiptFile,
  putReceipt,
  readReceiptFile,
  RECEIPTS_FILE,
  receiptFilePath,
} from "../../../src/io/receipts/file.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";

const WRITER = path.join(import.meta.dir, "receipt-writer.ts");
const INVALID = new VerificationError("invalid verification registry");
const policy = { inputs: ["src"], env: [], closed: true };
const good = {
  schema: 1,
  receipts: { "GATES.md": { status: "accepted", policy, context: "a".repeat(64), ledgerHash: "b".repeat(64) } },
};

describe("reading the store", () => {
  test("an absent store is empty", () => {
    expect(readReceiptFile(tempDir())).toEqual({ schema: 1, receipts: {} });
  });

  test("the original tool's store format is read as is", () => {
    expect(parseReceiptFile(JSON.stringify(good))).toEqual(good as never);
  });

  const bad: [string, string][] = [
    ["corrupt JSON", "{schema: 1"],
    ["a truncated store", JSON.stringify(good, null, 2).slice(0, 80)],
    ["an empty file", ""],
    ["another schema", JSON.stringify({ ...good, schema: 2 })],
    ["receipts that are an array", JSON.stringify({ schema: 1, receipts: [] })],
    [
      "a receipt with an unknown status",
      JSON.stringify({ schema: 1, receipts: { "GATES.md": { status: "done", policy } } }),
    ],
    [
      "an accepted receipt without a policy",
      JSON.stringify({
        schema: 1,
        receipts: { "GATES.md": { status: "accepted", context: "a".repeat(64), ledgerHash: "b".repeat(64) } },
      }),
    ],
    [
      "a policy with non-string inputs",
      JSON.stringify({
        schema: 1,
        receipts: { "GATES.md": { status: "pending", policy: { ...policy, inputs: [1] } } },
      }),
    ],
    [
      "an accepted receipt without hashes",
      JSON.stringify({ schema: 1, receipts: { "GATES.md": { status: "accepted", policy } } }),
    ],
    [
      "an accepted receipt with a short context",
      JSON.stringify({ schema: 1, receipts: { "GATES.md": { ...good.receipts["GATES.md"], context: "abc" } } }),
    ],
  ];
  for (const [what, text] of bad) {
    test(`${what} is an invalid verification registry`, () => {
      expect(() => parseReceiptFile(text)).toThrow(INVALID);
    });
  }

  test("a store that is a symlink, a hard link or a directory is refused", () => {
    const root = tempDir();
    writeTree(root, { "elsewhere.json": JSON.stringify(good) });
    fs.mkdirSync(path.join(root, ".unlazy"));
    fs.symlinkSync(path.join(root, "elsewhere.json"), receiptFilePath(root));
    expect(() => readReceiptFile(root)).toThrow(INVALID);
    fs.rmSync(receiptFilePath(root));
    fs.linkSync(path.join(root, "elsewhere.json"), receiptFilePath(root));
    expect(() => readReceiptFile(root)).toThrow(INVALID);
    fs.rmSync(receiptFilePath(root));
    fs.mkdirSync(receiptFilePath(root));
    expect(() => readReceiptFile(root)).toThrow(INVALID);
  });
});

describe("writing the store", () => {
  test("putReceipt replaces one receipt and keeps every other one", async () => {
    const root = tempDir();
    writeTree(root, { [RECEIPTS_FILE]: JSON.stringify(good) });
    await putReceipt(root, "gates/b.md", { status: "pending", policy });
    await putReceipt(root, "__proto__", { status: "rejected", policy });
    const store = readReceiptFile(root);
    expect(Object.keys(store.receipts)).toEqual(["GATES.md", "__proto__", "gates/b.md"]);
    expect(store.receipts["GATES.md"]).toEqual(good.receipts["GATES.md"] as never);
    expect(Object.getPrototypeOf(store.receipts)).toBe(Object.prototype);
    expect(fs.readFileSync(receiptFilePath(root), "utf8")).toEndWith("}\n");
  });

  test("a corrupt store is never overwritten", async () => {
    const root = tempDir();
    writeTree(root, { [RECEIPTS_FILE]: "{broken" });
    await expect(putReceipt(root, "GATES.md", { status: "pending", policy })).rejects.toThrow(INVALID);
    expect(fs.readFileSync(receiptFilePath(root), "utf8")).toBe("{broken");
  });

  test("concurrent writers in separate processes lose no receipt", async () => {
    const root = tempDir();
    const writers = 6;
    const each = 12;
    await Promise.all(
      Array.from(
        { length: writers },
        (_, w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [WRITER, root, `w${w}`, String(each), "10"], {
              stdio: ["ignore", "ignore", "pipe"],
            });
            let errText = "";
            child.stderr.on("data", (d) => (errText += d));
            child.on("exit", (code) =>
              code === 0 ? resolve() : reject(new Error(`writer ${w} exited ${code}: ${errText}`)),
            );
          }),
      ),
    );
    const keys = Object.keys(readReceiptFile(root).receipts);
    expect(keys.length).toBe(writers * each);
    for (let w = 0; w < writers; w++) for (let n = 0; n < each; n++) expect(keys).toContain(`gates/w${w}-${n}.md`);
  }, 120_000);

  test("a writer killed at any moment leaves the old or the new store, and the next writer recovers its lock", async () => {
    const root = tempDir();
    writeTree(root, { [RECEIPTS_FILE]: JSON.stringify(good) });
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, [WRITER, root, `k${round}`, "0", "2000"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let written = 0;
      await new Promise<void>((resolve) => {
        child.stdout.on("data", (d: Buffer) => {
          written += d.toString().split("\n").filter(Boolean).length;
          // Kill at a varying point after the writer is well into its loop.
          if (written >= 2 + round) resolve();
        });
      });
      await new Promise((r) => setTimeout(r, 3 + round * 7));
      child.kill("SIGKILL");
      await new Promise((r) => child.on("exit", r));
      const store = readReceiptFile(root); // parses: old or new, never a torn file
      expect(store.receipts["GATES.md"]).toEqual(good.receipts["GATES.md"] as never);
      const mine = Object.keys(store.receipts).filter((k) => k.startsWith(`gates/k${round}-`)).length;
      expect(mine === written || mine === written + 1).toBe(true);
      // The dead writer may still own the lock file: the next write recovers it.
      await putReceipt(root, `after-${round}.md`, { status: "pending", policy });
      expect(readReceiptFile(root).receipts[`after-${round}.md`]).toEqual({ status: "pending", policy });
    }
    // Earlier rounds' receipts are all still there.
    expect(Object.keys(readReceiptFile(root).receipts).filter((k) => k.startsWith("after-")).length).toBe(5);
  }, 120_000);
});
