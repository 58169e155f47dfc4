// kbz's gate record files (.kbz/inputs, probes, oracles, failures): one reader and one writer.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { readRecordFile, recordFileName, recordFilePath, updateRecordFile } from "../../src/io/recordFiles.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";

describe("record files", () => {
  test("a file of records reads back; anything else holds no records", () => {
    const root = tempDir();
    writeTree(root, {
      "ok.json": '{"schema":1,"ledger":"/x","gates":{"G1":{"definition":"d"}}}',
      "schema2.json": '{"schema":2,"gates":{}}',
      "array.json": '{"schema":1,"gates":[]}',
      "broken.json": '{"schema":1,',
      "big.json": `{"schema":1,"gates":{},"pad":"${"x".repeat(100)}"}`,
    });
    fs.symlinkSync(path.join(root, "ok.json"), path.join(root, "link.json"));
    expect(spawnSync("mkfifo", [path.join(root, "fifo.json")]).status).toBe(0);
    expect(readRecordFile(path.join(root, "ok.json"))).toEqual({
      schema: 1,
      ledger: "/x",
      gates: { G1: { definition: "d" } },
    });
    for (const name of ["missing.json", "schema2.json", "array.json", "broken.json", "link.json", "fifo.json"]) {
      expect([name, readRecordFile(path.join(root, name))]).toEqual([name, null]);
    }
    expect(readRecordFile(path.join(root, "big.json"), 64)).toBeNull();
    expect(readRecordFile(path.join(root, "big.json"))).not.toBeNull();
  });

  test("a ledger's file is named by its real path, so a link to the ledger finds the same records", () => {
    const root = fs.realpathSync(tempDir());
    writeTree(root, { "gates/a.md": "# a\n" });
    fs.symlinkSync(path.join(root, "gates"), path.join(root, "via"));
    const p = recordFilePath(root, path.join(".kbz", "inputs"), path.join(root, "gates/a.md"));
    expect(p).toBe(path.join(root, ".kbz", "inputs", recordFileName(path.join(root, "gates/a.md"))));
    expect(recordFilePath(root, path.join(".kbz", "inputs"), path.join(root, "via/a.md"))).toBe(p);
    expect(path.basename(p)).toMatch(/^[0-9a-f]{24}\.json$/);
  });

  test("updateRecordFile creates the folder, passes the current records and writes atomically", async () => {
    const root = tempDir();
    const file = path.join(root, ".kbz", "probes", "x.json");
    const seen: unknown[] = [];
    await updateRecordFile(root, file, (current) => (seen.push(current), { schema: 1, gates: { G1: 1 } }));
    await updateRecordFile(
      root,
      file,
      (current) => (seen.push(current), { schema: 1, gates: { ...current?.gates, G2: 2 } }),
    );
    expect(seen).toEqual([null, { schema: 1, gates: { G1: 1 } }]);
    expect(fs.readFileSync(file, "utf8")).toBe('{\n "schema": 1,\n "gates": {\n  "G1": 1,\n  "G2": 2\n }\n}\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(["x.json"]);
  });
});
